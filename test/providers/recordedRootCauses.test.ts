/**
 * Issue 29's seven root causes, each shown on real recorded traffic (test/fixtures/recorded/, see its
 * SOURCES.md): the recording is replayed byte for byte from a loopback server, whole and cut into 3-byte
 * pieces, through toolgate's real providers; what the provider reads is checked against what the recording says.
 */
import { afterEach, describe, expect, it } from "vitest";
import { assembleMessage, buildOpenAIRequest, createAnthropicProvider, createOpenAIProvider, type ProviderEvent, type ProviderRequest } from "../../src/providers/index.js";
import type { Message } from "../../src/core/messages.js";
import { loadRecordings, startReplayServer, type Recording, type ReplayServer } from "./recorded.js";
import { FAST_RETRY } from "./support.js";

const servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function recording(file: string): Recording {
  const [found] = loadRecordings((r) => r.file === file);
  if (!found) throw new Error(`no recording ${file}`);
  return found;
}

const body = (r: Recording) => JSON.parse(r.response.body) as Record<string, any>;

const REQUEST: ProviderRequest = { model: "m", system: "You are a test.", messages: [{ role: "user", content: "hello" }], maxTokens: 1024 };

async function replay(recordings: Recording | Recording[], chunkBytes: number | undefined, request: Partial<ProviderRequest> = {}) {
  const list = Array.isArray(recordings) ? recordings : [recordings];
  const server = await startReplayServer(list, chunkBytes ? { chunkBytes } : {});
  servers.push(server);
  const provider =
    list[0].api === "anthropic-messages"
      ? createAnthropicProvider({ model: list[0].model, apiKey: "k", baseURL: server.url, retry: FAST_RETRY })
      : createOpenAIProvider({ model: list[0].model, apiKey: "k", baseURL: `${server.url}/v1`, retry: FAST_RETRY });
  const events: ProviderEvent[] = [];
  for await (const event of provider.stream({ ...REQUEST, model: list[0].model, ...request })) events.push(event);
  return { server, events, ...(await assembleMessage(events)) };
}

const texts = (content: ReadonlyArray<Record<string, unknown>>, type: "text" | "thinking") => content.filter((b) => b.type === type).map((b) => String(b[type])).join("");

describe.each([undefined, 3])("real recordings (chunks of %s bytes)", (chunkBytes) => {
  it("1. reasoning goes back on the tool-call turn, in the field the server used (DeepSeek reasoning_content)", async () => {
    const rec = recording("deepseek/deepseek-tool-call.json");
    const recorded = body(rec).choices[0].message;
    const { message, stop } = await replay(rec, chunkBytes);
    expect(stop.reason).toBe("tool_use");
    expect(texts(message.content as never, "thinking")).toBe(recorded.reasoning_content);
    const call = message.content.find((b) => b.type === "tool_use") as { id: string };
    expect(call.id).toBe(recorded.tool_calls[0].id);
    // The next request: the assistant's tool-call turn carries its reasoning back, as DeepSeek requires.
    const history: Message[] = [{ role: "user", content: "hello" }, message, { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "sunny" }] }];
    const next = buildOpenAIRequest({ ...REQUEST, model: rec.model, messages: history }) as { messages: Array<Record<string, unknown>> };
    const assistant = next.messages.find((m) => m.role === "assistant")!;
    expect(assistant.reasoning_content).toBe(recorded.reasoning_content);
    expect(assistant.tool_calls).toEqual([expect.objectContaining({ id: recorded.tool_calls[0].id })]);
  });

  it("1b. OpenRouter's reasoning_details go back verbatim on a tool-call turn", async () => {
    const rec = recording("openrouter/test_openrouter_preserve_reasoning_block.1.json");
    const details = body(rec).choices[0].message.reasoning_details;
    expect(details?.length).toBeGreaterThan(0);
    const { message } = await replay(rec, chunkBytes);
    const withCall: Message = { ...message, content: [...message.content, { type: "tool_use", id: "call_x", name: "Read", input: {} }] };
    const next = buildOpenAIRequest({ ...REQUEST, messages: [{ role: "user", content: "q" }, withCall, { role: "user", content: [{ type: "tool_result", tool_use_id: "call_x", content: "r" }] }] }) as {
      messages: Array<Record<string, unknown>>;
    };
    expect(next.messages.find((m) => m.role === "assistant")!.reasoning_details).toEqual(details);
  });

  it.each(["mistral/mistral-reasoning.json", "mistral/mistral-reasoning.chunks.json", "mistral/test_mistral_model_thinking_part_iter.0.json"])(
    "2. content sent as a list of parts (Mistral) is text and thinking, never [object Object]: %s",
    async (file) => {
      const { message, stop } = await replay(recording(file), chunkBytes);
      expect(stop.complete).toBe(true);
      const answer = texts(message.content as never, "text");
      expect(answer).not.toContain("[object Object]");
      expect(answer.length).toBeGreaterThan(0);
      expect(texts(message.content as never, "thinking").length).toBeGreaterThan(0);
      if (file === "mistral/mistral-reasoning.json") {
        expect(answer).toBe("2 + 2 = 4");
        expect(texts(message.content as never, "thinking")).toBe("The user is asking for 2+2. This is basic arithmetic. 2+2=4.");
      }
    },
  );

  it("3. a whole JSON body answering a streaming request is the response (OpenAI path, tool calls kept)", async () => {
    const rec = recording("xai/xai-tool-call.json");
    const recorded = body(rec).choices[0].message;
    const { message, stop, errors } = await replay(rec, chunkBytes);
    expect(errors).toEqual([]);
    expect(stop).toEqual({ reason: "tool_use", complete: true });
    const calls = message.content.filter((b) => b.type === "tool_use") as Array<{ id: string; name: string; input: unknown }>;
    expect(calls.map((c) => [c.id, c.name, c.input])).toEqual(recorded.tool_calls.map((c: any) => [c.id, c.function.name, JSON.parse(c.function.arguments)]));
  });

  it("3b. a whole JSON message answering a streaming request is the response (Anthropic path, no retries)", async () => {
    const rec = recording("anthropic/test_anthropic_tool_with_thinking.0.json");
    const recorded = body(rec);
    const { message, stop, events, server } = await replay(rec, chunkBytes);
    expect(events.filter((e) => e.type === "retry")).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(stop.complete).toBe(true);
    const want = (recorded.content as Array<Record<string, unknown>>).filter((b) => ["text", "thinking", "tool_use"].includes(String(b.type)));
    expect(message.content.map((b) => b.type)).toEqual(want.map((b) => b.type));
    const thinking = message.content.find((b) => b.type === "thinking") as { signature?: string } | undefined;
    if (thinking) expect(thinking.signature).toBe(want.find((b) => b.type === "thinking")!.signature);
  });

  it("3c. a 200 that is neither a stream nor a message is an error naming what arrived", async () => {
    const page: Recording = { ...recording("anthropic/anthropic-refusal.json"), response: { status: 200, headers: { "content-type": "text/html" }, bodyFormat: "json", body: "<html><body>Welcome to nginx!</body></html>" } };
    const { stop, errors } = await replay(page, chunkBytes);
    expect(stop).toEqual({ reason: "error", complete: false });
    expect(errors[0]?.message).toMatch(/HTTP 200 with text\/html: <html><body>Welcome to nginx!/);
  });

  it("4. pause_turn is continued with the paused content sent back unchanged, and seen as one message", async () => {
    const paused = recording("anthropic/test_pause_turn_web_search_vcr.0.json");
    const pausedBody = body(paused);
    expect(pausedBody.stop_reason).toBe("pause_turn");
    const finished = recording("anthropic/test_mixed_tools_no_output.1.json");
    const { message, stop, server, usage } = await replay([paused, finished], chunkBytes);
    expect(stop).toEqual({ reason: "end_turn", complete: true });
    expect(server.requests).toHaveLength(2);
    const second = server.requests[1].body as { messages: Array<{ role: string; content: unknown }> };
    expect(second.messages.at(-1)).toEqual({ role: "assistant", content: pausedBody.content });
    expect(texts(message.content as never, "text")).toContain(texts(body(finished).content, "text"));
    // Usage adds up; the context size stays the prompt's, not the server-side search results'.
    expect(usage!.output).toBe(pausedBody.usage.output_tokens + body(finished).usage.output_tokens);
    expect(usage!.context).toBe(pausedBody.usage.input_tokens + (pausedBody.usage.cache_read_input_tokens ?? 0) + (pausedBody.usage.cache_creation_input_tokens ?? 0));
  });

  it("5. usage in x_groq.usage is the API's usage, not an estimate", async () => {
    const rec = recording("groq/test_groq_model_web_search_tool_stream.0.json");
    const lines = rec.response.body.split("\n").flatMap((l) => (l.startsWith("data: {") ? [JSON.parse(l.slice(6))] : []));
    expect(lines.some((l) => l.usage)).toBe(false);
    const reported = lines.map((l) => l.x_groq?.usage).find(Boolean);
    expect(reported).toBeDefined();
    const { usage } = await replay(rec, chunkBytes);
    expect(usage).toMatchObject({ source: "api", output: reported.completion_tokens, input: reported.prompt_tokens - (reported.prompt_tokens_details?.cached_tokens ?? 0) });
  });

  it.each(["snowflake/test_snowflake_thinking.0.json"])("6. reasoning only in reasoning_details is shown as thinking: %s", async (file) => {
    const rec = recording(file);
    const message0 = body(rec).choices[0].message;
    expect(message0.reasoning ?? null).toBeNull();
    expect(message0.reasoning_content ?? null).toBeNull();
    const { message } = await replay(rec, chunkBytes);
    const shown = (message0.reasoning_details as Array<{ text?: string; summary?: string }>).map((d) => d.text ?? d.summary ?? "").join("");
    expect(shown.length).toBeGreaterThan(0);
    expect(texts(message.content as never, "thinking")).toBe(shown);
  });

  it("7. OpenRouter's upstream error text in error.metadata.raw reaches the person", async () => {
    const rec = recording("openrouter/test_openrouter_errors_raised.0.json");
    const raw = body(rec).error.metadata.raw as string;
    const { errors, stop } = await replay(rec, chunkBytes);
    expect(stop.complete).toBe(false);
    expect(errors.at(-1)!.message).toContain("HTTP 429");
    expect(errors.at(-1)!.message).toContain(raw.slice(0, 60));
    expect(errors.at(-1)!.message).toContain("Google");
  });

  it("refusal: a recorded Anthropic refusal ends as a refusal, not a silent success", async () => {
    const { stop } = await replay(recording("anthropic/anthropic-refusal.chunks.json"), chunkBytes);
    expect(stop).toEqual({ reason: "refusal", complete: true });
  });

  it("a mid-stream error chunk (OpenRouter) is reported with the server's words", async () => {
    const rec = recording("openrouter/test_openrouter_stream_error.0.json");
    const { errors, stop } = await replay(rec, chunkBytes);
    expect(stop.complete).toBe(false);
    expect(errors.at(-1)!.message).toMatch(/in the middle of its answer/);
  });
});

describe("request and usage edge cases", () => {
  it.each([
    ["gpt-5", "max_completion_tokens"],
    ["gpt-5-mini", "max_completion_tokens"],
    ["o3-mini", "max_completion_tokens"],
    ["openai/gpt-5", "max_completion_tokens"],
    ["openai/o4-mini", "max_completion_tokens"],
    ["gpt-4o", "max_tokens"],
    ["openai/gpt-4o", "max_tokens"],
    ["qwen3-max", "max_tokens"],
    ["demo3", "max_tokens"],
  ])("the output limit for %s is sent as %s", (model, key) => {
    const body = buildOpenAIRequest({ ...REQUEST, model });
    expect(body[key]).toBe(REQUEST.maxTokens);
    expect(Object.keys(body).filter((k) => k === "max_tokens" || k === "max_completion_tokens")).toEqual([key]);
  });

  it("more cached tokens than prompt tokens never makes the input count negative (real chunks, usage edited)", async () => {
    const rec = recording("alibaba/alibaba-tool-call.chunks.json");
    const edited: Recording = { ...rec, response: { ...rec.response, body: rec.response.body.replace('"prompt_tokens_details":{"cached_tokens":0}', '"prompt_tokens_details":{"cached_tokens":400}') } };
    expect(edited.response.body).not.toBe(rec.response.body);
    const { usage } = await replay(edited, undefined);
    expect(usage).toMatchObject({ source: "api", input: 0, cacheRead: 400, output: 22 });
  });
});
