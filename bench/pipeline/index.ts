/**
 * Pipeline overhead: trivial calls through runToolUse vs a bare parse + call of the same tool, measured twice
 * in one process: the source as `npm run bench` runs it (tsx) and the built `dist` (what users run), when it
 * exists. Rounds alternate bare / tsx / dist so machine load hits all alike; each round's CPU time (not wall
 * time: on a shared machine a descheduled round would swamp a few µs) gives one pair per mode.
 * Also a batch of 10 concurrency-safe calls that each wait 200 ms vs one such call alone.
 */
import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import * as source from "../../src/index.js";
import type { CanUseToolFn } from "../../src/core/Tool.js";
import type { AssistantMessage, ToolUseBlock } from "../../src/core/messages.js";
import { pairedRatios, reportRow } from "../report.js";

/** What the bench needs from a build of toolgate. */
type Library = Pick<typeof source, "buildTool" | "createToolUseContext" | "runToolUse" | "runToolsToMessage">;

const CALLS = 2_000;
const ROUNDS = 41;
const GOAL_US = 3;
const home = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-"));
const allow: CanUseToolFn = async () => ({ behavior: "allow" });
const message: AssistantMessage = { role: "assistant", id: "bench", content: [] };
const uses: ToolUseBlock[] = Array.from({ length: CALLS }, (_, i) => ({ type: "tool_use", id: `t${i}`, name: "Add", input: { a: i, b: 1 } }));

function setUp(lib: Library) {
  const add = lib.buildTool({
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
  const wait = lib.buildTool({
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
  return { lib, add, context: lib.createToolUseContext({ tools: [add, wait], home, cwd: home }) };
}
type Setup = ReturnType<typeof setUp>;

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

async function bare({ add, context }: Setup): Promise<number> {
  const start = process.cpuUsage();
  for (const use of uses) {
    const parsed = add.inputSchema.safeParse(use.input);
    if (!parsed.success) throw new Error("bad input");
    const result = await add.call(parsed.data, context, allow, message);
    add.mapToolResultToToolResultBlockParam(result.data, use.id);
  }
  return cpuMs(start);
}

async function pipeline({ lib, context }: Setup): Promise<number> {
  const start = process.cpuUsage();
  for (const use of uses) {
    for await (const update of lib.runToolUse(use, message, allow, context)) {
      if (update.type === "result" && update.block.is_error) throw new Error(String(update.block.content));
    }
  }
  return cpuMs(start);
}

const distEntry = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../dist/index.js");
const modes: { name: string; setup: Setup }[] = [{ name: "tsx (src)", setup: setUp(source) }];
if (fs.existsSync(distEntry)) modes.push({ name: "dist", setup: setUp((await import(distEntry)) as Library) });
else console.log("  (no dist/: run `npm run build` to measure the built package too)");

// Warm every path up before anything is timed.
for (let i = 0; i < 3; i++) {
  await bare(modes[0].setup);
  for (const mode of modes) await pipeline(mode.setup);
}
const bareRuns: number[] = [];
const runs = modes.map(() => [] as number[]);
for (let round = 0; round < ROUNDS; round++) {
  bareRuns.push(await bare(modes[0].setup));
  for (let m = 0; m < modes.length; m++) runs[m].push(await pipeline(modes[m].setup));
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const perCall = (ms: number) => (ms * 1000) / CALLS;

console.log("pipeline bench");
console.log(`  ${CALLS} trivial calls per round, ${ROUNDS} alternating rounds, CPU time; bare parse+call ${perCall(median(bareRuns)).toFixed(2)} µs/call`);
for (let m = 0; m < modes.length; m++) {
  const { ratio, spread } = pairedRatios(runs[m], bareRuns);
  const extra = runs[m].map((ms, i) => perCall(ms - bareRuns[i]));
  const extraMedian = median(extra);
  const extraSorted = [...extra].sort((a, b) => a - b);
  const detail = `+${extraMedian.toFixed(2)} µs per call (rounds +${extraSorted[0].toFixed(2)}…+${extraSorted[extraSorted.length - 1].toFixed(2)}); runToolUse ${perCall(median(runs[m])).toFixed(2)} µs vs bare ${perCall(median(bareRuns)).toFixed(2)} µs`;
  console.log(`  runToolUse, ${modes[m].name}: ${detail}; ratio ${ratio.toFixed(1)}x`);
  reportRow({ what: `one trivial call through runToolUse (${modes[m].name})`, peer: "bare parse + call", ratio, spread, detail, goal: `≤ +${GOAL_US} µs` });
}

const { context, lib } = modes[modes.length - 1].setup;
const waitUse = (id: string): ToolUseBlock => ({ type: "tool_use", id, name: "Wait", input: { ms: 200 } });
let start = performance.now();
await lib.runToolsToMessage([waitUse("single")], message, allow, context);
const singleMs = performance.now() - start;
start = performance.now();
await lib.runToolsToMessage(Array.from({ length: 10 }, (_, i) => waitUse(`w${i}`)), message, allow, context);
const batchMs = performance.now() - start;
console.log(`  10 safe calls of 200 ms (${modes[modes.length - 1].name}): batch ${batchMs.toFixed(1)} ms, single ${singleMs.toFixed(1)} ms, batch/single ${(batchMs / singleMs).toFixed(2)}`);
fs.rmSync(home, { recursive: true, force: true });
