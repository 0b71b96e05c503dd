/**
 * Pipeline overhead: 10 000 trivial calls through runToolUse vs a bare parse + call of the same tool,
 * and a batch of 10 concurrency-safe calls that each wait 200 ms vs one such call alone.
 */
import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import { z } from "zod";
import { buildTool } from "../../src/core/buildTool.js";
import { createToolUseContext } from "../../src/core/context.js";
import { runToolUse } from "../../src/core/pipeline/index.js";
import { runToolsToMessage } from "../../src/core/executor/index.js";
import type { CanUseToolFn } from "../../src/core/Tool.js";
import type { AssistantMessage, ToolUseBlock } from "../../src/core/messages.js";

const CALLS = 10_000;
const home = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-"));
const allow: CanUseToolFn = async () => ({ behavior: "allow" });
const message: AssistantMessage = { role: "assistant", id: "bench", content: [] };

const add = buildTool({
  name: "Add",
  maxResultSizeChars: 1000,
  inputSchema: z.strictObject({ a: z.number(), b: z.number() }),
  description: () => "adds",
  prompt: () => "adds",
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async ({ a, b }) => ({ data: a + b }),
  mapToolResultToToolResultBlockParam: (sum: number, id) => ({ type: "tool_result", tool_use_id: id, content: String(sum) }),
});

const wait = buildTool({
  name: "Wait",
  maxResultSizeChars: 1000,
  inputSchema: z.strictObject({ ms: z.number() }),
  description: () => "waits",
  prompt: () => "waits",
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: ({ ms }) => new Promise<{ data: number }>((r) => setTimeout(() => r({ data: ms }), ms)),
  mapToolResultToToolResultBlockParam: (ms: number, id) => ({ type: "tool_result", tool_use_id: id, content: `waited ${ms}` }),
});

const context = createToolUseContext({ tools: [add, wait], home, cwd: home });
const uses: ToolUseBlock[] = Array.from({ length: CALLS }, (_, i) => ({ type: "tool_use", id: `t${i}`, name: "Add", input: { a: i, b: 1 } }));

async function bare(): Promise<number> {
  const start = performance.now();
  for (const use of uses) {
    const parsed = add.inputSchema.safeParse(use.input);
    if (!parsed.success) throw new Error("bad input");
    const result = await add.call(parsed.data, context, allow, message);
    add.mapToolResultToToolResultBlockParam(result.data, use.id);
  }
  return performance.now() - start;
}

async function pipeline(): Promise<number> {
  const start = performance.now();
  for (const use of uses) {
    for await (const update of runToolUse(use, message, allow, context)) {
      if (update.type === "result" && update.block.is_error) throw new Error(String(update.block.content));
    }
  }
  return performance.now() - start;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

await bare();
await pipeline();
const bareRuns: number[] = [];
const pipelineRuns: number[] = [];
for (let i = 0; i < 5; i++) {
  bareRuns.push(await bare());
  pipelineRuns.push(await pipeline());
}
const bareMs = median(bareRuns);
const pipeMs = median(pipelineRuns);

const waitUse = (id: string): ToolUseBlock => ({ type: "tool_use", id, name: "Wait", input: { ms: 200 } });
let start = performance.now();
await runToolsToMessage([waitUse("single")], message, allow, context);
const singleMs = performance.now() - start;
start = performance.now();
await runToolsToMessage(Array.from({ length: 10 }, (_, i) => waitUse(`w${i}`)), message, allow, context);
const batchMs = performance.now() - start;

console.log("pipeline bench");
console.log(`  ${CALLS} trivial calls   bare parse+call ${bareMs.toFixed(1)} ms (${((bareMs * 1000) / CALLS).toFixed(2)} µs/call)`);
console.log(`                          runToolUse      ${pipeMs.toFixed(1)} ms (${((pipeMs * 1000) / CALLS).toFixed(2)} µs/call)`);
console.log(`  overhead ratio (runToolUse / bare): ${(pipeMs / bareMs).toFixed(2)}x, +${(((pipeMs - bareMs) * 1000) / CALLS).toFixed(2)} µs per call`);
console.log(`  10 safe calls of 200 ms: batch ${batchMs.toFixed(1)} ms, single ${singleMs.toFixed(1)} ms, batch/single ${(batchMs / singleMs).toFixed(2)}`);
fs.rmSync(home, { recursive: true, force: true });
