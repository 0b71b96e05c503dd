/**
 * Sandbox bench: what the OS sandbox costs per Bash call. `true` through runToolUse in a session with the
 * sandbox on vs the same with --no-sandbox, alternating so machine load hits both alike; medians and ratio.
 * Twice: a command no rule allows (read-only scope, the usual `ls` / `git status`) and one that may write
 * (acceptEdits: the working directory writable minus its safety paths, found by scanning a tree of
 * 1 500 files). Also where a sandboxed call's time goes (wrapping vs running), and how long a session
 * waits for the sandbox runtime to start (proxies, violation monitor, probe run).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runToolUse } from "../../src/core/pipeline/index.js";
import type { CanUseToolFn } from "../../src/core/Tool.js";
import { createSession, type Session } from "../../src/session/index.js";
import { checkSandboxSupport } from "../../src/sandbox/index.js";
import { pairedRatios, reportRow } from "../report.js";

const support = checkSandboxSupport();
if (!support.available) {
  console.log(`sandbox bench skipped: ${support.reason}`);
  process.exit(0);
}

const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-sandbox-bench-")));
const home = path.join(cwd, ".home");
const env = { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") };
const allow: CanUseToolFn = async () => ({ behavior: "allow" });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

let id = 0;
async function call(session: Session, command: string): Promise<number> {
  const start = performance.now();
  for await (const update of runToolUse({ type: "tool_use", id: `s${id++}`, name: "Bash", input: { command } }, { role: "assistant", content: [] }, allow, session.context)) {
    if (update.type === "result" && update.block.is_error) throw new Error(String(update.block.content));
  }
  return performance.now() - start;
}

// A repository-like tree for the scan of nested safety paths (what a call that may write pays for).
for (let d = 0; d < 150; d++) {
  const dir = path.join(cwd, `pkg${d % 15}`, `mod${d}`);
  fs.mkdirSync(dir, { recursive: true });
  for (let f = 0; f < 10; f++) fs.writeFileSync(path.join(dir, `f${f}.ts`), "export {};\n");
}
fs.mkdirSync(path.join(cwd, "pkg3", "vendored", ".git"), { recursive: true });

const startupStart = performance.now();
const sandboxed = await createSession({ cwd, home, env });
await call(sandboxed, "true");
const firstCall = performance.now() - startupStart;
const bare = await createSession({ cwd, home, env, sandbox: false });
const writable = await createSession({ cwd, home, env, permissionMode: "acceptEdits" });
if (sandboxed.sandbox.status !== "active") throw new Error(`sandbox not active: ${sandboxed.sandbox.reason}`);

const ROUNDS = 30;
for (let i = 0; i < 3; i++) {
  await call(sandboxed, "true");
  await call(writable, "true");
  await call(bare, "true");
}
const readOnly: number[] = [];
const mayWrite: number[] = [];
const outside: number[] = [];
const wrapOnly: number[] = [];
const sandbox = sandboxed.context.sandbox;
if (!sandbox) throw new Error("no sandbox on the session");
const permissionContext = sandboxed.context.getAppState().toolPermissionContext;
for (let i = 0; i < ROUNDS; i++) {
  readOnly.push(await call(sandboxed, "true"));
  mayWrite.push(await call(writable, "true"));
  outside.push(await call(bare, "true"));
  const start = performance.now();
  const wrapped = await sandbox.wrap("true", { permissionContext, scope: "none", commandId: `wrap${i}` });
  wrapOnly.push(performance.now() - start);
  wrapped.finish();
}
const a = median(readOnly);
const w = median(mayWrite);
const b = median(outside);
console.log("sandbox bench");
console.log(`  session start + first sandboxed call (runtime start, probe run): ${fmt(firstCall)}`);
console.log(`  Bash \`true\` per call, median of ${ROUNDS}: sandboxed read-only ${fmt(a)}, sandboxed may-write ${fmt(w)}, unsandboxed ${fmt(b)}`);
console.log(`  of a sandboxed call, wrapping the command (policy + the runtime's bwrap arguments) ${fmt(median(wrapOnly))}`);
for (const [label, runs, scope] of [
  ["read-only (no rule)", readOnly, "read-only scope"],
  ["may write (acceptEdits, 1 500-file tree)", mayWrite, "working directories writable"],
] as const) {
  const { ratio, spread } = pairedRatios(runs, outside);
  console.log(`  ratio sandboxed ${label} / unsandboxed: ${ratio.toFixed(2)}x (+${fmt(median(runs) - b)} per call)`);
  reportRow({
    what: `Bash \`true\` sandboxed, ${scope}`,
    peer: "the same call unsandboxed",
    ratio,
    spread,
    detail: `${fmt(median(runs))} vs ${fmt(b)}, median of ${ROUNDS} alternating; wrapping ${fmt(median(wrapOnly))}`,
  });
}
// The long-lived sandbox (TOOLGATE_SANDBOX_PERSISTENT, read per call) vs --no-sandbox, and the unsandboxed
// call vs `bash -c` spawned from Node: side by side, alternating, in this one process.
const { spawn } = await import("node:child_process");
const bareSpawn = () =>
  new Promise<number>((resolve, reject) => {
    const start = performance.now();
    const child = spawn("/bin/bash", ["-c", "true"], { cwd, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - start));
  });
const persistentSession = await createSession({ cwd, home, env });
const withPersistent = async <T>(on: boolean, run: () => Promise<T>) => {
  const was = process.env.TOOLGATE_SANDBOX_PERSISTENT;
  process.env.TOOLGATE_SANDBOX_PERSISTENT = on ? "1" : "0";
  try {
    return await run();
  } finally {
    if (was === undefined) delete process.env.TOOLGATE_SANDBOX_PERSISTENT;
    else process.env.TOOLGATE_SANDBOX_PERSISTENT = was;
  }
};
const firstPersistentStart = performance.now();
await withPersistent(true, () => call(persistentSession, "true"));
const firstPersistent = performance.now() - firstPersistentStart;
const persistentRuns: number[] = [];
const perCommandRuns: number[] = [];
const outsideRuns: number[] = [];
const spawnRuns: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  persistentRuns.push(await withPersistent(true, () => call(persistentSession, "true")));
  perCommandRuns.push(await withPersistent(false, () => call(sandboxed, "true")));
  outsideRuns.push(await call(bare, "true"));
  spawnRuns.push(await bareSpawn());
}
console.log(`  long-lived sandbox: first call ${fmt(firstPersistent)}; per call ${fmt(median(persistentRuns))} vs a sandbox per command ${fmt(median(perCommandRuns))} vs unsandboxed ${fmt(median(outsideRuns))} vs bash -c from Node ${fmt(median(spawnRuns))}`);
for (const [what, runs, peer, peerRuns] of [
  ["Bash `true` in the long-lived sandbox (read-only)", persistentRuns, "the same call with --no-sandbox", outsideRuns],
  ["Bash `true` in a sandbox per command (read-only)", perCommandRuns, "the same call with --no-sandbox", outsideRuns],
  ["Bash `true` with --no-sandbox (runToolUse)", outsideRuns, "`bash -c true` spawned from Node", spawnRuns],
] as const) {
  const { ratio, spread } = pairedRatios([...runs], [...peerRuns]);
  console.log(`  ratio ${what} / ${peer}: ${ratio.toFixed(2)}x`);
  reportRow({ what, peer, ratio, spread, detail: `${fmt(median([...runs]))} vs ${fmt(median([...peerRuns]))}, median of ${ROUNDS} alternating` });
}
await persistentSession.close();
await sandboxed.close();
await writable.close();
await bare.close();
fs.rmSync(cwd, { recursive: true, force: true });
