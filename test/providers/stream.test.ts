/**
 * Both providers against the scripted model server over loopback HTTP, through the real SDK clients: the one
 * event stream, the assembled message, and what each provider sends.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { CHAT_REASONING_MARK, createOpenAIProvider, toolCallErrorResult } from "../../src/providers/index.js";
import { tempDir } from "../helpers.js";
import { BOTH, FAST_RETRY, REQUEST, anthropicAt, openaiAt, run, serve } from "./support.js";

const TOOL_TURN = {
  content: [
    { type: "thinking" as const, thinking: "I should read it.", signature: "sig-abc" },
    { type: "text" as const, text: "Let me look at that file." },
    { type: "tool_use" as const, id: "toolu_1", name: "Read", input: { file_path: "/tmp/a.txt", limit: 10 } },
    { type: "tool_use" as const, id: "toolu_2", name: "Glob", input: { pattern: "**/*.ts" } },
  ],
  usage: { input_tokens: 120, output_tokens: 45, cache_read_input_tokens: 100 },
  chunks: 4,
};

describe.each(BOTH)("%s provider: one event stream", (name, at) => {
  it("1. streams text, thinking and two tool calls with input split across deltas, then usage and stop", async () => {
    const server = await serve({ turns: [TOOL_TURN] });
    const { events, message, stop, usage, errors } = await run(at(server));
    expect(errors).toEqual([]);
    expect(stop).toEqual({ reason: "tool_use", complete: true });
    expect(events[0].type).toBe("message_start");
    expect(events.at(-1)).toEqual({ type: "stop", reason: "tool_use", complete: true });
    const starts = events.filter((e) => e.type === "tool_call_start");
    expect(starts.map((e) => e.type === "tool_call_start" && e.name)).toEqual(["Read", "Glob"]);
    const deltas = events.filter((e) => e.type === "tool_input_delta");
    expect(deltas.length).toBeGreaterThanOrEqual(4);
    // The partial JSON grows, and its best-effort parse is an object the UI can show.
    const firstRead = deltas.find((e) => e.type === "tool_input_delta" && e.id === starts[0].id && e.partialJson.length > 10);
    expect(firstRead && typeof (firstRead as { partial: unknown }).partial).toBe("object");
    const completes = events.filter((e) => e.type === "tool_call_complete");
    expect(completes).toEqual([
      { type: "tool_call_complete", id: expect.any(String), name: "Read", input: { file_path: "/tmp/a.txt", limit: 10 } },
      { type: "tool_call_complete", id: expect.any(String), name: "Glob", input: { pattern: "**/*.ts" } },
    ]);
    // The first tool call completes before the second starts: the loop can run it while the model streams.
    expect(events.indexOf(completes[0])).toBeLessThan(events.indexOf(starts[1]));
    const text = message.content.filter((b) => b.type === "text");
    expect(text).toEqual([{ type: "text", text: "Let me look at that file." }]);
    expect(message.content.filter((b) => b.type === "tool_use").map((b) => (b as { input: unknown }).input)).toEqual([{ file_path: "/tmp/a.txt", limit: 10 }, { pattern: "**/*.ts" }]);
    expect(events.some((e) => e.type === "thinking_delta")).toBe(true);
    expect(usage).toMatchObject({ output: 45, cacheRead: 100, source: "api" });
    expect(usage!.input + usage!.cacheRead).toBeGreaterThanOrEqual(120);
  });

  it("2. a plain answer ends with end_turn; max_tokens is reported as such", async () => {
    const server = await serve({
      turns: [
        { content: [{ type: "text", text: "Hi there." }] },
        { content: [{ type: "text", text: "Cut" }], stop_reason: "max_tokens" },
      ],
    });
    const first = await run(at(server));
    expect(first.stop).toEqual({ reason: "end_turn", complete: true });
    expect(first.message.content).toEqual([{ type: "text", text: "Hi there." }]);
    const second = await run(at(server));
    expect(second.stop).toEqual({ reason: "max_tokens", complete: true });
  });

  it("3. arguments that do not parse become a tool_call_error, kept in the message with {} input, never a crash", async () => {
    const server = await serve({ turns: [{ content: [{ type: "tool_use", id: "toolu_9", name: "Read", rawInput: '{"file_path": "/tmp/a' }], chunks: 2 }] });
    const { events, message, toolErrors, stop } = await run(at(server));
    expect(stop.complete).toBe(true);
    expect(events.filter((e) => e.type === "tool_call_complete")).toEqual([]);
    expect(toolErrors).toHaveLength(1);
    expect(toolErrors[0]).toMatchObject({ name: "Read", raw: '{"file_path": "/tmp/a' });
    expect(toolErrors[0].message).toMatch(/not valid JSON/);
    expect(message.content).toEqual([{ type: "tool_use", id: toolErrors[0].id, name: "Read", input: {} }]);
    // The loop answers it with an is_error result that shows the model what it sent.
    expect(toolCallErrorResult(toolErrors[0])).toEqual({
      type: "tool_result",
      tool_use_id: toolErrors[0].id,
      is_error: true,
      content: expect.stringContaining('The arguments received were: {"file_path": "/tmp/a'),
    });
  });

  it("4. arguments that parse to something other than an object are an error too", async () => {
    const server = await serve({ turns: [{ content: [{ type: "tool_use", id: "toolu_8", name: "Read", rawInput: "[1, 2]" }] }] });
    const { toolErrors } = await run(at(server));
    expect(toolErrors[0].message).toMatch(/must be a JSON object/);
  });

  it("5. empty arguments are an empty object", async () => {
    const server = await serve({ turns: [{ content: [{ type: "tool_use", id: "toolu_7", name: "TodoRead", rawInput: "" }] }] });
    const { events } = await run(at(server));
    expect(events.find((e) => e.type === "tool_call_complete")).toMatchObject({ name: "TodoRead", input: {} });
  });
});

describe("anthropic provider: request and thinking", () => {
  it("6. keeps thinking verbatim with its signature and sends it back unchanged; redacted thinking too", async () => {
    const server = await serve({
      turns: [
        {
          content: [
            { type: "thinking", thinking: "Step one. Step two.", signature: "sig-xyz" },
            { type: "redacted_thinking", data: "opaque-blob" },
            { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/x" } },
          ],
          chunks: 3,
        },
        { content: [{ type: "text", text: "done" }] },
      ],
    });
    const provider = anthropicAt(server);
    const first = await run(provider, { thinking: { budgetTokens: 2048 } });
    expect(first.message.content).toEqual([
      { type: "thinking", thinking: "Step one. Step two.", signature: "sig-xyz" },
      { type: "redacted_thinking", data: "opaque-blob" },
      { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/x" } },
    ]);
    await run(provider, {
      thinking: { budgetTokens: 2048 },
      messages: [
        { role: "user", content: "read /x" },
        first.message,
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "file body" }] },
      ],
    });
    const [req1, req2] = server.requests();
    expect(req1.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(req2.body.messages[1].content.slice(0, 2)).toEqual([
      { type: "thinking", thinking: "Step one. Step two.", signature: "sig-xyz" },
      { type: "redacted_thinking", data: "opaque-blob" },
    ]);
  });

  it("7. marks system, the last tool and the last message for prompt caching; sends tool_choice and the model", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
    await run(anthropicAt(server), {
      tools: [
        { name: "Read", description: "Read a file", inputSchema: { type: "object", properties: { file_path: { type: "string" } } } },
        { name: "Glob", description: "Find files", inputSchema: { type: "object", properties: { pattern: { type: "string" } } } },
      ],
      deferredToolNames: ["mcp__github__create_issue"],
      toolChoice: { type: "tool", name: "Read" },
      messages: [
        { role: "user", content: "one" },
        { role: "assistant", content: [{ type: "text", text: "two" }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "tool_reference", tool_name: "mcp__x__y" }] }, { type: "text", text: "three" }] },
      ],
    });
    const [{ body, headers }] = server.requests();
    expect(body.model).toBe("claude-sonnet-4-5");
    expect(body.max_tokens).toBe(1024);
    expect(body.system.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(body.system.map((b: { text: string }) => b.text).join("\n")).toMatch(/mcp__github__create_issue/);
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual(["Read", "Glob"]);
    expect(body.tools[0].cache_control).toBeUndefined();
    expect(body.tools[1]).toEqual({ name: "Glob", description: "Find files", input_schema: { type: "object", properties: { pattern: { type: "string" } } }, cache_control: { type: "ephemeral" } });
    expect(body.tool_choice).toEqual({ type: "tool", name: "Read" });
    const markers = JSON.stringify(body.messages).match(/cache_control/g) ?? [];
    expect(markers).toHaveLength(1);
    expect(body.messages[2].content.at(-1)).toEqual({ type: "text", text: "three", cache_control: { type: "ephemeral" } });
    expect(body.messages[2].content[0].content).toEqual([{ type: "text", text: "Tool mcp__x__y is now available." }]);
    expect(headers.authorization).toBe("Bearer test-key");
    expect(headers["x-api-key"]).toBe("test-key");
    expect(body.stream).toBe(true);
  });
});

describe("openai provider: request shapes", () => {
  it("8. sends system, tool results as role tool, assistant tool calls as tool_calls, usage in the stream, strict only where it qualifies", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
    await run(openaiAt(server), {
      tools: [
        { name: "Read", description: "Read", inputSchema: { type: "object", properties: { file_path: { type: "string" }, limit: { type: "number" } }, required: ["file_path"], additionalProperties: false } },
        { name: "Done", description: "Finish", inputSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false } },
      ],
      toolChoice: { type: "any" },
      messages: [
        { role: "user", content: "read two files" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "s" },
            { type: "text", text: "Reading." },
            { type: "tool_use", id: "call_a", name: "Read", input: { file_path: "/a" } },
            { type: "tool_use", id: "call_b", name: "Read", input: { file_path: "/b" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_a", content: "A body" },
            { type: "tool_result", tool_use_id: "call_b", content: [{ type: "text", text: "B text" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }], is_error: true },
            { type: "text", text: "now summarise" },
          ],
        },
      ],
    });
    const [{ body, path, headers }] = server.requests();
    expect(path).toBe("/v1/chat/completions");
    expect(headers.authorization).toBe("Bearer test-key");
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.max_tokens).toBe(1024);
    expect(body.tool_choice).toBe("required");
    expect(body.tools[0].function.strict).toBeUndefined();
    expect(body.tools[1].function.strict).toBe(true);
    expect(body.messages).toEqual([
      { role: "system", content: "You are a test." },
      { role: "user", content: "read two files" },
      {
        role: "assistant",
        content: "Reading.",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "Read", arguments: '{"file_path":"/a"}' } },
          { id: "call_b", type: "function", function: { name: "Read", arguments: '{"file_path":"/b"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "A body" },
      // Tool messages carry text only: the image follows in the user message, before the user's own text.
      { role: "tool", tool_call_id: "call_b", content: "Error: B text\n[An image (image/png) follows in the next user message.]" },
      {
        role: "user",
        content: [
          { type: "text", text: "The image of tool result call_b:" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "text", text: "now summarise" },
        ],
      },
    ]);
  });
});

describe("openai provider: tolerance of compatible servers", () => {
  const turn = (openai: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    content: [
      { type: "text" as const, text: "Calling." },
      { type: "tool_use" as const, id: "call_1", name: "Read", input: { file_path: "/a" } },
      { type: "tool_use" as const, id: "call_2", name: "Grep", input: { pattern: "x" } },
    ],
    chunks: 3,
    openai,
    ...extra,
  });

  it("9. arguments sent as an object (Ollama)", async () => {
    const server = await serve({ turns: [turn({ argumentsAsObject: true })] });
    const { events, stop } = await run(openaiAt(server));
    expect(events.filter((e) => e.type === "tool_call_complete").map((e) => e.type === "tool_call_complete" && e.input)).toEqual([{ file_path: "/a" }, { pattern: "x" }]);
    expect(stop.reason).toBe("tool_use");
  });

  it("10. missing ids and type: stable generated ids, distinct per call", async () => {
    const server = await serve({ turns: [turn({ omitIds: true })] });
    const { events, message } = await run(openaiAt(server));
    const ids = events.filter((e) => e.type === "tool_call_complete").map((e) => (e as { id: string }).id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^call_[A-Za-z0-9_-]+_\d+$/);
    // The id a call started with is the one it completes with and the one in the message.
    const startIds = events.filter((e) => e.type === "tool_call_start").map((e) => (e as { id: string }).id);
    expect(startIds).toEqual(ids);
    expect(message.content.filter((b) => b.type === "tool_use").map((b) => (b as { id: string }).id)).toEqual(ids);
  });

  it("11. all arguments in one chunk", async () => {
    const server = await serve({ turns: [turn({ oneChunk: true })] });
    const { events } = await run(openaiAt(server));
    expect(events.filter((e) => e.type === "tool_call_complete").map((e) => e.type === "tool_call_complete" && e.name)).toEqual(["Read", "Grep"]);
  });

  it.each([
    ["stop", "stop"],
    ["missing", null],
  ])("12. finish_reason %s while tool calls are present still means tool_use", async (_label, finishReason) => {
    const server = await serve({ turns: [turn({ finishReason })] });
    const { stop, events } = await run(openaiAt(server));
    expect(stop).toEqual({ reason: "tool_use", complete: true });
    expect(events.filter((e) => e.type === "tool_call_complete")).toHaveLength(2);
  });

  it("13. finish_reason missing without tool calls is a complete end_turn", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "hello" }], openai: { finishReason: null } }] });
    const { stop, message } = await run(openaiAt(server));
    expect(stop).toEqual({ reason: "end_turn", complete: true });
    expect(message.content).toEqual([{ type: "text", text: "hello" }]);
  });

  it.each(["reasoning_content", "reasoning"])("14. %s deltas are thinking", async (field) => {
    const server = await serve({ turns: [{ content: [{ type: "thinking", thinking: "Let me think about it." }, { type: "text", text: "Answer." }], chunks: 3, openai: { reasoningField: field } }] });
    const { message } = await run(openaiAt(server));
    expect(message.content).toEqual([
      // The signature says which field it came in, so a tool-call turn can send it back there.
      { type: "thinking", thinking: "Let me think about it.", signature: `${CHAT_REASONING_MARK}{"field":"${field}"}` },
      { type: "text", text: "Answer." },
    ]);
  });

  it("15. a server that sends no usage: an estimate from characters, said to be one", async () => {
    // The scripted server always honours include_usage, so this one plain loopback server ignores it, as some do.
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta: object, finish_reason: string | null = null) => res.write(`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason }] })}\n\n`);
      chunk({ content: "x".repeat(400) });
      chunk({}, "stop");
      res.end("data: [DONE]\n\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const provider = createOpenAIProvider({ model: "local", baseURL: `http://127.0.0.1:${port}/v1`, retry: FAST_RETRY });
      const { usage, stop } = await run(provider);
      expect(stop.complete).toBe(true);
      expect(usage).toMatchObject({ output: 100, source: "estimate" });
      expect(usage!.input).toBeGreaterThan(0);
    } finally {
      server.close();
    }
  });
});

describe.each(BOTH)("%s provider: tool calls complete while the model still streams", (name, at) => {
  it("16. the first tool call completes before the message ends (the server holds the message open until the caller reacts)", async () => {
    const flag = path.join(tempDir(), "tool-started");
    // Anthropic marks a block's end; chat completions only by the next call starting, so it waits one block later.
    const after = name === "anthropic" ? 1 : 2;
    const server = await serve({
      turns: [
        {
          content: [
            { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/a" } },
            { type: "tool_use", id: "toolu_2", name: "Read", input: { file_path: "/b" } },
            { type: "text", text: "done" },
          ],
          steps: [{ after, waitForFile: flag, timeoutMs: 10_000 }],
        },
      ],
    });
    const seen: string[] = [];
    for await (const event of at(server).stream({ ...REQUEST, model: "m" })) {
      seen.push(event.type === "tool_call_complete" ? `complete:${event.id}` : event.type);
      // What a streaming executor does: start the tool now, while the message is still open.
      if (event.type === "tool_call_complete" && event.input.file_path === "/a") fs.writeFileSync(flag, "");
    }
    expect(seen.at(-1)).toBe("stop");
    expect(seen).not.toContain("error");
    expect(seen.filter((s) => s.startsWith("complete:"))).toHaveLength(2);
  });
});
