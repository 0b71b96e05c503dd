/**
 * Each command loads what it needs when it needs it: `--version` and `--help` load no schemas (zod), no tool
 * registry, no permission engine, no bash parser and no UI; `exec` with a Read loads the tools and zod but not
 * the bash parser, the MCP SDK or the UI; the first Bash call loads the parser. The modules a process loads are
 * recorded by a loader hook (test/ui/fixtures/recordLoads.mjs); each check has a run where the thing it looks
 * for is loaded, so it cannot pass by seeing nothing.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { cliArgs, cliEnv, repoRoot } from "../cliCommand.js";

vi.setConfig({ testTimeout: 120_000 });

const hook = path.join(repoRoot, "test/ui/fixtures/recordLoads.mjs");

interface Run {
  status: number | null;
  stdout: string;
  urls: string[];
}

function run(args: string[], stdin = ""): Promise<Run> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-lazy-start-")));
  const home = path.join(dir, ".home");
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(dir, "small.txt"), "one\n");
  const log = path.join(dir, "loads.txt");
  const child = spawn(process.execPath, ["--import", hook, ...cliArgs, ...args.map((a) => a.replace("$DIR", dir))], {
    cwd: dir,
    env: { ...process.env, ...cliEnv, HOME: home, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"), TOOLGATE_LOAD_LOG: log },
  });
  let stdout = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stdin.end(stdin.replaceAll("$DIR", dir));
  return new Promise((resolve) => {
    child.on("close", (status) => {
      const urls = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
      fs.rmSync(dir, { recursive: true, force: true });
      resolve({ status, stdout, urls });
    });
  });
}

/**
 * A dependency is loaded when one of its own files is (the sources run through tsx, or a package left outside
 * the bundle), or when the build loads a chunk holding code only it has.
 */
const dependencies = {
  zod: { file: /\/node_modules\/zod\//, code: /"\$ZodType"/ },
  "tool registry": { file: /\/src\/tools\/index\.ts$/, code: /function getBuiltinTools\d*\(/ },
  "permission engine": { file: /\/src\/permissions\/decide\.ts$/, code: /hasPermissionsToUseTool\d* = async/ },
  // web-tree-sitter stays outside the bundle (it finds its wasm beside its code): its own file shows in both
  "bash parser": { file: /\/node_modules\/web-tree-sitter\//, code: undefined },
  "MCP SDK": { file: /\/node_modules\/@modelcontextprotocol\/sdk\//, code: /"notifications\/initialized"/ },
  ink: { file: /\/node_modules\/(ink|react|react-reconciler)\//, code: /internal_static/ },
} satisfies Record<string, { file: RegExp; code: RegExp | undefined }>;
type Dependency = keyof typeof dependencies;

const builtChunks = `${path.sep}dist${path.sep}cli${path.sep}`;
function loaded(urls: readonly string[], name: Dependency): boolean {
  const { file, code } = dependencies[name];
  return urls.some((url) => {
    if (file.test(url)) return true;
    if (!code || !url.startsWith("file:") || !url.includes(builtChunks)) return false;
    return code.test(fs.readFileSync(fileURLToPath(url), "utf8"));
  });
}
const loadedOf = (urls: readonly string[]) => (Object.keys(dependencies) as Dependency[]).filter((name) => loaded(urls, name));

const toolUse = (name: string, input: object) => `${JSON.stringify({ type: "tool_use", id: "t1", name, input })}\n`;

describe("start-up loads what the command needs", () => {
  it("--version and --help load none of the heavy parts", async () => {
    const version = await run(["--version"]);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(version.urls.length).toBeGreaterThan(0);
    expect(loadedOf(version.urls)).toEqual([]);

    const help = await run(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("exec");
    expect(loadedOf(help.urls)).toEqual([]);
  });

  it("exec with a Read loads the tools, zod and the permission engine, but not the bash parser, MCP or the UI", async () => {
    const result = await run(["exec", "--no-sandbox", "--cwd", "$DIR"], toolUse("Read", { file_path: "$DIR/small.txt" }));
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("1\\tone");
    // the controls: what --version must not load is seen here
    expect(loadedOf(result.urls)).toEqual(["zod", "tool registry", "permission engine"]);
  });

  it("the first Bash call loads the bash parser, and still not MCP or the UI", async () => {
    const result = await run(["exec", "--no-sandbox", "--cwd", "$DIR"], toolUse("Bash", { command: "echo lazy-$((6 * 7))" }));
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("lazy-42");
    expect(loadedOf(result.urls)).toEqual(["zod", "tool registry", "permission engine", "bash parser"]);
  });
});
