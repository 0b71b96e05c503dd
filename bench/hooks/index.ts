/**
 * Hook overhead per tool call: the pipeline with no hooks, with one bash hook, one node hook, and four
 * bash hooks (run in parallel), against the peer: a bare `bash -c 'exit 0'` spawn from Node.
 * Also four hooks that each sleep 200 ms: in parallel vs what running them one after another costs.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { buildTool } from "../../src/core/buildTool.js";
import { createToolUseContext } from "../../src/core/context.js";
import { runToolUse } from "../../src/core/pipeline/index.js";
import type { CanUseToolFn } from "../../src/core/Tool.js";
import type { AssistantMessage } from "../../src/core/messages.js";
import { createHookRunner } from "../../src/hooks/index.js";
import { execHookCommand, hookShell } from "../../src/hooks/execHook.js";

const CALLS = 100;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-hooks-"));
const allow: CanUseToolFn = async () => ({ behavior: "allow" });
const message: AssistantMessage = { role: "assistant", id: "bench", content: [] };
fs.writeFileSync(path.join(dir, "hook.js"), "process.stdin.resume(); process.stdin.on('end', () => process.exit(0));");

const echo = buildTool({
  name: "Echo",
  maxResultSizeChars: 1000,
  inputSchema: z.strictObject({ text: z.string() }),
  description: () => "echo",
  prompt: () => "echo",
  call: async ({ text }) => ({ data: text }),
  mapToolResultToToolResultBlockParam: (text: string, id) => ({ type: "tool_result", tool_use_id: id, content: text }),
});

const hookGroup = (...commands: string[]) => ({ PreToolUse: [{ matcher: "*", hooks: commands.map((command) => ({ type: "command", command })) }] });
const settings = (hooks: unknown) => ({ files: [{ source: "projectSettings" as const, path: "bench", root: dir, settings: { hooks: hooks as never } }] });

async function pipelineMs(hooks: unknown, calls = CALLS): Promise<number> {
  const hookRunner = createHookRunner({ settings: settings(hooks), projectDir: dir });
  const context = createToolUseContext({ tools: [echo], home: dir, cwd: dir, hookRunner });
  const start = performance.now();
  for (let i = 0; i < calls; i++) {
    for await (const update of runToolUse({ type: "tool_use", id: `t${i}`, name: "Echo", input: { text: "x" } }, message, allow, context)) {
      if (update.type === "result" && update.block.is_error) throw new Error(String(update.block.content));
    }
  }
  return (performance.now() - start) / calls;
}

async function bareSpawnMs(): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(hookShell(), ["-c", "exit 0"], { stdio: "ignore" });
      child.on("error", reject).on("exit", () => resolve());
    });
  }
  return (performance.now() - start) / CALLS;
}

async function sequentialSleepMs(): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < 4; i++) await execHookCommand({ command: "sleep 0.2", stdin: "{}", cwd: dir, env: process.env, timeoutMs: 10_000 });
  return performance.now() - start;
}

const none = await pipelineMs({});
const peer = await bareSpawnMs();
const oneBash = await pipelineMs(hookGroup("exit 0"));
const oneNode = await pipelineMs(hookGroup(`node ${JSON.stringify(path.join(dir, "hook.js"))}`));
const fourBash = await pipelineMs(hookGroup("exit 0", "true", ":", "exit 0 # 4"));
const parallelSleep = (await pipelineMs(hookGroup("sleep 0.2", "sleep 0.2 # b", "sleep 0.2 # c", "sleep 0.2 # d"), 3));
const sequentialSleep = await sequentialSleepMs();

const row = (label: string, ms: number, ratio?: number) =>
  console.log(`${label.padEnd(44)} ${ms.toFixed(2).padStart(9)} ms${ratio === undefined ? "" : `   x${ratio.toFixed(2)} vs bare spawn`}`);
console.log(`shell: ${hookShell()}, ${CALLS} calls each (ms per tool call)`);
row("pipeline, no hooks", none);
row("bare spawn of `bash -c 'exit 0'` (peer)", peer, 1);
row("pipeline + 1 bash hook", oneBash, (oneBash - none) / peer);
row("pipeline + 1 node hook", oneNode, (oneNode - none) / peer);
row("pipeline + 4 bash hooks (parallel)", fourBash, (fourBash - none) / peer);
console.log(`4 hooks sleeping 200 ms: parallel ${parallelSleep.toFixed(0)} ms vs sequential ${sequentialSleep.toFixed(0)} ms (x${(sequentialSleep / parallelSleep).toFixed(2)})`);
fs.rmSync(dir, { recursive: true, force: true });
