/**
 * Real recorded model-API traffic (test/fixtures/recorded/) replayed through toolgate's providers, whole and cut
 * into pieces of 1 to 7 bytes. What each recording should read as is worked out here from the raw body with a
 * deliberately plain parser, apart from the providers' own code. Recordings toolgate misreads today are listed
 * in KNOWN_MISREADINGS with the root cause; their tests are expected to fail until the provider is fixed.
 */
import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicProvider, createOpenAIProvider, type AssembledMessage, type Provider } from "../../src/providers/index.js";
import { loadRecordings, startReplayServer, wireBytes, type Recording, type ReplayServer } from "./recorded.js";
import { FAST_RETRY, run } from "./support.js";

const LICENSES = new Set(["MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC"]);
const APIS = new Set(["anthropic-messages", "openai-chat", "openai-responses"]);
const FIDELITIES = new Set(["exact", "reserialized", "framing-stripped", "pretty-printed"]);

const ALL = loadRecordings();
const REPLAYED = ALL.filter((r) => r.api !== "openai-responses");

/** Every file a KNOWN_MISREADINGS entry names, so a renamed or removed recording is noticed. */
const NAMED_FILES: string[] = [];

function files(...names: string[]): (r: Recording) => boolean {
  NAMED_FILES.push(...names);
  const set = new Set(names);
  return (r) => set.has(r.file);
}

/**
 * Root cause → the recordings it breaks. Delete an entry (or a file from it) once the provider reads those
 * recordings right: their tests then run as ordinary ones.
 */
// All six found when the corpus came in were fixed in the providers (issue 29); recordedRootCauses.test.ts shows
// each on its recordings. A new misreading goes here with the recordings it breaks.
const KNOWN_MISREADINGS: ReadonlyArray<{ cause: string; applies: (r: Recording) => boolean }> = [];

function misreadingsOf(recording: Recording): string[] {
  return KNOWN_MISREADINGS.filter((m) => m.applies(recording)).map((m) => m.cause);
}

// ------------------------------------------------------------------------------------------- the plain reading

interface Payload {
  event?: string;
  data: any;
}

/** SSE blocks split on blank lines, `data:` lines joined; json-lines one payload per line; json the one document. */
function payloads(recording: Recording): Payload[] {
  const { body, bodyFormat } = recording.response;
  if (bodyFormat === "json") return [{ data: JSON.parse(body) }];
  if (bodyFormat === "json-lines") return body.split("\n").filter((l) => l.trim()).map((l) => ({ data: JSON.parse(l) }));
  const out: Payload[] = [];
  for (const block of body.replace(/\r\n/g, "\n").split(/\n\n+/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    const text = data.join("\n");
    if (!data.length || text === "[DONE]") continue;
    out.push({ event, data: JSON.parse(text) });
  }
  return out;
}

interface Expected {
  text: string;
  thinking: string;
  toolCalls: Array<{ id?: string; name: string; input: unknown }>;
  /** The stop reason the recording's own stop field means, where toolgate has a name for it. */
  stop?: string;
  /** The recording ended a turn that is not over (pause_turn): anything but end_turn. */
  notEndTurn?: boolean;
  /** Output tokens the server reported, when it did. */
  outputTokens?: number;
}

function parseArgs(raw: string): unknown {
  return raw.trim() === "" ? {} : JSON.parse(raw);
}

function expectAnthropic(recording: Recording): Expected {
  const out: Expected = { text: "", thinking: "", toolCalls: [] };
  const tools = new Map<number, { id: string; name: string; json: string; input: unknown }>();
  const stopReason = (reason: unknown) => {
    if (typeof reason !== "string") return;
    if (reason === "pause_turn") out.notEndTurn = true;
    else out.stop = reason === "model_context_window_exceeded" ? "max_tokens" : reason;
  };
  for (const { data } of payloads(recording)) {
    if (data.type === "message") {
      for (const block of data.content ?? []) {
        if (block.type === "text") out.text += block.text;
        if (block.type === "thinking") out.thinking += block.thinking;
        if (block.type === "tool_use") out.toolCalls.push({ id: block.id, name: block.name, input: block.input });
      }
      stopReason(data.stop_reason);
      if (typeof data.usage?.output_tokens === "number") out.outputTokens = data.usage.output_tokens;
    }
    if (data.type === "content_block_start") {
      const block = data.content_block;
      if (block.type === "text") out.text += block.text ?? "";
      if (block.type === "thinking") out.thinking += block.thinking ?? "";
      if (block.type === "tool_use") tools.set(data.index, { id: block.id, name: block.name, json: "", input: block.input });
    }
    if (data.type === "content_block_delta") {
      if (data.delta.type === "text_delta") out.text += data.delta.text;
      if (data.delta.type === "thinking_delta") out.thinking += data.delta.thinking;
      if (data.delta.type === "input_json_delta" && tools.has(data.index)) tools.get(data.index)!.json += data.delta.partial_json;
    }
    if (data.type === "message_delta") {
      stopReason(data.delta?.stop_reason);
      if (typeof data.usage?.output_tokens === "number") out.outputTokens = data.usage.output_tokens;
    }
  }
  for (const tool of [...tools.entries()].sort(([a], [b]) => a - b).map(([, t]) => t)) {
    out.toolCalls.push({ id: tool.id, name: tool.name, input: tool.json ? parseArgs(tool.json) : (tool.input ?? {}) });
  }
  return out;
}

function expectChat(recording: Recording): Expected {
  const out: Expected = { text: "", thinking: "", toolCalls: [] };
  const calls = new Map<number, { id?: string; name: string; args: string }>();
  let finish: string | undefined;
  const content = (value: unknown) => {
    if (typeof value === "string") out.text += value;
    if (Array.isArray(value)) {
      // Mistral's magistral models: [{type:"thinking", thinking:[{type:"text",text}]}, {type:"text", text}]
      for (const part of value) {
        if (part?.type === "text") out.text += part.text;
        if (part?.type === "thinking") for (const t of part.thinking ?? []) if (t?.type === "text") out.thinking += t.text;
      }
    }
  };
  const reasoning = (m: any) => {
    if (typeof m.reasoning_content === "string") out.thinking += m.reasoning_content;
    else if (typeof m.reasoning === "string") out.thinking += m.reasoning;
    else if (Array.isArray(m.reasoning_details)) {
      // OpenRouter: the text of reasoning.text and reasoning.summary details (encrypted ones carry none).
      for (const d of m.reasoning_details) out.thinking += typeof d?.text === "string" ? d.text : typeof d?.summary === "string" ? d.summary : "";
    }
  };
  for (const { data } of payloads(recording)) {
    const usage = data.usage ?? data.x_groq?.usage;
    if (typeof usage?.completion_tokens === "number") out.outputTokens = usage.completion_tokens;
    const choice = data.choices?.[0];
    if (!choice) continue;
    const m = choice.message ?? choice.delta ?? {};
    content(m.content);
    reasoning(m);
    for (const [position, part] of (m.tool_calls ?? []).entries()) {
      const key = choice.message ? position : (part.index ?? position);
      const call = calls.get(key) ?? { name: "", args: "" };
      if (part.id) call.id ??= part.id;
      if (part.function?.name) call.name += part.function.name;
      const args = part.function?.arguments;
      if (typeof args === "string") call.args += args;
      else if (args && typeof args === "object") call.args = JSON.stringify(args);
      calls.set(key, call);
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  for (const call of [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c)) {
    out.toolCalls.push({ ...(call.id ? { id: call.id } : {}), name: call.name, input: parseArgs(call.args) });
  }
  out.stop = finish === "length" ? "max_tokens" : finish === "content_filter" ? "refusal" : calls.size ? "tool_use" : "end_turn";
  return out;
}

/** The error text the body carries (`error.message`, and OpenRouter's upstream `error.metadata.raw`). */
function recordedErrorTexts(recording: Recording): string[] {
  const texts: string[] = [];
  for (const { data } of payloads(recording)) {
    const error = data?.error;
    if (typeof error?.message === "string") texts.push(error.message);
    if (typeof error?.metadata?.raw === "string") texts.push(error.metadata.raw);
  }
  return texts;
}

// ------------------------------------------------------------------------------------------- replaying

const servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function providerFor(recording: Recording, server: ReplayServer): Provider {
  const model = recording.model || (recording.api === "anthropic-messages" ? "claude-sonnet-4-5" : "gpt-4o");
  return recording.api === "anthropic-messages"
    ? createAnthropicProvider({ model, apiKey: "test-key", baseURL: server.url, retry: FAST_RETRY })
    : createOpenAIProvider({ model, apiKey: "test-key", baseURL: `${server.url}/v1`, retry: FAST_RETRY });
}

async function replay(recording: Recording, chunkBytes?: number) {
  const server = await startReplayServer(recording, chunkBytes ? { chunkBytes } : {});
  servers.push(server);
  const result = await run(providerFor(recording, server));
  return { ...result, requests: server.requests.length };
}

/** What must not depend on how the bytes were cut. */
function comparable(result: AssembledMessage) {
  return { message: result.message, stop: result.stop, usage: result.usage, errors: result.errors, toolErrors: result.toolErrors };
}

const textOf = (r: AssembledMessage) => r.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
const thinkingOf = (r: AssembledMessage) => r.message.content.flatMap((b) => (b.type === "thinking" ? [b.thinking] : [])).join("");
const toolCallsOf = (r: AssembledMessage) => r.message.content.flatMap((b) => (b.type === "tool_use" ? [{ id: b.id, name: b.name, input: b.input }] : []));

const isError = (r: Recording) => r.response.status >= 400 || r.tags.includes("mid-stream-error");

async function check(recording: Recording, index: number) {
  const whole = await replay(recording);
  const chunkBytes = 1 + (index % 7);
  const cut = await replay(recording, chunkBytes);

  for (const result of [whole, cut]) expect(result.events.at(-1)?.type).toBe("stop");
  expect(comparable(cut), `cut into ${chunkBytes}-byte pieces`).toEqual(comparable(whole));

  if (isError(recording)) {
    expect(whole.stop.complete).toBe(false);
    expect(whole.errors.length).toBeGreaterThan(0);
    const error = whole.errors.at(-1)!;
    if (recording.response.status >= 400) expect(error.status).toBe(recording.response.status);
    for (const text of recordedErrorTexts(recording)) expect(error.message).toContain(text);
    return;
  }

  const expected = recording.api === "anthropic-messages" ? expectAnthropic(recording) : expectChat(recording);
  if (!expected.notEndTurn) {
    expect(whole.errors).toEqual([]);
    expect(whole.stop.complete).toBe(true);
  }
  // The text of a paused turn arrives again with each continuation of this replay: it starts with the recording's.
  if (expected.notEndTurn) expect(textOf(whole).startsWith(expected.text)).toBe(true);
  else expect(textOf(whole)).toBe(expected.text);
  if (expected.notEndTurn) expect(thinkingOf(whole).startsWith(expected.thinking)).toBe(true);
  else expect(thinkingOf(whole)).toBe(expected.thinking);
  const calls = toolCallsOf(whole);
  expect(calls.map(({ name, input }) => ({ name, input }))).toEqual(expected.toolCalls.map(({ name, input }) => ({ name, input })));
  expected.toolCalls.forEach((call, i) => {
    if (call.id) expect(calls[i]?.id).toBe(call.id);
    else expect(calls[i]?.id).toMatch(/\S/);
  });
  if (expected.notEndTurn) {
    // A paused turn is continued: replayed alone, every continuation is answered by the same pause again, so the
    // provider asks again up to its bound and then says the turn never finished (recordedRootCauses.test.ts
    // shows a paused turn followed by its end).
    expect(whole.requests).toBeGreaterThan(1);
  } else if (expected.stop) expect(whole.stop.reason).toBe(expected.stop);
  if (expected.outputTokens !== undefined) {
    expect(whole.usage?.source).toBe("api");
    // A paused turn replayed alone adds the same output once per continuation.
    if (expected.notEndTurn) expect(whole.usage!.output % expected.outputTokens).toBe(0);
    else expect(whole.usage?.output).toBe(expected.outputTokens);
  }
}

// ------------------------------------------------------------------------------------------- tests

describe("recorded corpus: envelopes", () => {
  it.each(ALL.map((r) => [r.file, r] as const))("%s", (_file, r) => {
    expect(r.source.repo).toMatch(/^[\w.-]+\/[\w.-]+$/);
    expect(r.source.path).toMatch(/\S/);
    expect(r.source.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(LICENSES.has(r.source.license), `license ${r.source.license}`).toBe(true);
    expect(FIDELITIES.has(r.source.fidelity)).toBe(true);
    expect(APIS.has(r.api)).toBe(true);
    expect(r.server).toMatch(/\S/);
    expect(r.response.status).toBeGreaterThanOrEqual(200);
    expect(r.response.headers["content-type"]).toMatch(/\S/);
    expect(r.response.body.length).toBeGreaterThan(0);
    expect(["sse", "json", "json-lines"]).toContain(r.response.bodyFormat);
    expect(r.tags.length).toBeGreaterThan(0);
    // Every body reads as its format says (the plain parser throws on anything else).
    expect(payloads(r).length).toBeGreaterThan(0);
  });

  it("has at least 60 Anthropic Messages and 60 OpenAI-compatible chat recordings, and some Responses API ones", () => {
    const count = (api: string) => ALL.filter((r) => r.api === api).length;
    expect(count("anthropic-messages")).toBeGreaterThanOrEqual(60);
    expect(count("openai-chat")).toBeGreaterThanOrEqual(60);
    expect(count("openai-responses")).toBeGreaterThan(0);
  });

  it("the plain reading reads every replayed success recording", () => {
    for (const r of REPLAYED.filter((r) => !isError(r))) {
      expect(() => (r.api === "anthropic-messages" ? expectAnthropic(r) : expectChat(r)), r.file).not.toThrow();
    }
  });

  it("names in KNOWN_MISREADINGS only recordings that exist", () => {
    const present = new Set(ALL.map((r) => r.file));
    expect(NAMED_FILES.filter((f) => !present.has(f))).toEqual([]);
  });

  it("covers the cases issue 29 names", () => {
    const tagged = (tag: string, api?: string) => ALL.some((r) => r.tags.includes(tag) && (!api || r.api === api));
    for (const tag of ["reasoning-tool-turn", "content-parts", "non-streamed", "pause_turn", "provider-usage", "error-metadata-raw", "thinking", "redacted-thinking", "parallel-tool-calls", "tool-call-no-id", "server-tool", "error-status", "rate-limit", "mid-stream-error", "max-tokens"]) {
      expect(tagged(tag), tag).toBe(true);
    }
    expect(tagged("reasoning-content", "openai-chat") && tagged("reasoning-details", "openai-chat")).toBe(true);
  });
});

describe("recorded corpus: the replay server", () => {
  it.each([undefined, 1, 3, 7])("serves a recording byte for byte (chunkBytes %s) and records the request", async (chunkBytes) => {
    const recording = ALL.find((r) => r.response.bodyFormat === "sse" && r.response.body.length > 2000)!;
    const server = await startReplayServer(recording, chunkBytes ? { chunkBytes } : {});
    servers.push(server);
    const response = await fetch(`${server.url}/v1/messages`, { method: "POST", body: JSON.stringify({ hello: 1 }) });
    expect(response.status).toBe(recording.response.status);
    expect(response.headers.get("content-type")).toBe(recording.response.headers["content-type"]);
    expect(Buffer.from(await response.arrayBuffer()).equals(wireBytes(recording))).toBe(true);
    expect(server.requests).toEqual([{ method: "POST", path: "/v1/messages", body: { hello: 1 } }]);
  });

  it("sends the pieces one by one", async () => {
    const recording = ALL.find((r) => r.response.bodyFormat === "sse" && r.response.body.length > 2000)!;
    const server = await startReplayServer(recording, { chunkBytes: 5 });
    servers.push(server);
    const reads = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${server.url}/v1/chat/completions`, { method: "POST" }, (res) => {
        let n = 0;
        res.on("data", () => n++);
        res.on("end", () => resolve(n));
      });
      req.on("error", reject);
      req.end("{}");
    });
    expect(reads).toBeGreaterThan(1);
  });

  it("plays recordings in order, then the last one again", async () => {
    const [a, b] = ALL.filter((r) => r.response.bodyFormat === "json");
    const server = await startReplayServer([a, b]);
    servers.push(server);
    const bodies: string[] = [];
    for (let i = 0; i < 3; i++) bodies.push(await (await fetch(`${server.url}/chat/completions`, { method: "POST", body: "{}" })).text());
    expect(bodies).toEqual([a.response.body, b.response.body, b.response.body]);
  });

  it("frames json-lines recordings as SSE, with event names for Anthropic", () => {
    const recording = ALL.find((r) => r.response.bodyFormat === "json-lines" && r.api === "anthropic-messages")!;
    const wire = wireBytes(recording).toString("utf8");
    expect(wire.startsWith("event: message_start\ndata: {")).toBe(true);
    expect(wire.endsWith("\n\n")).toBe(true);
  });
});

describe("recorded corpus: replayed through toolgate's providers, whole and in 1-7 byte pieces", () => {
  REPLAYED.forEach((recording, index) => {
    const causes = misreadingsOf(recording);
    if (causes.length) it.fails(`${recording.file} (known misreading: ${causes.join("; ")})`, () => check(recording, index));
    else it(recording.file, () => check(recording, index));
  });
});
