/**
 * Provider overhead, both providers against the scripted model server on loopback:
 * 1. a long stream (thousands of deltas) through the provider vs the same response bytes read raw over HTTP,
 *    and vs the bare SDK raw stream (what the provider layer itself adds per event);
 * 2. time to the first tool call complete vs the moment the wire bytes that complete it arrive (raw reader),
 *    with the server's own scripted timing beside it.
 * Alternating pairs; medians and spread.
 */
import { startFakeModelServer, type FakeModelScript } from "../../scripts/fake-model.mjs";
import { createAnthropicProvider, createOpenAIProvider, type Provider } from "../../src/providers/index.js";
import { pairedRatios, reportRow } from "../report.js";

const PAIRS = 9;
const LONG_TEXT = "word ".repeat(20_000);
const LONG_INPUT = { file_path: "/tmp/x.ts", content: "const x = 1;\n".repeat(3_000) };
const LONG: FakeModelScript = {
  loop: true,
  turns: [{ content: [{ type: "text", text: LONG_TEXT, chunks: 4_000 }, { type: "tool_use", id: "toolu_1", name: "Write", input: LONG_INPUT, chunks: 2_000 }] }],
};
const DELAY_MS = 15;
const FIRST_TOOL: FakeModelScript = {
  loop: true,
  turns: [
    {
      content: [
        { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/tmp/a.ts" }, chunks: 4 },
        { type: "tool_use", id: "toolu_2", name: "Glob", input: { pattern: "**/*.ts" }, chunks: 4 },
        { type: "text", text: "Reading both files now, then I will summarise them.", chunks: 10 },
      ],
      delayMs: DELAY_MS,
    },
  ],
};
// Server timing: the first tool's 4 deltas and its stop each wait DELAY_MS.
const SCRIPTED_FIRST_TOOL_MS = 5 * DELAY_MS;

const server = await startFakeModelServer({ script: LONG });
const providers: Record<string, Provider> = {
  anthropic: createAnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "bench", baseURL: server.url }),
  openai: createOpenAIProvider({ model: "gpt-4o", apiKey: "bench", baseURL: `${server.url}/v1` }),
};
const paths: Record<string, string> = { anthropic: "/v1/messages", openai: "/v1/chat/completions" };
const messages = [{ role: "user" as const, content: "go" }];

/** The same request the provider sends, read as bytes; `marker` timestamps the first occurrence of a string. */
async function rawRead(name: string, marker?: RegExp): Promise<{ ms: number; bytes: number; markerMs?: number }> {
  const start = performance.now();
  const body = name === "anthropic" ? { model: "m", max_tokens: 1024, stream: true, messages } : { model: "m", stream: true, stream_options: { include_usage: true }, messages };
  const res = await fetch(server.url + paths[name], { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let markerMs: number | undefined;
  let tail = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (marker && markerMs === undefined) {
      tail = (tail + decoder.decode(value, { stream: true })).slice(-4096);
      if (marker.test(tail)) markerMs = performance.now() - start;
    }
  }
  return { ms: performance.now() - start, bytes, ...(markerMs !== undefined ? { markerMs } : {}) };
}

async function providerRead(name: string): Promise<{ ms: number; events: number; firstToolMs?: number }> {
  const start = performance.now();
  let events = 0;
  let firstToolMs: number | undefined;
  for await (const event of providers[name].stream({ model: providers[name].model, messages, maxTokens: 1024 })) {
    events++;
    if (event.type === "tool_call_complete" && firstToolMs === undefined) firstToolMs = performance.now() - start;
    if (event.type === "error") throw new Error(`${name}: ${event.error.message}`);
  }
  return { ms: performance.now() - start, events, ...(firstToolMs !== undefined ? { firstToolMs } : {}) };
}

/** The bare SDK raw stream, iterated without conversion: what the provider layer adds on top of it. */
async function sdkRead(name: string): Promise<number> {
  const start = performance.now();
  if (name === "anthropic") {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    const client = new Anthropic({ apiKey: "bench", baseURL: server.url, maxRetries: 0 });
    for await (const _ of await client.messages.create({ model: "m", max_tokens: 1024, stream: true, messages })) void _;
  } else {
    const { default: OpenAI } = await import("openai");
    const client = new OpenAI({ apiKey: "bench", baseURL: `${server.url}/v1`, maxRetries: 0 });
    for await (const _ of await client.chat.completions.create({ model: "m", stream: true, stream_options: { include_usage: true }, messages })) void _;
  }
  return performance.now() - start;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

for (const name of ["anthropic", "openai"]) {
  server.setScript(LONG);
  // Warm up: SDK import, JIT (of the server too), connection pool; the first runs are several times slower.
  for (let i = 0; i < 6; i++) {
    await providerRead(name);
    await rawRead(name);
    await sdkRead(name);
  }
  const ours: number[] = [];
  const raw: number[] = [];
  const sdk: number[] = [];
  let events = 0;
  let bytes = 0;
  for (let i = 0; i < PAIRS; i++) {
    const runOurs = async () => {
      const r = await providerRead(name);
      ours.push(r.ms);
      events = r.events;
    };
    const runRaw = async () => {
      const r = await rawRead(name);
      raw.push(r.ms);
      bytes = r.bytes;
    };
    const runSdk = async () => sdk.push(await sdkRead(name));
    const order = i % 2 ? [runRaw, runSdk, runOurs] : [runOurs, runSdk, runRaw];
    for (const step of order) await step();
  }
  const { ratio, spread } = pairedRatios(ours, raw);
  const perEventUs = ((median(ours) - median(raw)) / events) * 1000;
  const layerUs = ((median(ours) - median(sdk)) / events) * 1000;
  console.log(
    `${name}: ${events} events, ${(bytes / 1024).toFixed(0)} KiB: provider ${median(ours).toFixed(1)} ms, bare SDK ${median(sdk).toFixed(1)} ms, raw bytes ${median(raw).toFixed(1)} ms; ` +
      `${perEventUs.toFixed(2)} µs/event over raw, ${layerUs.toFixed(2)} µs/event over the bare SDK`,
  );
  reportRow({
    what: `${name} provider, long stream (${events} events)`,
    peer: "same bytes read raw over HTTP",
    ratio,
    spread,
    detail: `${median(ours).toFixed(1)} vs ${median(raw).toFixed(1)} ms; ${perEventUs.toFixed(2)} µs/event over raw, ${layerUs.toFixed(2)} µs/event over the bare SDK stream (${median(sdk).toFixed(1)} ms)`,
  });

  server.setScript(FIRST_TOOL);
  // Anthropic marks a block's end on the wire; chat completions only by the next call's index appearing.
  const marker = name === "anthropic" ? /content_block_stop/ : /"tool_calls":\[\{"index":1/;
  await providerRead(name);
  await rawRead(name, marker);
  const oursTool: number[] = [];
  const rawTool: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const a = async () => oursTool.push((await providerRead(name)).firstToolMs!);
    const b = async () => rawTool.push((await rawRead(name, marker)).markerMs!);
    if (i % 2) {
      await b();
      await a();
    } else {
      await a();
      await b();
    }
  }
  const tool = pairedRatios(oursTool, rawTool);
  console.log(`${name}: first tool call complete at ${median(oursTool).toFixed(1)} ms (wire ${median(rawTool).toFixed(1)} ms, scripted ${SCRIPTED_FIRST_TOOL_MS} ms)`);
  reportRow({
    what: `${name} provider, time to first tool call complete`,
    peer: "wire bytes completing it (raw reader)",
    ratio: tool.ratio,
    spread: tool.spread,
    detail: `${median(oursTool).toFixed(1)} vs ${median(rawTool).toFixed(1)} ms; the server's scripted timing is ${SCRIPTED_FIRST_TOOL_MS} ms`,
  });
}
await server.close();
