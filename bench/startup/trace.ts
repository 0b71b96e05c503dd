/**
 * The import graph of three start-ups, for the build in dist/ (and `STARTUP_BASELINE`'s, when set):
 * `--version`, `exec` with one Read, `exec` with one Bash call. Per run: how many of our own files (the CLI's
 * chunks, or src/ through tsx), package files and Node built-ins loaded, their bytes, when the last one
 * loaded, and which heavy dependencies were among them. Not timed against goals: `npm run bench` does that.
 * Run: npx tsx bench/startup/trace.ts
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const hook = path.join(here, "loadTrace.mjs");
const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-trace-")));
const home = path.join(cwd, ".home");
fs.mkdirSync(home);
fs.writeFileSync(path.join(cwd, "small.txt"), "one\n");
const line = (name: string, input: object) => `${JSON.stringify({ type: "tool_use", id: "t1", name, input })}\n`;

const runs = [
  { name: "--version", args: ["--version"], input: "" },
  { name: "exec (Read)", args: ["exec", "--no-sandbox", "--cwd", cwd], input: line("Read", { file_path: path.join(cwd, "small.txt") }) },
  { name: "exec (Bash true)", args: ["exec", "--no-sandbox", "--cwd", cwd], input: line("Bash", { command: "true" }) },
];

/** Heavy dependencies, told by their file names, or (bundled into a chunk) by a string only their code has. */
const markers: Array<[string, RegExp, string]> = [
  ["zod", /\/node_modules\/zod\//, '"$ZodType"'],
  ["ink", /\/node_modules\/(ink|react)\//, "internal_static"],
  ["mcp-sdk", /\/node_modules\/@modelcontextprotocol\//, "notifications/initialized"],
  ["tree-sitter", /\/node_modules\/web-tree-sitter\//, "\u0000never"],
  ["tool-registry", /\/src\/core\/registry\.ts$/, "\u0000never"],
];

function trace(cli: string, run: (typeof runs)[number]) {
  const log = path.join(cwd, "trace.log");
  fs.rmSync(log, { force: true });
  const child = spawnSync(process.execPath, ["--import", hook, cli, ...run.args], {
    input: run.input,
    cwd,
    encoding: "utf8",
    env: { ...process.env, HOME: home, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"), TOOLGATE_TRACE_LOG: log },
  });
  if (child.status !== 0) throw new Error(`${run.name} failed: ${child.stderr}`);
  const rows = fs.readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => l.split("\t"));
  const ours = rows.filter(([, url]) => url.startsWith("file:") && !url.includes("/node_modules/"));
  const packages = rows.filter(([, url]) => url.includes("/node_modules/"));
  const builtins = rows.filter(([, url]) => url.startsWith("node:"));
  const kb = (xs: string[][]) => (xs.reduce((sum, [, , bytes]) => sum + Number(bytes), 0) / 1024).toFixed(0);
  const loaded = markers
    .filter(([, file, text]) => rows.some(([, url]) => file.test(url) || (url.startsWith(pathToFileURL(path.dirname(cli)).href) && fs.readFileSync(fileURLToPath(url), "utf8").includes(text))))
    .map(([name]) => name);
  const last = Math.max(...rows.map(([ms]) => Number(ms)));
  return `${run.name.padEnd(18)} ours ${String(ours.length).padStart(3)} (${kb(ours)} KB), packages ${String(packages.length).padStart(3)} (${kb(packages)} KB), node: ${String(builtins.length).padStart(2)}; last load at ${last.toFixed(0)} ms; heavy: ${loaded.join(", ") || "none"}`;
}

const builds = [["this build", path.join(root, "dist/cli/main.js")]];
if (process.env.STARTUP_BASELINE) builds.unshift(["baseline", path.resolve(process.env.STARTUP_BASELINE)]);
for (const [label, cli] of builds) {
  console.log(`${label} (${cli}):`);
  for (const run of runs) console.log(`  ${trace(cli, run)}`);
}
fs.rmSync(cwd, { recursive: true, force: true });
