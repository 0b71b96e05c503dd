/**
 * Permission decision time against 500 loaded rules (Bash, Read/Edit path rules, MCP, whole tools) read
 * from real settings files: hasPermissionsToUseTool on file-tool-like test tools, and the command matcher
 * as the Bash tool uses it (scan deny/ask/allow content rules). The peer is a naive engine in the same run
 * that compiles every rule on every call (ignore + RegExp), to show what the caches buy.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ignore from "ignore";
import { z } from "zod";
import { buildTool } from "../../src/core/buildTool.js";
import { createToolUseContext } from "../../src/core/context.js";
import type { PermissionRule } from "../../src/core/permissionTypes.js";
import { loadSettings } from "../../src/session/settings.js";
import {
  buildPermissionContext,
  checkReadPermissionForPath,
  checkWritePermissionForPath,
  getContentRulesForTool,
  hasPermissionsToUseTool,
  matchCommandPattern,
  resolvePatternRoot,
} from "../../src/permissions/index.js";

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-perm-bench-")));
const cwd = path.join(base, "project");
const home = path.join(base, "home");
fs.mkdirSync(path.join(cwd, "src/deep/er"), { recursive: true });

const words = ["build", "test", "lint", "deploy", "fmt", "check", "run", "serve", "watch", "clean"];
const tools = ["npm", "git", "cargo", "make", "docker", "kubectl", "yarn", "pnpm", "go", "python"];
const bashRules = (n: number, offset: number) =>
  Array.from({ length: n }, (_, i) => {
    const t = tools[(i + offset) % tools.length];
    const w = words[(i * 7 + offset) % words.length];
    const kind = i % 3;
    return kind === 0 ? `Bash(${t} ${w} --flag${i})` : kind === 1 ? `Bash(${t} ${w}${i}:*)` : `Bash(${t} * --opt${i} *)`;
  });
const pathRules = (tool: string, n: number, offset: number) =>
  Array.from({ length: n }, (_, i) => {
    const k = (i + offset) % 4;
    const p = k === 0 ? `//opt/data${i}/**` : k === 1 ? `~/private${i}/**` : k === 2 ? `/gen${i}/**/*.ts` : `*.secret${i}`;
    return `${tool}(${p})`;
  });
const mcpRules = (n: number, offset: number) => Array.from({ length: n }, (_, i) => (i % 2 ? `mcp__server${i + offset}` : `mcp__server${i + offset}__tool${i}`));

function write(file: string, value: unknown) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
}
// 5 files × 100 rules = 500
for (const [i, file] of [
  path.join(home, "settings.json"),
  path.join(cwd, ".toolgate/settings.json"),
  path.join(cwd, ".toolgate/settings.local.json"),
  path.join(base, "flag.json"),
  path.join(base, "managed.json"),
].entries()) {
  const rules = [...bashRules(40, i * 40), ...pathRules("Read", 15, i), ...pathRules("Edit", 15, i), ...mcpRules(20, i * 20), ...words.map((w) => `Tool${w}${i}`)];
  write(file, { permissions: { allow: rules.filter((_, j) => j % 3 === 0), deny: rules.filter((_, j) => j % 3 === 1), ask: rules.filter((_, j) => j % 3 === 2) } });
}
const loaded = loadSettings({ cwd, home, settingsFile: path.join(base, "flag.json"), managedSettingsPath: path.join(base, "managed.json"), env: {} });
if (loaded.errors.length) throw new Error(JSON.stringify(loaded.errors));
const permissionContext = buildPermissionContext({ loaded, cwd, nonInteractive: true, mode: "acceptEdits" });
const ruleCount = permissionContext.rules.length;

const fileTool = (name: string, kind: "read" | "write") =>
  buildTool<{ file_path: string }, string>({
    name,
    inputSchema: z.strictObject({ file_path: z.string() }),
    maxResultSizeChars: 1000,
    description: () => name,
    prompt: () => name,
    isReadOnly: () => kind === "read",
    async checkPermissions(input, context) {
      const ctx = context.getAppState().toolPermissionContext;
      return kind === "read" ? checkReadPermissionForPath(input.file_path, ctx) : checkWritePermissionForPath(input.file_path, ctx);
    },
    call: async () => ({ data: "" }),
    mapToolResultToToolResultBlockParam: (_o: string, id: string) => ({ type: "tool_result", tool_use_id: id, content: "" }),
  });
const readTool = fileTool("Read", "read");
const editTool = fileTool("Edit", "write");
const context = createToolUseContext({ tools: [readTool, editTool], cwd, home, permissionContext, permissionDecider: hasPermissionsToUseTool });

const paths = Array.from({ length: 64 }, (_, i) => path.join(cwd, i % 2 ? `src/deep/er/file${i}.ts` : `src/file${i}.js`));
const commands = Array.from({ length: 64 }, (_, i) => `${tools[i % tools.length]} ${words[(i * 3) % words.length]} --x ${i}`);

/** The naive peer: compile every relevant rule on every call, no index, no caches. */
function naivePathDecision(target: string, family: string, rules: readonly PermissionRule[]): string {
  for (const behavior of ["deny", "ask", "allow"] as const) {
    for (const rule of rules) {
      if (rule.ruleBehavior !== behavior || rule.ruleValue.toolName !== family || rule.ruleValue.ruleContent === undefined) continue;
      const { root, pattern } = resolvePatternRoot(rule.ruleValue.ruleContent, rule, cwd);
      const real = fs.realpathSync(root === "/" ? "/" : fs.existsSync(root) ? root : "/");
      void real;
      const rel = path.relative(root, target);
      if (!rel || rel.startsWith("..")) continue;
      if (ignore().add(pattern).ignores(rel)) return behavior;
    }
  }
  return "passthrough";
}
function naiveCommandDecision(command: string, rules: readonly PermissionRule[]): string {
  for (const behavior of ["deny", "ask", "allow"] as const) {
    for (const rule of rules) {
      if (rule.ruleBehavior !== behavior || rule.ruleValue.toolName !== "Bash" || rule.ruleValue.ruleContent === undefined) continue;
      const c = rule.ruleValue.ruleContent;
      const source = c.endsWith(":*") ? `^${c.slice(0, -2).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\s[\\s\\S]*)?$` : `^${c.split("*").map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\S]*")}$`;
      if (new RegExp(source).test(command)) return behavior;
    }
  }
  return "passthrough";
}
function commandDecision(command: string): string {
  for (const behavior of ["deny", "ask", "allow"] as const) {
    if (getContentRulesForTool(permissionContext, "Bash", behavior).some((r) => matchCommandPattern(r.ruleValue.ruleContent!, command))) return behavior;
  }
  return "passthrough";
}

async function measure(iterations: number, fn: (i: number) => unknown): Promise<{ p50: number; p99: number; mean: number }> {
  for (let i = 0; i < Math.min(iterations, 500); i++) await fn(i);
  const samples = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await fn(i);
    samples[i] = (performance.now() - start) * 1000;
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { p50: sorted[Math.floor(sorted.length * 0.5)], p99: sorted[Math.floor(sorted.length * 0.99)], mean };
}

const N = 20_000;
const rows: Array<[string, { p50: number; p99: number; mean: number }]> = [];
rows.push(["hasPermissionsToUseTool Read (file tool)", await measure(N, (i) => hasPermissionsToUseTool(readTool, { file_path: paths[i % 64] }, context, { toolUseID: "b" }))]);
rows.push(["hasPermissionsToUseTool Edit (file tool)", await measure(N, (i) => hasPermissionsToUseTool(editTool, { file_path: paths[i % 64] }, context, { toolUseID: "b" }))]);
rows.push(["naive peer: Read path, compile per call", await measure(2_000, (i) => naivePathDecision(paths[i % 64], "Read", permissionContext.rules))]);
rows.push(["command matcher (deny/ask/allow scan)", await measure(N, (i) => commandDecision(commands[i % 64]))]);
rows.push(["matchCommandPattern, one rule", await measure(N, (i) => matchCommandPattern("npm run:*", commands[i % 64]))]);
rows.push(["naive peer: command, RegExp per call", await measure(5_000, (i) => naiveCommandDecision(commands[i % 64], permissionContext.rules))]);

console.log(`permissions bench: ${ruleCount} rules from ${loaded.files.length} settings files + cwd ${cwd}`);
console.log(`  ${"case".padEnd(44)} ${"p50 µs".padStart(9)} ${"p99 µs".padStart(9)} ${"mean µs".padStart(9)}`);
for (const [name, r] of rows) console.log(`  ${name.padEnd(44)} ${r.p50.toFixed(2).padStart(9)} ${r.p99.toFixed(2).padStart(9)} ${r.mean.toFixed(2).padStart(9)}`);
const get = (name: string) => rows.find(([n]) => n.startsWith(name))![1];
console.log(`  ratio naive/engine, Read path: ${(get("naive peer: Read").mean / get("hasPermissionsToUseTool Read").mean).toFixed(1)}x`);
console.log(`  ratio naive/engine, command:   ${(get("naive peer: command").mean / get("command matcher").mean).toFixed(1)}x`);
fs.rmSync(base, { recursive: true, force: true });
