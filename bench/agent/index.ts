/**
 * Long sessions: RSS over a 300-turn scripted session (each turn a Read tool call and its result, through the
 * real Anthropic SDK client and the scripted model server), with compaction on a 200k window; and the time to
 * resume a 10 MB transcript (load + history check) vs a bare line-by-line JSON.parse of the same file.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import v8 from "node:v8";
import vm from "node:vm";
import { createAnthropicProvider } from "../../src/providers/index.js";
import { createSession } from "../../src/session/index.js";
import { query } from "../../src/agent/query.js";
import { compactionThreshold } from "../../src/agent/compact.js";
import { openTranscript, loadTranscript } from "../../src/agent/transcript.js";
import { repairHistory } from "../../src/agent/history.js";
import type { Message } from "../../src/core/messages.js";
import { pairedRatios, reportRow } from "../report.js";

const TURNS = 300;
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-agent-")));
fs.writeFileSync(path.join(dir, "data.txt"), `${"some file content line\n".repeat(2_000)}`);

// 300 turns: the model reads the file, then the next turn reads it again with a different offset.
const turns = Array.from({ length: TURNS }, (_, i) =>
  i === TURNS - 1
    ? { content: [{ type: "text" as const, text: "done" }], usage: { input_tokens: 1_000, output_tokens: 10 } }
    : { content: [{ type: "tool_use" as const, id: `toolu_${i}`, name: "Read", input: { file_path: "data.txt", offset: (i % 1_000) + 1, limit: 200 } }], usage: { input_tokens: 1_000, output_tokens: 10 } },
);
// The model server runs in its own process: it records every request body, which is not toolgate's memory.
const scriptFile = path.join(dir, "turns.json");
fs.writeFileSync(scriptFile, JSON.stringify({ turns }));
const serverProcess = spawn(process.execPath, [path.resolve("scripts/fake-model.mjs"), "--script", scriptFile], { stdio: ["ignore", "pipe", "inherit"] });
const serverUrl = await new Promise<string>((resolve) => serverProcess.stdout.once("data", (d: Buffer) => resolve(d.toString().trim())));
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
const session = await createSession({ cwd: dir, home: path.join(dir, ".home"), sandbox: false });
const provider = createAnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "k", baseURL: serverUrl });
const messages: Message[] = [];
const transcript = openTranscript({ home: path.join(dir, ".home"), cwd: dir, sessionId: session.context.sessionId });
const rss: number[] = [];
const heap: number[] = [];
let turn = 0;
gc();
const startRss = process.memoryUsage().rss;
for await (const event of query("read the file over and over", {
  provider,
  context: session.context,
  canUseTool: session.canUseTool,
  system: ["bench"],
  messages,
  compaction: { threshold: compactionThreshold({ contextWindow: 200_000, maxOutputTokens: 32_000 }), state: { failures: 0 } },
})) {
  if (event.type === "assistant" || event.type === "user") transcript.append(event.message);
  if (event.type === "assistant" && ++turn % 50 === 0) {
    gc();
    rss.push(process.memoryUsage().rss);
    heap.push(process.memoryUsage().heapUsed);
  }
}
await session.close();
serverProcess.kill();
const mb = (n: number) => `${(n / 1024 ** 2).toFixed(0)} MB`;
const history = JSON.stringify(messages).length;
console.log(`agent bench: ${turn} model turns; RSS at start ${mb(startRss)}, every 50 turns: ${rss.map(mb).join(", ")}`);
console.log(`  heap used after GC every 50 turns: ${heap.map(mb).join(", ")}; the history itself is ${mb(history)} of JSON`);
const growth = rss.at(-1)! / rss[0];
reportRow({
  what: `RSS over a ${TURNS}-turn session (turn ${TURNS} / turn 50)`,
  peer: "the same session at turn 50",
  ratio: growth,
  detail: `${mb(rss[0])} → ${mb(rss.at(-1)!)}; heap after GC ${mb(heap[0])} → ${mb(heap.at(-1)!)} while the history grew by ${mb(history)}`,
  goal: "flat",
});

// Resume: a 10 MB transcript.
const big = openTranscript({ home: path.join(dir, ".home2"), cwd: dir, sessionId: "big" });
const chunk = "x".repeat(4_000);
let i = 0;
while (fs.statSync(big.path).size < 10 * 1024 ** 2) {
  big.append({ role: "assistant", content: [{ type: "text", text: `step ${i}` }, { type: "tool_use", id: `t${i}`, name: "Read", input: { file_path: "f" } }] });
  big.append({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${i}`, content: chunk }] });
  i++;
}
const ours: number[] = [];
const bare: number[] = [];
for (let run = 0; run < 7; run++) {
  let start = performance.now();
  const loaded = loadTranscript(big.path);
  repairHistory(loaded.messages);
  ours.push(performance.now() - start);
  start = performance.now();
  const parsed = fs.readFileSync(big.path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  if (!parsed.length) throw new Error("empty");
  bare.push(performance.now() - start);
}
const { ratio, spread } = pairedRatios(ours, bare);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`resume of a ${(fs.statSync(big.path).size / 1024 ** 2).toFixed(1)} MB transcript (${i * 2} messages): load + check ${median(ours).toFixed(0)} ms, bare JSON.parse of each line ${median(bare).toFixed(0)} ms`);
reportRow({ what: "resume a 10 MB transcript (load + history check)", peer: "bare JSON.parse of each line", ratio, spread, detail: `${median(ours).toFixed(0)} ms vs ${median(bare).toFixed(0)} ms` });
fs.rmSync(dir, { recursive: true, force: true });
