/**
 * Speculative tool calls, through the real loop, the Anthropic SDK client and the scripted model server:
 * 1. The model streams read-only calls' input slowly (20 ms per delta): time from each block's end to its
 *    result, speculation on vs off in the same run, and how many results were ready when their block ended.
 * 2. 1 000 random read-only calls (Read, Grep, Glob, Bash), randomly chunked, fast: speculation on vs off must
 *    give identical tool_results.
 */
import fs from "node:fs";
import { differences, makeFixtureTree, makeScript, runWorkload, type WorkloadRun } from "../../test/agent/speculationWorkload.js";
import { reportRow } from "../report.js";

const dir = makeFixtureTree();
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const ms = (n: number) => `${n.toFixed(1)} ms`;

// Warm-up: the first Bash call loads the shell grammar (hundreds of ms), which is no part of either figure.
const warmUp = makeScript({ seed: 99, calls: 10, dir, delayMs: 0, maxParts: 2 });
await runWorkload(warmUp, dir, true);
await runWorkload(warmUp, dir, false);

// 1. Slow streaming: 80 calls, up to 6 deltas each, 20 ms apart. On and off alternate in rounds of 20 calls.
const ROUNDS = 4;
const on: WorkloadRun[] = [];
const off: WorkloadRun[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const script = makeScript({ seed: 100 + round, calls: 20, dir, delayMs: 20, maxParts: 6 });
  on.push(await runWorkload(script, dir, true));
  off.push(await runWorkload(script, dir, false));
}
const onLatency = on.flatMap((r) => r.latencies);
const offLatency = off.flatMap((r) => r.latencies);
const reports = on.flatMap((r) => r.reports);
const calls = onLatency.length;
const ready = reports.filter((r) => r.outcome === "hit" && r.readyAtBlockEnd).length;
const hits = reports.filter((r) => r.outcome === "hit").length;
const misses = reports.filter((r) => r.outcome === "miss").length;
const discarded = reports.filter((r) => r.outcome === "discarded").length;
const wasted = sum(reports.map((r) => r.wastedMs));
const slowDiffs = on.reduce((n, run, i) => n + differences(run, off[i]).length, 0);
console.log(`slow streaming (20 ms per delta), ${calls} read-only calls:`);
console.log(`  block end → result, median: ${ms(median(onLatency))} with speculation, ${ms(median(offLatency))} without; mean ${ms(sum(onLatency) / calls)} vs ${ms(sum(offLatency) / offLatency.length)}`);
console.log(`  speculative runs: ${hits} hits (${ready} ready at the block's end), ${misses} misses, ${discarded} discarded; ${ms(wasted)} of work thrown away; results differing: ${slowDiffs}`);
reportRow({
  what: "block end → tool result, 20 ms/delta streaming (median)",
  peer: "speculation off",
  ratio: median(onLatency) / median(offLatency),
  detail: `${ms(median(onLatency))} vs ${ms(median(offLatency))} over ${calls} calls (mean ${ms(sum(onLatency) / calls)} vs ${ms(sum(offLatency) / offLatency.length)})`,
});
reportRow({
  what: "read-only calls whose result was ready at their block's end",
  peer: "all read-only calls",
  ratio: ready / calls,
  detail: `${ready} of ${calls}; ${misses} misses, ${ms(wasted)} wasted`,
  goal: "≥ 0.50",
  higherIsBetter: true,
});

// 2. 1 000 random calls, 0–2 ms per delta: identical results.
const script = makeScript({ seed: 2026, calls: 1_000, dir, delayMs: [0, 2], maxParts: 8 });
const fastOn = await runWorkload(script, dir, true);
const fastOff = await runWorkload(script, dir, false);
const diffs = differences(fastOn, fastOff);
const fastOutcomes = (outcome: string) => fastOn.reports.filter((r) => r.outcome === outcome).length;
console.log(`randomized comparison: ${fastOn.results.size} calls; ${fastOutcomes("hit")} hits, ${fastOutcomes("miss")} misses, ${fastOutcomes("discarded")} discarded; results differing: ${diffs.length}${diffs.length ? ` (${diffs.slice(0, 5).join(", ")})` : ""}`);
reportRow({
  what: "tool_results differing, 1 000 random read-only calls",
  peer: "the same calls with speculation off",
  ratio: diffs.length,
  detail: `${fastOn.results.size} vs ${fastOff.results.size} results compared`,
  goal: "0",
});
fs.rmSync(dir, { recursive: true, force: true });
if (diffs.length || slowDiffs) process.exit(1);
