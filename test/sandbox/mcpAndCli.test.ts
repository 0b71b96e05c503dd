/**
 * The sandbox outside Bash's own call: stdio MCP servers with `"sandbox": true`, and what the CLI says
 * (`permissions explain`, `doctor`). Real servers, real bwrap, the built CLI.
 */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { createSession, type Session } from "../../src/session/index.js";
import { checkSandboxSupport } from "../../src/sandbox/index.js";
import { FILESYSTEM_SERVER } from "../mcp/helpers.js";
import { tempDir } from "../helpers.js";

const support = checkSandboxSupport();
const bwrapRuns = support.available && spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"]).status === 0;
const skipReason = !support.available ? support.reason : !bwrapRuns ? "bwrap is installed but cannot create namespaces here" : "";

const sessions: Session[] = [];
afterAll(async () => {
  for (const s of sessions.splice(0)) await s.close();
});

function cli(args: string[], cwd: string) {
  const home = tempDir("tg-sbx-cli-home-");
  return spawnSync(process.execPath, [path.resolve("dist/cli/main.js"), ...args, "--cwd", cwd], {
    env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
    encoding: "utf8",
  });
}

async function filesystemSession(sandbox: boolean | undefined, allowedDir: string, cwd = tempDir("tg-sbx-mcp-")) {
  fs.writeFileSync(
    path.join(cwd, ".mcp.json"),
    JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM_SERVER, allowedDir], ...(sandbox !== undefined && { sandbox }) } } }),
  );
  const home = tempDir("tg-sbx-home-");
  const session = await createSession({ cwd, home, mcpConfigFiles: [], trust: true, env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") } });
  sessions.push(session);
  return { session, cwd };
}

const callOptions = () => ({ signal: new AbortController().signal, onProgress: () => undefined });

describe.skipIf(!!skipReason)("stdio MCP servers in the sandbox", () => {
  it('"sandbox": true runs the server confined: it works inside the working directories, cannot write outside them', async () => {
    const outside = tempDir("tg-sbx-mcp-outside-");
    const { session: control } = await filesystemSession(undefined, outside);
    await control.mcp!.client("fs")!.callTool("write_file", { path: path.join(outside, "control.txt"), content: "x" }, callOptions());
    expect(fs.existsSync(path.join(outside, "control.txt"))).toBe(true);

    const { session, cwd } = await filesystemSession(true, path.dirname(outside));
    const client = session.mcp!.client("fs")!;
    expect(client.status).toBe("connected");
    const blocked = await client.callTool("write_file", { path: path.join(outside, "escape.txt"), content: "x" }, callOptions());
    expect(blocked.isError).toBe(true);
    expect(fs.existsSync(path.join(outside, "escape.txt"))).toBe(false);

    const { session: inside } = await filesystemSession(true, cwd, cwd);
    const ok = await inside.mcp!.client("fs")!.callTool("write_file", { path: path.join(cwd, "inside.txt"), content: "x" }, callOptions());
    expect(ok.isError).toBeFalsy();
    expect(fs.readFileSync(path.join(cwd, "inside.txt"), "utf8")).toBe("x");
  });

  it('with --no-sandbox a "sandbox": true server does not start, and says why', async () => {
    const cwd = tempDir("tg-sbx-mcp-");
    fs.writeFileSync(path.join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM_SERVER, cwd], sandbox: true } } }));
    const home = tempDir("tg-sbx-home-");
    const session = await createSession({ cwd, home, sandbox: false, mcpConfigFiles: [], trust: true, env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") } });
    sessions.push(session);
    expect(session.mcp!.client("fs")!.status).toBe("failed");
    expect(session.warnings.join("\n")).toMatch(/MCP server fs is failed: .*sandbox/);
  });
});

describe.skipIf(!!skipReason)("the CLI", () => {
  it("permissions explain says a command no rule covers is allowed sandboxed and read-only, and what a rule lets it write", () => {
    const cwd = tempDir("tg-sbx-cli-");
    const free = cli(["permissions", "explain", "Bash", "touch x"], cwd);
    expect(free.stdout).toContain("decision: allow");
    expect(free.stdout).toContain("reason: sandboxed, read-only");
    expect(free.stdout).toContain("sandbox: sandboxed, read-only: nothing writable but a private temp dir");
    const ruled = cli(["permissions", "explain", "Bash", "touch x", "--allowedTools", "Bash(touch:*)"], cwd);
    expect(ruled.stdout).toContain("decision: allow");
    expect(ruled.stdout).toContain("sandbox: sandboxed: may write inside the working directories");
    const off = cli(["permissions", "explain", "Bash", "touch x", "--no-sandbox"], cwd);
    expect(off.stdout).toContain("decision: ask");
    expect(off.stdout).toContain("sandbox: off (--no-sandbox); the rules alone decide");
  });

  it("doctor runs a command in the sandbox and reports what it could not do", () => {
    const cwd = tempDir("tg-sbx-cli-");
    const run = cli(["doctor", "--json"], cwd);
    const report = JSON.parse(run.stdout) as { checks: Array<{ name: string; status: string; lines: string[] }> };
    const sandbox = report.checks.find((c) => c.name === "sandbox")!;
    expect(sandbox.status).toBe("ok");
    expect(sandbox.lines).toContain("✓ a command no rule covers cannot write the project");
    expect(sandbox.lines).toContain("✓ its private temp dir is writable");
    expect(fs.readdirSync(cwd)).toEqual([]);
    const off = JSON.parse(cli(["doctor", "--json", "--no-sandbox"], cwd).stdout) as typeof report;
    expect(off.checks.find((c) => c.name === "sandbox")).toMatchObject({ status: "warn" });
  });
});
