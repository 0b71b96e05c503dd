/**
 * Undo bench: what tracking Bash's changes costs per call on a generated 10 000-file repository (plus an
 * ignored node_modules of 2 000 files). (1) A Bash call that may write but changes nothing (`mkdir -p src`)
 * through runToolUse, with the workspace snapshots (reading change notices, the default on Linux) and
 * without, alternating; (2) the two passes alone (snapshot before, changes after), from change notices and
 * walking the tree, beside `git status --porcelain` on the same tree, git's own stat pass; (3) the first call
 * of a session, which reads and stores every file once.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BashTool } from "../../src/tools/Bash/index.js";
import { createToolUseContext, createEmptyPermissionContext } from "../../src/core/context.js";
import { runToolUse } from "../../src/core/pipeline/index.js";
import { createWorkspaceSnapshots } from "../../src/core/workspaceSnapshot.js";
import type { CanUseToolFn, ToolUseContext } from "../../src/core/Tool.js";
import { hasPermissionsToUseTool } from "../../src/permissions/index.js";
import { pairedRatios, reportRow } from "../report.js";

const FILES = 10_000;
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-undo-bench-")));
const repo = path.join(root, "repo");
for (let d = 0; d < FILES / 25; d++) {
  const dir = path.join(repo, "src", `m${d % 20}`, `d${d}`);
  fs.mkdirSync(dir, { recursive: true });
  for (let f = 0; f < 25; f++) fs.writeFileSync(path.join(dir, `f${f}.ts`), `export const x${f} = ${d * f};\n`.repeat(1 + (f % 40)));
}
fs.mkdirSync(path.join(repo, "node_modules", "pkg"), { recursive: true });
for (let i = 0; i < 2000; i++) fs.writeFileSync(path.join(repo, "node_modules", "pkg", `${i}.js`), "module.exports = 1;\n");
fs.writeFileSync(path.join(repo, ".gitignore"), "node_modules/\n*.log\n");
const git = (...args: string[]) => execFileSync("git", ["-c", "user.email=b@example.com", "-c", "user.name=b", ...args], { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
git("init", "-q");
git("add", "-A");
git("commit", "-qm", "start");

const permissionContext = { ...createEmptyPermissionContext(repo), mode: "bypassPermissions" as const };
const allow: CanUseToolFn = async () => ({ behavior: "allow" });
const tracked = createToolUseContext({ tools: [BashTool], home: path.join(root, "home-tracked"), cwd: repo, permissionContext, permissionDecider: hasPermissionsToUseTool });
const untracked = createToolUseContext({ tools: [BashTool], home: path.join(root, "home-untracked"), cwd: repo, permissionContext, permissionDecider: hasPermissionsToUseTool });
delete untracked.workspaceSnapshots;

let id = 0;
async function bashCall(context: ToolUseContext): Promise<number> {
  const start = performance.now();
  const message = { role: "assistant" as const, id: `m${id}`, content: [] };
  for await (const update of runToolUse({ type: "tool_use", id: `b${id++}`, name: "Bash", input: { command: "mkdir -p src" } }, message, allow, context)) {
    if (update.type === "result" && update.block.is_error) throw new Error(JSON.stringify(update.block.content));
  }
  return performance.now() - start;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

const firstCall = await bashCall(tracked);
await bashCall(untracked);
for (let i = 0; i < 3; i++) {
  await bashCall(tracked);
  await bashCall(untracked);
}
const ROUNDS = 30;
const withTracking: number[] = [];
const without: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  withTracking.push(await bashCall(tracked));
  without.push(await bashCall(untracked));
}
if (tracked.fileHistory.messageIds().length) throw new Error("a call that changes nothing recorded checkpoints");

// the two passes alone, from notices and walking, beside git status on the same tree
const snapshots = createWorkspaceSnapshots(path.join(root, "store"));
const walking = createWorkspaceSnapshots(path.join(root, "store-walk"), [], undefined, { watch: false });
await snapshots.snapshot([repo]);
await walking.snapshot([repo]);
const passes: number[] = [];
const walks: number[] = [];
const gitStatus: number[] = [];
async function bothPasses(which: typeof snapshots): Promise<number> {
  const start = performance.now();
  await which.snapshot([repo]);
  if ((await which.changesSince([repo])).changed.length) throw new Error("nothing changed, yet changes were found");
  return performance.now() - start;
}
for (let i = 0; i < ROUNDS; i++) {
  passes.push(await bothPasses(snapshots));
  if (process.platform === "linux" && snapshots.lastPass?.kind !== "notices") throw new Error(`the watched pass walked: ${snapshots.lastPass?.why}`);
  walks.push(await bothPasses(walking));
  const gitStart = performance.now();
  spawnSync("git", ["status", "--porcelain"], { cwd: repo, stdio: "ignore" });
  gitStatus.push(performance.now() - gitStart);
}
snapshots.close();

const added = median(withTracking) - median(without);
const callRatio = pairedRatios(withTracking, without);
const passRatio = pairedRatios(passes, gitStatus);
const walkRatio = pairedRatios(walks, gitStatus);
console.log(`undo bench (${FILES} tracked files, 2000 ignored; ${ROUNDS} alternating rounds)`);
console.log(`  first tracked call of a session (reads and stores every file): ${fmt(firstCall)}`);
console.log(`  Bash call that changes nothing: tracked ${fmt(median(withTracking))}, untracked ${fmt(median(without))}, +${fmt(added)} per call`);
console.log(`  snapshot + changes from change notices: ${fmt(median(passes))}; walking the tree: ${fmt(median(walks))}; git status --porcelain: ${fmt(median(gitStatus))}`);
reportRow({
  what: `Bash call changing nothing, tracked (${FILES} files)`,
  peer: "the same call untracked",
  ...callRatio,
  detail: `${fmt(median(withTracking))} vs ${fmt(median(without))}, +${fmt(added)} per call`,
  goal: "+≤ 20 ms",
});
reportRow({ what: "snapshot + changes from change notices", peer: "git status --porcelain", ...passRatio, detail: `${fmt(median(passes))} vs ${fmt(median(gitStatus))}` });
reportRow({ what: "snapshot + changes walking the tree (TOOLGATE_UNDO_WATCH=0)", peer: "git status --porcelain", ...walkRatio, detail: `${fmt(median(walks))} vs ${fmt(median(gitStatus))}` });
await tracked.tasks.stopAll();
tracked.workspaceSnapshots?.close();
await untracked.tasks.stopAll();
fs.rmSync(root, { recursive: true, force: true });
