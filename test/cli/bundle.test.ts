/**
 * The shipped CLI is an esbuild bundle (dist/cli/main.js and its chunks, built by `npm run build` / prepare).
 * What it finds at run time must still be found from there: package.json for the version, the bash grammar's
 * wasm, the bundled ripgrep binary, the sandbox runtime, and the lazily loaded MCP chunks.
 */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { checkSandboxSupport } from "../../src/sandbox/index.js";
import { EVERYTHING_SERVER } from "../mcp/helpers.js";
import { tempDir } from "../helpers.js";

const bundle = path.resolve("dist/cli/main.js");

function cli(args: string[], input = "") {
  const home = tempDir("tg-bundle-home-");
  return spawnSync(process.execPath, [bundle, ...args], {
    input,
    env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
    encoding: "utf8",
  });
}

const line = (id: string, name: string, input: Record<string, unknown>) => JSON.stringify({ type: "tool_use", id, name, input });

describe("the bundled CLI", () => {
  it("prints the version from package.json", () => {
    const run = cli(["--version"]);
    const { version } = JSON.parse(fs.readFileSync("package.json", "utf8")) as { version: string };
    expect(run.stdout.trim()).toBe(version);
  });

  it("runs Read, Grep (bundled rg) and Bash (wasm grammar, and the sandbox where it runs) from the bundle", () => {
    const cwd = tempDir("tg-bundle-");
    fs.writeFileSync(path.join(cwd, "notes.txt"), "alpha\nbeta\n");
    const calls = [
      line("r", "Read", { file_path: path.join(cwd, "notes.txt") }),
      line("g", "Grep", { pattern: "beta", output_mode: "content" }),
      // writes a file: allowed by acceptEdits only once the grammar has shown the write stays in the project
      line("b", "Bash", { command: "echo made > out.txt && cat notes.txt" }),
    ];
    const run = cli(["exec", "--cwd", cwd, "--permission-mode", "acceptEdits"], `${calls.join("\n")}\n`);
    expect(run.status, run.stderr).toBe(0);
    const results = run.stdout.trim().split("\n").map((l) => JSON.parse(l).content[0]);
    expect(results.map((r: { is_error?: boolean }) => r.is_error ?? false)).toEqual([false, false, false]);
    expect(results[0].content).toContain("2\tbeta");
    expect(results[1].content).toContain("beta");
    expect(results[2].content).toBe("alpha\nbeta");
    expect(fs.readFileSync(path.join(cwd, "out.txt"), "utf8")).toBe("made\n");
    if (checkSandboxSupport().available) expect(run.stderr).not.toMatch(/sandbox is unavailable/);
  });

  it("asks about what the grammar cannot vouch for, as the unbundled code does", () => {
    const cwd = tempDir("tg-bundle-ask-");
    const run = cli(["exec", "--no-sandbox", "--cwd", cwd], `${line("b", "Bash", { command: "ls ;; pwd" })}\n`);
    const result = JSON.parse(run.stdout.trim()).content[0];
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/bash does not accept its syntax/);
  });

  it("loads the MCP client on demand: a configured server's tools are listed", () => {
    const cwd = tempDir("tg-bundle-mcp-");
    const config = JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] } } });
    const run = cli(["tools", "--json", "--cwd", cwd, "--mcp-config", config]);
    expect(run.status, run.stderr).toBe(0);
    const names = (JSON.parse(run.stdout) as { name: string }[]).map((t) => t.name);
    expect(names).toContain("Bash");
    expect(names.some((n) => n.startsWith("mcp__everything__"))).toBe(true);
  });
});
