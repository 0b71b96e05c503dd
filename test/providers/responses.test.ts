/**
 * The Responses API provider against the scripted model server (POST /v1/responses) and against recordings of
 * OpenAI's own streams, through the real SDK client: the one event stream, the assembled message, and what the
 * next request sends back (reasoning items, function_call / function_call_output, custom apply_patch calls).
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeModelServer } from "../../scripts/fake-model.mjs";
import {
  buildResponsesRequest,
  createOpenAIResponsesProvider,
  createProvider,
  REASONING_SIGNATURE_PREFIX,
  resolveProviderConfig,
  toolDefinitionsForModel,
  type Provider,
  type ProviderEvent,
  type ProviderRequest,
} from "../../src/providers/index.js";
import type { AssistantMessage, Message } from "../../src/core/messages.js";
import { ApplyPatchTool } from "../../src/tools/ApplyPatch/index.js";
import { ReadTool } from "../../src/tools/Read/index.js";
import { resolveEditDialect } from "../../src/tools/editDialect.js";
import { FAST_RETRY, REQUEST, run, serve, types } from "./support.js";

function responsesAt(server: FakeModelServer | string, model = "gpt-4.1", retry = FAST_RETRY): Provider {
  const url = typeof server === "string" ? server : server.url;
  return createOpenAIResponsesProvider({ model, apiKey: "test-key", baseURL: `${url}/v1`, retry });
}

const READ_TOOL = { name: "Read", description: "Read a file", inputSchema: { type: "object", properties: { file_path: { type: "string" }, limit: { type: "number" } }, required: ["file_path"], additionalProperties: false } };
const STRICT_TOOL = { name: "Ping", description: "Ping", inputSchema: { type: "object", properties: { host: { type: "string" } }, required: ["host"], additionalProperties: false } };

const textOf = (message: AssistantMessage) => message.content.flatMap((b) => (b.type === "text" ? [String(b.text)] : [])).join("");

describe("openai-responses provider: the event stream", () => {
  it("streams text as deltas and ends with usage and end_turn; the request is a Responses body with store:false", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "Hello from the Responses API." }], chunks: 5, usage: { input_tokens: 30, output_tokens: 7, cache_read_input_tokens: 20 } }] });
    const { events, message, stop, usage, errors } = await run(responsesAt(server));
    expect(errors).toEqual([]);
    expect(events[0]).toMatchObject({ type: "message_start", model: "gpt-4.1" });
    expect(events.filter((e) => e.type === "text_delta")).toHaveLength(5);
    expect(textOf(message)).toBe("Hello from the Responses API.");
    expect(message.id).toMatch(/^resp_/);
    expect(stop).toEqual({ reason: "end_turn", complete: true });
    expect(usage).toEqual({ input: 30, output: 7, cacheRead: 20, cacheWrite: 0, source: "api" });
    const [request] = server.requests();
    expect(request).toMatchObject({ protocol: "openai-responses", path: "/v1/responses" });
    expect(request.body).toMatchObject({
      model: "gpt-4.1",
      instructions: "You are a test.",
      input: [{ role: "user", content: [{ type: "input_text", text: "hello" }] }],
      stream: true,
      store: false,
      max_output_tokens: 1024,
    });
    // Not a reasoning model: no reasoning parameter, which it would refuse.
    expect(request.body.reasoning).toBeUndefined();
    expect(request.body.include).toBeUndefined();
  });

  it("a tool call round trip: calls stream and complete one by one; the next request sends function_call and function_call_output with the same call_id", async () => {
    const server = await serve({
      turns: [
        {
          content: [
            { type: "text", text: "Let me look." },
            { type: "tool_use", id: "call_read_1", name: "Read", input: { file_path: "/tmp/a.txt", limit: 10 } },
            { type: "tool_use", id: "call_ping_2", name: "Ping", input: { host: "example.org" } },
          ],
          chunks: 4,
        },
        { content: [{ type: "text", text: "Done." }] },
      ],
    });
    const provider = responsesAt(server);
    const request: Partial<ProviderRequest> = { tools: [READ_TOOL, STRICT_TOOL], toolChoice: { type: "auto" } };
    const first = await run(provider, request);
    expect(first.stop).toEqual({ reason: "tool_use", complete: true });
    const starts = first.events.filter((e) => e.type === "tool_call_start");
    const completes = first.events.filter((e) => e.type === "tool_call_complete");
    expect(starts.map((e) => e.type === "tool_call_start" && [e.id, e.name])).toEqual([["call_read_1", "Read"], ["call_ping_2", "Ping"]]);
    expect(completes).toEqual([
      { type: "tool_call_complete", id: "call_read_1", name: "Read", input: { file_path: "/tmp/a.txt", limit: 10 } },
      { type: "tool_call_complete", id: "call_ping_2", name: "Ping", input: { host: "example.org" } },
    ]);
    // The first call is complete before the second starts, so the loop can run it while the model streams.
    expect(first.events.indexOf(completes[0])).toBeLessThan(first.events.indexOf(starts[1]));
    const partials = first.events.filter((e) => e.type === "tool_input_delta" && e.id === "call_read_1");
    expect(partials.length).toBe(4);
    expect(typeof (partials[2] as { partial: unknown }).partial).toBe("object");

    const firstBody = server.requests()[0].body;
    expect(firstBody.tools).toEqual([
      { type: "function", name: "Read", description: "Read a file", parameters: READ_TOOL.inputSchema, strict: false },
      { type: "function", name: "Ping", description: "Ping", parameters: STRICT_TOOL.inputSchema, strict: true },
    ]);
    expect(firstBody).toMatchObject({ tool_choice: "auto", parallel_tool_calls: true });

    const messages: Message[] = [
      { role: "user", content: "hello" },
      first.message,
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_read_1", content: "line one" },
          { type: "tool_result", tool_use_id: "call_ping_2", content: "unreachable", is_error: true },
        ],
      },
    ];
    const second = await run(provider, { ...request, messages });
    expect(textOf(second.message)).toBe("Done.");
    expect(server.requests()[1].body.input).toEqual([
      { role: "user", content: [{ type: "input_text", text: "hello" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Let me look.", annotations: [] }] },
      { type: "function_call", call_id: "call_read_1", name: "Read", arguments: JSON.stringify({ file_path: "/tmp/a.txt", limit: 10 }) },
      { type: "function_call", call_id: "call_ping_2", name: "Ping", arguments: JSON.stringify({ host: "example.org" }) },
      { type: "function_call_output", call_id: "call_read_1", output: "line one" },
      { type: "function_call_output", call_id: "call_ping_2", output: "Error: unreachable" },
    ]);
  });

  it("a reasoning item becomes a thinking block whose encrypted content goes back verbatim on the next request, with store:false", async () => {
    const server = await serve({
      turns: [
        { content: [{ type: "thinking", thinking: "The user greets me.", signature: "gAAAA-encrypted-secret-1" }, { type: "text", text: "Hi!" }], chunks: 3 },
        { content: [{ type: "text", text: "Again." }] },
      ],
    });
    const provider = responsesAt(server, "gpt-5");
    const first = await run(provider, { model: "gpt-5", thinking: { budgetTokens: 20_000 } });
    expect(types(first.events).filter((t) => t === "thinking_delta")).toHaveLength(3);
    const thinking = first.message.content.find((b) => b.type === "thinking") as unknown as { thinking: string; signature: string };
    expect(thinking.thinking).toBe("The user greets me.");
    expect(thinking.signature.startsWith(REASONING_SIGNATURE_PREFIX)).toBe(true);
    const firstBody = server.requests()[0].body;
    expect(firstBody).toMatchObject({ store: false, include: ["reasoning.encrypted_content"], reasoning: { effort: "high", summary: "auto" } });

    // A thinking block from another provider (an Anthropic signature) has no item to send back: it is left out.
    const foreign: AssistantMessage = { role: "assistant", content: [{ type: "thinking", thinking: "elsewhere", signature: "sig-anthropic" }, { type: "text", text: "Earlier." }] };
    await run(provider, { model: "gpt-5", messages: [{ role: "user", content: "a" }, foreign, { role: "user", content: "b" }, first.message, { role: "user", content: "again" }] });
    const input = server.requests()[1].body.input as Array<Record<string, unknown>>;
    const reasoning = input.filter((i) => i.type === "reasoning");
    expect(reasoning).toEqual([{ id: "rs_fake_0", type: "reasoning", summary: [{ type: "summary_text", text: "The user greets me." }], encrypted_content: "gAAAA-encrypted-secret-1" }]);
    // In place: after the earlier assistant text, before this answer's text.
    expect(input.map((i) => i.type ?? i.role)).toEqual(["user", "message", "user", "reasoning", "message", "user"]);
    expect(JSON.stringify(input)).not.toContain("sig-anthropic");
    expect(server.requests()[1].body.store).toBe(false);
  });

  it("survives tiny chunks: every delta one character, multi-byte text included", async () => {
    const text = "Grüße, 世界! 🎉 done";
    const server = await serve({
      turns: [{ content: [{ type: "thinking", thinking: "ünïcode thoughts", signature: "enc" }, { type: "text", text }, { type: "tool_use", id: "call_x", name: "Read", input: { file_path: "/tmp/ü.txt" } }], chunks: 1000 }],
    });
    const { message, stop, events } = await run(responsesAt(server, "o4-mini"), { model: "o4-mini" });
    expect(stop).toEqual({ reason: "tool_use", complete: true });
    expect(textOf(message)).toBe(text);
    expect(message.content.find((b) => b.type === "thinking")).toMatchObject({ thinking: "ünïcode thoughts" });
    expect(message.content.find((b) => b.type === "tool_use")).toEqual({ type: "tool_use", id: "call_x", name: "Read", input: { file_path: "/tmp/ü.txt" } });
    expect(events.filter((e) => e.type === "text_delta").length).toBe(Array.from(text).length);
  });

  it("max_output_tokens: response.incomplete ends the message with max_tokens, and a call it cut off is left out", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "Cut he" }], stop_reason: "max_tokens", usage: { input_tokens: 5, output_tokens: 16 } }] });
    const { stop, message, usage } = await run(responsesAt(server), { maxTokens: 16 });
    expect(stop).toEqual({ reason: "max_tokens", complete: true });
    expect(textOf(message)).toBe("Cut he");
    expect(usage).toMatchObject({ output: 16 });
    expect(server.requests()[0].body.max_output_tokens).toBe(16);
  });

  it("a refusal is shown as text and stops with reason refusal", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "I can't help with that." }], stop_reason: "refusal", chunks: 3 }] });
    const { stop, message, events } = await run(responsesAt(server));
    expect(stop).toEqual({ reason: "refusal", complete: true });
    expect(textOf(message)).toBe("I can't help with that.");
    expect(events.filter((e) => e.type === "text_delta")).toHaveLength(3);
  });

  it("a non-streamed JSON body answering a streaming request reads as the same events", async () => {
    const turn = { content: [{ type: "thinking" as const, thinking: "Plan.", signature: "enc-json" }, { type: "text" as const, text: "Whole answer." }, { type: "tool_use" as const, id: "call_j", name: "Read", input: { file_path: "x" } }], usage: { input_tokens: 9, output_tokens: 4 } };
    const server = await serve({ turns: [{ ...turn, responses: { json: true } }, turn] });
    const provider = responsesAt(server, "gpt-5");
    const json = await run(provider, { model: "gpt-5" });
    const streamed = await run(provider, { model: "gpt-5" });
    expect(json.errors).toEqual([]);
    expect(json.stop).toEqual({ reason: "tool_use", complete: true });
    expect(json.message.content).toEqual(streamed.message.content);
    expect(json.usage).toEqual(streamed.usage);
    expect(types(json.events)).toEqual(["message_start", "thinking_delta", "thinking_signature", "text_delta", "tool_call_start", "tool_call_complete", "usage", "stop"]);
  });
});

describe("openai-responses provider: failures", () => {
  it("429 is retried after retry-after; the retry is an event and the second attempt answers", async () => {
    const server = await serve({ turns: [{ status: 429, headers: { "retry-after-ms": "5" } }, { content: [{ type: "text", text: "ok" }] }] });
    const { events, stop, message } = await run(responsesAt(server));
    expect(stop.complete).toBe(true);
    expect(textOf(message)).toBe("ok");
    const retry = events.find((e) => e.type === "retry");
    expect(retry).toMatchObject({ attempt: 1, delayMs: 5, error: { kind: "rate_limit", status: 429, retryable: true } });
    expect(server.requests()).toHaveLength(2);
  });

  it("response.failed is reported with the server's message; a server error before any content is retried, a bad prompt is not", async () => {
    const server = await serve({
      turns: [
        { content: [{ type: "text", text: "never" }], steps: [{ after: 0, failed: { code: "server_error", message: "The server had an error processing your request." } }] },
        { content: [{ type: "text", text: "second try" }] },
        { content: [{ type: "text", text: "never" }], steps: [{ after: 0, failed: { code: "invalid_prompt", message: "Your prompt was flagged." } }] },
      ],
    });
    const provider = responsesAt(server);
    const retried = await run(provider);
    expect(retried.events.find((e) => e.type === "retry")).toMatchObject({ reason: "The response failed: The server had an error processing your request. (server_error)", error: { kind: "server", retryable: true } });
    expect(textOf(retried.message)).toBe("second try");
    const refused = await run(provider);
    expect(refused.stop).toEqual({ reason: "error", complete: false });
    expect(refused.errors).toEqual([{ kind: "bad_request", retryable: false, message: "The response failed: Your prompt was flagged. (invalid_prompt)" }]);
    expect(server.requests()).toHaveLength(3);
  });

  it("a failure after content ends the message as cut short; a mid-stream error event (OpenAI's nested shape) is judged by its code", async () => {
    const server = await serve({
      turns: [
        { content: [{ type: "text", text: "partial" }], steps: [{ after: 1, failed: { code: "server_error", message: "boom" } }] },
        { content: [{ type: "text", text: "never" }], steps: [{ after: 0, error: { type: "tokens", code: "rate_limit_exceeded", message: "Rate limit reached for gpt-5." } }] },
        { content: [{ type: "text", text: "after the limit" }] },
      ],
    });
    const provider = responsesAt(server);
    const cut = await run(provider);
    expect(cut.stop).toEqual({ reason: "error", complete: false });
    expect(cut.errors).toEqual([{ kind: "server", retryable: false, message: "The response failed: boom (server_error)" }]);
    expect(textOf(cut.message)).toBe("partial");
    const limited = await run(provider);
    expect(limited.events.find((e) => e.type === "retry")).toMatchObject({ error: { kind: "rate_limit", retryable: true, message: "The model server reported an error: Rate limit reached for gpt-5. (rate_limit_exceeded)" } });
    expect(textOf(limited.message)).toBe("after the limit");
  });

  it("a stream that ends without response.completed is a dropped connection, retried while nothing was shown", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "x" }], steps: [{ after: 0, drop: true }] }, { content: [{ type: "text", text: "y" }] }] });
    const { events, message } = await run(responsesAt(server));
    expect(events.find((e) => e.type === "retry")).toMatchObject({ error: { kind: "connection" } });
    expect(textOf(message)).toBe("y");
  });
});

describe("openai-responses provider: apply_patch as the native custom tool", () => {
  const PATCH = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-old\n+new\n*** End Patch\n";

  it("gpt-5-codex gets apply_patch as a custom grammar tool; its custom_tool_call arrives as {input: patch} and goes back as custom_tool_call / custom_tool_call_output", async () => {
    const server = await serve({
      turns: [{ content: [{ type: "tool_use", id: "call_patch", name: "apply_patch", input: { input: PATCH } }], chunks: 6 }, { content: [{ type: "text", text: "Patched." }] }],
    });
    const { tools } = await toolDefinitionsForModel([ApplyPatchTool, ReadTool], new Set());
    const provider = responsesAt(server, "gpt-5-codex");
    const first = await run(provider, { model: "gpt-5-codex", tools, toolChoice: { type: "tool", name: "apply_patch" } });
    const sent = server.requests()[0].body;
    const patchTool = sent.tools.find((t: { name: string }) => t.name === "apply_patch");
    expect(patchTool).toMatchObject({ type: "custom", name: "apply_patch", format: { type: "grammar", syntax: "lark" } });
    expect(patchTool.format.definition).toContain('"*** Begin Patch"');
    expect(sent.tools.find((t: { name: string }) => t.name === "Read")).toMatchObject({ type: "function", parameters: { type: "object" } });
    expect(sent.tool_choice).toEqual({ type: "custom", name: "apply_patch" });
    expect(first.events.find((e) => e.type === "tool_call_complete")).toEqual({ type: "tool_call_complete", id: "call_patch", name: "apply_patch", input: { input: PATCH } });
    const partial = first.events.filter((e): e is Extract<ProviderEvent, { type: "tool_input_delta" }> => e.type === "tool_input_delta");
    expect(partial.length).toBe(6);
    expect(partial[2].partial).toEqual({ input: expect.stringContaining("*** Begin Patch") });

    await run(provider, {
      model: "gpt-5-codex",
      tools,
      messages: [{ role: "user", content: "fix it" }, first.message, { role: "user", content: [{ type: "tool_result", tool_use_id: "call_patch", content: "Success. Updated notes.txt" }] }],
    });
    const input = server.requests()[1].body.input;
    expect(input.slice(1)).toEqual([
      { type: "custom_tool_call", call_id: "call_patch", name: "apply_patch", input: PATCH },
      { type: "custom_tool_call_output", call_id: "call_patch", output: "Success. Updated notes.txt" },
    ]);
  });

  it("a model not trained on it gets apply_patch as an ordinary function tool", () => {
    const tools = [{ name: "apply_patch", description: "patch", inputSchema: { type: "object", properties: { input: { type: "string" } }, required: ["input"], additionalProperties: false } }];
    const body = buildResponsesRequest({ ...REQUEST, model: "gpt-4.1", tools, messages: [{ role: "assistant", content: [{ type: "tool_use", id: "c", name: "apply_patch", input: { input: PATCH } }] }] });
    expect((body.tools as unknown[])[0]).toMatchObject({ type: "function", name: "apply_patch", strict: true });
    expect((body.input as unknown[])[0]).toEqual({ type: "function_call", call_id: "c", name: "apply_patch", arguments: JSON.stringify({ input: PATCH }) });
  });

  it("the edit dialect gives OpenAI's apply_patch models apply_patch on this provider too", () => {
    expect(resolveEditDialect("auto", "openai-responses", "gpt-5-codex")).toBe("openai");
    expect(resolveEditDialect("auto", "openai-responses", "some-local-model")).toBe("toolgate");
  });
});

describe("openai-responses provider: the request", () => {
  it("images (prompt and tool results), documents, tool_reference and deferred tools", () => {
    const image = { type: "image" as const, source: { type: "base64" as const, media_type: "image/png", data: "iVBORw0K" } };
    const body = buildResponsesRequest({
      model: "gpt-4.1",
      system: [{ type: "text", text: "One." }, { type: "text", text: "Two." }],
      deferredToolNames: ["mcp__x__y"],
      messages: [
        { role: "user", content: [{ type: "text", text: "What is this?" }, image, { type: "document", title: "spec.pdf", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0" } }] },
        { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "Read", input: { file_path: "a.png" } }, { type: "tool_use", id: "c2", name: "ToolSearch", input: { query: "select:mcp__x__y" } }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "The image:" }, image] },
            { type: "tool_result", tool_use_id: "c2", content: [{ type: "tool_reference", tool_name: "mcp__x__y" }] },
          ],
        },
      ],
    });
    expect(body.instructions).toBe("One.\n\nTwo.\n\nThese tools are available but their parameters are not loaded yet: mcp__x__y. Load one with ToolSearch (\"select:NAME\") before calling it.");
    const input = body.input as Array<Record<string, unknown>>;
    expect(input[0]).toEqual({
      role: "user",
      content: [
        { type: "input_text", text: "What is this?" },
        { type: "input_image", image_url: "data:image/png;base64,iVBORw0K", detail: "auto" },
        { type: "input_file", filename: "spec.pdf", file_data: "data:application/pdf;base64,JVBERi0" },
      ],
    });
    expect(input[3]).toEqual({ type: "function_call_output", call_id: "c1", output: [{ type: "input_text", text: "The image:" }, { type: "input_image", image_url: "data:image/png;base64,iVBORw0K", detail: "auto" }] });
    expect(input[4]).toEqual({ type: "function_call_output", call_id: "c2", output: "Tool mcp__x__y is now available." });
  });

  it("tool_choice maps to auto, none, required and a named function", () => {
    const at = (toolChoice: ProviderRequest["toolChoice"]) => buildResponsesRequest({ ...REQUEST, model: "gpt-4.1", tools: [READ_TOOL], toolChoice }).tool_choice;
    expect([at({ type: "auto" }), at({ type: "none" }), at({ type: "any" }), at({ type: "tool", name: "Read" })]).toEqual(["auto", "none", "required", { type: "function", name: "Read" }]);
    expect(buildResponsesRequest({ ...REQUEST, model: "gpt-4.1", toolChoice: { type: "any" } })).not.toHaveProperty("tool_choice");
  });
});

describe("choosing the Responses API", () => {
  const none = { ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" };

  it("by --provider, TOOLGATE_PROVIDER and settings provider.name; with OpenAI's variables", () => {
    expect(resolveProviderConfig({ provider: "openai-responses" }, { OPENAI_API_KEY: "k", OPENAI_MODEL: "o3" })).toMatchObject({ provider: "openai-responses", model: "o3", apiKey: "k", sources: { apiKey: "OPENAI_API_KEY" } });
    expect(resolveProviderConfig({}, { TOOLGATE_PROVIDER: "openai-responses" })).toMatchObject({ provider: "openai-responses", model: "gpt-5", sources: { provider: "env" } });
    expect(resolveProviderConfig({}, none, { provider: { name: "openai-responses", baseURL: "http://127.0.0.1:9/v1" } })).toMatchObject({ provider: "openai-responses", baseURL: "http://127.0.0.1:9/v1" });
    const provider = createProvider({ provider: "openai-responses", env: {}, model: "gpt-5" });
    expect(provider.name).toBe("openai-responses");
  });

  it("per model: settings provider.api, or a model OpenAI serves only there on OpenAI's own server", () => {
    expect(resolveProviderConfig({}, { TOOLGATE_PROVIDER: "openai" }, { provider: { api: "responses" } })).toMatchObject({ provider: "openai-responses", sources: { api: "settings" } });
    for (const model of ["gpt-5-codex", "gpt-5.1-codex-max", "codex-mini-latest", "o3-pro", "gpt-5-pro"]) {
      expect(resolveProviderConfig({ provider: "openai", model }, {})).toMatchObject({ provider: "openai-responses", sources: { api: "model" } });
    }
    expect(resolveProviderConfig({ provider: "openai", model: "gpt-5-codex", baseURL: "https://api.openai.com/v1" }, {}).provider).toBe("openai-responses");
    // A compatible server's codex-named model, an explicit "chat", and ordinary models stay on chat completions.
    expect(resolveProviderConfig({ provider: "openai", model: "gpt-5-codex", baseURL: "http://127.0.0.1:11434/v1" }, {}).provider).toBe("openai");
    expect(resolveProviderConfig({ provider: "openai", model: "gpt-5-codex" }, {}, { provider: { api: "chat" } }).provider).toBe("openai");
    expect(resolveProviderConfig({ provider: "openai", model: "gpt-4o" }, {})).toEqual(resolveProviderConfig({ provider: "openai", model: "gpt-4o" }, {}));
    expect(resolveProviderConfig({ provider: "openai", model: "gpt-4o" }, {}).sources).not.toHaveProperty("api");
    expect(resolveProviderConfig({ provider: "openai", model: "gpt-4o" }, {}).provider).toBe("openai");
  });
});

// ---- recordings of OpenAI's own streams (test/fixtures/recorded, see its SOURCES.md) ----

interface Recording {
  model: string;
  response: { status: number; headers: Record<string, string>; bodyFormat: "sse" | "json" | "json-lines"; body: string };
}

const recordedDir = path.resolve(import.meta.dirname, "../fixtures/recorded/openai");
const recording = (name: string): Recording => JSON.parse(fs.readFileSync(path.join(recordedDir, name), "utf8"));

/** A json-lines body is one SSE payload per line with the framing stripped: framed again, event names included. */
function sseOf(lines: string[]): string {
  return lines.map((line) => `event: ${JSON.parse(line).type}\ndata: ${line}\n\n`).join("");
}

const replays: http.Server[] = [];
afterEach(async () => {
  await Promise.all(replays.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** Answers the n-th POST with the n-th body, written in pieces of 1-7 bytes when `tiny`; records request bodies. */
async function replay(bodies: Array<{ status: number; contentType: string; body: string }>, tiny = false) {
  const requests: Array<Record<string, any>> = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", async () => {
      requests.push(JSON.parse(raw));
      const answer = bodies[requests.length - 1];
      if (!answer) return void res.writeHead(400).end();
      res.writeHead(answer.status, { "content-type": answer.contentType });
      const bytes = Buffer.from(answer.body, "utf8");
      if (!tiny) return void res.end(bytes);
      for (let i = 0, n = 1; i < bytes.length; i += n, n = (n % 7) + 1) {
        res.write(bytes.subarray(i, i + n));
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    });
  });
  replays.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

describe("openai-responses provider: recorded OpenAI streams", () => {
  it("gpt-5.1-codex-max, reasoning then four tool-call turns: each turn's reasoning and calls go back in the next request", async () => {
    const rec = recording("openai-reasoning-encrypted-content.1.chunks.json");
    // The recording holds four responses one after another; each answers one request.
    const segments: string[][] = [];
    for (const line of rec.response.body.split("\n").filter((l) => l.trim())) {
      if (JSON.parse(line).type === "response.created") segments.push([]);
      segments.at(-1)!.push(line);
    }
    expect(segments).toHaveLength(4);
    const server = await replay(segments.map((lines) => ({ status: 200, contentType: "text/event-stream", body: sseOf(lines) })), true);
    const calculator = { name: "calculator", description: "Calculate", inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" }, op: { type: "string" } }, required: ["a", "b", "op"], additionalProperties: false } };
    const provider = responsesAt(server.url, rec.model);
    const messages: Message[] = [{ role: "user", content: "Compute ((12 + 7) * 3) * 10 with the calculator." }];
    const doneReasoning = JSON.parse(segments[0].find((l) => l.includes('"response.output_item.done"') && l.includes('"reasoning"'))!).item;
    for (let turn = 0; turn < 4; turn++) {
      const result = await run(provider, { model: rec.model, tools: [calculator], messages });
      expect(result.errors).toEqual([]);
      expect(result.stop.complete).toBe(true);
      messages.push(result.message);
      const calls = result.message.content.filter((b) => b.type === "tool_use") as Array<{ id: string }>;
      if (turn === 0) {
        expect(result.message.content.map((b) => b.type)).toEqual(["thinking", "tool_use"]);
        expect(result.message.content[0]).toMatchObject({ thinking: expect.stringContaining("Calculating step-by-step") });
        expect(result.message.content[1]).toMatchObject({ name: "calculator", input: { a: 12, b: 7, op: "add" } });
        expect(result.usage?.source).toBe("api");
      }
      if (turn < 3) {
        expect(result.stop.reason).toBe("tool_use");
        messages.push({ role: "user", content: calls.map((c) => ({ type: "tool_result" as const, tool_use_id: c.id, content: "42" })) });
      } else {
        expect(result.stop.reason).toBe("end_turn");
        expect(textOf(result.message).length).toBeGreaterThan(0);
      }
    }
    // The second request carries the reasoning item exactly as OpenAI finished it, then the call and its output.
    const second = server.requests[1];
    expect(second.store).toBe(false);
    expect(second.input[1]).toEqual(doneReasoning);
    expect(second.input[2]).toMatchObject({ type: "function_call", call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", name: "calculator" });
    expect(second.input[3]).toEqual({ type: "function_call_output", call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", output: "42" });
  });

  it("gpt-5-nano, a mid-stream insufficient_quota error: reported with OpenAI's message, not retried", async () => {
    const rec = recording("openai-error.1.chunks.json");
    const server = await replay([{ status: 200, contentType: "text/event-stream", body: sseOf(rec.response.body.split("\n").filter((l) => l.trim())) }]);
    const { errors, stop } = await run(responsesAt(server.url, rec.model));
    expect(stop).toEqual({ reason: "error", complete: false });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ kind: "bad_request", retryable: false });
    expect(errors[0].message).toContain("You exceeded your current quota");
    expect(server.requests).toHaveLength(1);
  });

  it("gpt-5-mini, a non-streamed body with an encrypted reasoning item (no summary) and a function call", async () => {
    const rec = recording("test_mixed_content_ordering-openai_responses.0.json");
    const server = await replay([{ status: 200, contentType: "application/json", body: rec.response.body }]);
    const { message, stop, usage } = await run(responsesAt(server.url, "gpt-5-mini"), { model: "gpt-5-mini" });
    expect(stop).toEqual({ reason: "tool_use", complete: true });
    expect(message.content.map((b) => b.type)).toEqual(["thinking", "tool_use"]);
    expect(message.content[0]).toMatchObject({ thinking: "", signature: expect.stringContaining("gAAAAABpk9hn") });
    expect(message.content[1]).toEqual({ type: "tool_use", id: "call_zmt5boQ6Wf6lFz7WtrG9uCH2", name: "get_mixed_content", input: {} });
    expect(usage).toEqual({ input: 44, output: 90, cacheRead: 0, cacheWrite: 0, source: "api" });
  });

  it("gpt-4o-mini, plain streamed text as recorded, in 1-7 byte pieces", async () => {
    const rec = recording("test_openai_responses_api_streaming.0.json");
    const server = await replay([{ status: 200, contentType: rec.response.headers["content-type"], body: rec.response.body }], true);
    const { message, stop, usage } = await run(responsesAt(server.url, "gpt-4o-mini"));
    expect(stop).toEqual({ reason: "end_turn", complete: true });
    expect(textOf(message)).toBe("1, 2, 3");
    expect(usage).toEqual({ input: 27, output: 8, cacheRead: 0, cacheWrite: 0, source: "api" });
  });
});
