/**
 * Sandbox bench: what the OS sandbox costs per Bash call. `true` through runToolUse in a session with the
 * sandbox on vs the same with --no-sandbox, alternating so machine load hits both alike; medians and ratio.
 * Also: how long a session waits for the sandbox runtime to start (proxies, violation monitor, probe run).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runToolUse } from "../../src/core/pipeline/index.js";
import type { CanUseToolFn } from "../../src/core/Tool.js";
import { createSession, type Session } from "../../src/session/index.js";
import { checkSandboxSupport } from "../../src/sandbox/index.js";

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

const startupStart = performance.now();
const sandboxed = await createSession({ cwd, home, env });
await call(sandboxed, "true");
const firstCall = performance.now() - startupStart;
const bare = await createSession({ cwd, home, env, sandbox: false });
if (sandboxed.sandbox.status !== "active") throw new Error(`sandbox not active: ${sandboxed.sandbox.reason}`);

const ROUNDS = 40;
for (let i = 0; i < 5; i++) {
  await call(sandboxed, "true");
  await call(bare, "true");
}
const inside: number[] = [];
const outside: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  inside.push(await call(sandboxed, "true"));
  outside.push(await call(bare, "true"));
}
const a = median(inside);
const b = median(outside);
console.log("sandbox bench");
console.log(`  session start + first sandboxed call (runtime start, probe run): ${fmt(firstCall)}`);
console.log(`  Bash \`true\` per call, median of ${ROUNDS}: sandboxed ${fmt(a)}, unsandboxed ${fmt(b)}`);
console.log(`  ratio sandboxed / unsandboxed: ${(a / b).toFixed(2)}x (+${fmt(a - b)} per call)`);
await sandboxed.close();
await bare.close();
fs.rmSync(cwd, { recursive: true, force: true });
