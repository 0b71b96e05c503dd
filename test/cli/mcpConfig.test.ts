/**
 * `toolgate mcp add|remove|get` through the real CLI: each scope's file, what a session then loads (the stdio
 * server is the real server-everything), a broken file left untouched, and the trust rule for project servers.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cliArgs, cliEnv, withoutSandboxNotice } from "../cliCommand.js";
import { personalMcpConfigFiles } from "../../src/mcp/client/config.js";

const require = createRequire(import.meta.url);
const everythingServer = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");

function setup() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-mcp-add-")));
  const home = path.join(dir, ".home");
  fs.mkdirSync(home);
  const env = { ...process.env, ...cliEnv, TOOLGATE_HOME: home, HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") };
  const cli = (...args: string[]) => {
    const run = spawnSync(process.execPath, [...cliArgs, ...args], { cwd: dir, env, encoding: "utf8" });
    return { code: run.status, stdout: run.stdout, stderr: withoutSandboxNotice(run.stderr) };
  };
  return { dir, home, cli, files: personalMcpConfigFiles(home, dir) };
}

describe("toolgate mcp add / remove / get", () => {
  it("adds a stdio server to the local scope (0600, outside the repository); get connects it; remove takes it out", () => {
    const { dir, cli, files } = setup();
    const added = cli("mcp", "add", "every", process.execPath, "--", everythingServer, "stdio");
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(added.stdout).toBe(`Added stdio MCP server every (local scope) in ${files.local}\n`);
    expect(fs.statSync(files.local).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(path.join(dir, ".mcp.json"))).toBe(false);
    expect(JSON.parse(fs.readFileSync(files.local, "utf8"))).toEqual({ mcpServers: { every: { type: "stdio", command: process.execPath, args: [everythingServer, "stdio"] } } });

    const got = cli("mcp", "get", "every");
    expect(got.code).toBe(0);
    expect(got.stdout).toContain(`local scope (${files.local}): stdio ${process.execPath} ${everythingServer} stdio`);
    expect(got.stdout).toMatch(/status: connected \(\d+ tools, \d+ resources, \d+ prompts\)/);
    // a session in that folder has its tools
    const tools = cli("tools", "--json");
    expect(tools.stdout).toContain("mcp__every__echo");

    const removed = cli("mcp", "remove", "every");
    expect(removed.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(files.local, "utf8"))).toEqual({ mcpServers: {} });
    expect(cli("mcp", "get", "every").code).not.toBe(0);
  }, 60_000);

  it("http servers with headers go to the user scope; values of headers are masked in get; other keys of the file stay", async () => {
    const { cli, files } = setup();
    // a port that was free a moment ago: nothing listens there
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const url = `http://127.0.0.1:${port}/mcp`;
    fs.mkdirSync(path.dirname(files.user), { recursive: true });
    fs.writeFileSync(files.user, JSON.stringify({ comment: "mine", mcpServers: { old: { type: "http", url: "http://127.0.0.1:9/mcp" } } }));
    const added = cli("mcp", "add", "-s", "user", "-t", "http", "-H", "Authorization: Bearer secret-token-123", "remote", url);
    expect(added.code).toBe(0);
    const written = JSON.parse(fs.readFileSync(files.user, "utf8"));
    expect(written.comment).toBe("mine");
    expect(written.mcpServers.remote).toEqual({ type: "http", url, headers: { Authorization: "Bearer secret-token-123" } });
    expect(Object.keys(written.mcpServers)).toEqual(["old", "remote"]);
    const got = cli("mcp", "get", "remote");
    expect(got.stdout).toContain("headers: Authorization=Bear…");
    expect(got.stdout).not.toContain("secret-token-123");
    // nothing listens there: get says so and exits non-zero
    expect(got.code).toBe(1);
    expect(got.stdout).toContain(`status: failed: could not connect: ${url}: connect ECONNREFUSED`);
  }, 60_000);

  it("project scope writes .mcp.json, and in a folder that is not trusted get says the server does not start", () => {
    const { dir, cli } = setup();
    const added = cli("mcp", "add", "--scope", "project", "-e", "TOKEN=${MY_TOKEN}", "proj", "node", "server.js");
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("Project servers start only in folders you trust");
    expect(JSON.parse(fs.readFileSync(path.join(dir, ".mcp.json"), "utf8"))).toEqual({ mcpServers: { proj: { type: "stdio", command: "node", args: ["server.js"], env: { TOKEN: "${MY_TOKEN}" } } } });
    const got = cli("mcp", "get", "proj");
    expect(got.code).toBe(1);
    expect(got.stdout).toContain("status: not started: it is only in this folder's .mcp.json, and the folder is not trusted");
  }, 60_000);

  it("refuses bad input and never rewrites a file it cannot read back", () => {
    const { cli, files } = setup();
    fs.mkdirSync(path.dirname(files.local), { recursive: true });
    fs.writeFileSync(files.local, "{ not json");
    const broken = cli("mcp", "add", "x", "node");
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("is not valid JSON");
    expect(fs.readFileSync(files.local, "utf8")).toBe("{ not json");
    expect(cli("mcp", "add", "-t", "http", "x", "not a url").stderr).toContain("needs a URL");
    expect(cli("mcp", "add", "-s", "team", "x", "node").stderr).toContain("--scope must be one of local, project, user");
    expect(cli("mcp", "add", "-e", "NOEQUALS", "x", "node").stderr).toContain("-e/--env takes KEY=value");
    expect(cli("mcp", "add", "bad/name", "node").stderr).toContain("a server name uses letters");
    fs.rmSync(files.local);
    expect(cli("mcp", "remove", "nothing").stderr).toContain("no MCP server named nothing");
  }, 60_000);

  it("a name in two scopes needs --scope to be removed", () => {
    const { cli, files } = setup();
    expect(cli("mcp", "add", "-s", "user", "twice", "node").code).toBe(0);
    expect(cli("mcp", "add", "-s", "local", "twice", "node").code).toBe(0);
    const ambiguous = cli("mcp", "remove", "twice");
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("say which with --scope");
    expect(cli("mcp", "remove", "-s", "user", "twice").code).toBe(0);
    expect(JSON.parse(fs.readFileSync(files.user, "utf8")).mcpServers).toEqual({});
    expect(JSON.parse(fs.readFileSync(files.local, "utf8")).mcpServers.twice).toBeDefined();
  }, 60_000);
});
