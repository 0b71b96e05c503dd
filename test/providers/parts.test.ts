/** The provider layer's pure parts: partial JSON, the assembler, models table, tool schemas, selection. */
import { describe, expect, it } from "vitest";
import { getBuiltinTools } from "../../src/tools/index.js";
import {
  DEFAULT_MODEL_INFO,
  MessageAssembler,
  assembleMessage,
  countContextTokens,
  createProvider,
  lookupModel,
  parsePartialJson,
  parseRetryAfter,
  qualifiesForStrict,
  readModelOverrides,
  renderOpenAITools,
  resolveProviderConfig,
  retryDelay,
  toolDefinitionsForModel,
  toolToAPISchema,
  type ProviderEvent,
} from "../../src/providers/index.js";
import { toolToAPISchema as coreCallersSchema } from "../../src/providers/toolSchemas.js";
import { loadSettings } from "../../src/session/settings.js";
import { tempDir } from "../helpers.js";
import fs from "node:fs";
import path from "node:path";

describe("parsePartialJson", () => {
  it.each([
    ['{"file_path": "/tmp/a', { file_path: "/tmp/a" }],
    ['{"file_path": "/tmp/a", "lim', { file_path: "/tmp/a" }],
    ['{"file_path": "/tmp/a", "limit":', { file_path: "/tmp/a" }],
    ['{"file_path": "/tmp/a", "limit": 1', { file_path: "/tmp/a", limit: 1 }],
    ['{"edits": [{"old": "x", "new": "y"}, {"old": "z', { edits: [{ old: "x", new: "y" }, { old: "z" }] }],
    ['{"a": tr', {}],
    ['{"a": "quote \\"', { a: 'quote "' }],
    ['{"a": "esc \\', { a: "esc " }],
    ["", undefined],
    ['{"a": 1}', { a: 1 }],
  ])("%s → %j", (text, expected) => {
    expect(parsePartialJson(text)).toEqual(expected);
  });
});

describe("MessageAssembler / assembleMessage", () => {
  it("keeps block order, joins deltas per block, keeps signatures, drops tool calls that never completed", async () => {
    const events: ProviderEvent[] = [
      { type: "message_start", id: "msg_1", model: "m" },
      { type: "thinking_delta", index: 0, thinking: "a" },
      { type: "thinking_delta", index: 0, thinking: "b" },
      { type: "thinking_signature", index: 0, signature: "sig" },
      { type: "text_delta", index: 1, text: "Hel" },
      { type: "text_delta", index: 1, text: "lo" },
      { type: "tool_call_start", id: "t1", name: "Read", index: 2 },
      { type: "tool_call_complete", id: "t1", name: "Read", input: { file_path: "/a" } },
      { type: "tool_call_start", id: "t2", name: "Bash", index: 3 },
      { type: "error", error: { kind: "connection", retryable: false, message: "dropped" } },
      { type: "stop", reason: "error", complete: false },
    ];
    const result = await assembleMessage(events);
    expect(result.message).toEqual({
      role: "assistant",
      id: "msg_1",
      content: [
        { type: "thinking", thinking: "ab", signature: "sig" },
        { type: "text", text: "Hello" },
        { type: "tool_use", id: "t1", name: "Read", input: { file_path: "/a" } },
      ],
    });
    expect(result.stop).toEqual({ reason: "error", complete: false });
    expect(result.errors).toHaveLength(1);
  });

  it("a stream without a stop event counts as cut short", async () => {
    expect((await assembleMessage([{ type: "text_delta", index: 0, text: "x" }])).stop).toEqual({ reason: "error", complete: false });
  });

  it("takes events one at a time for a live consumer", () => {
    const assembler = new MessageAssembler();
    assembler.push({ type: "text_delta", index: 0, text: "a" });
    expect(assembler.message().content).toEqual([{ type: "text", text: "a" }]);
  });
});

describe("models table", () => {
  it("matches the longest prefix, strips vendor prefixes, falls back to a default", () => {
    expect(lookupModel("claude-sonnet-4-5-20250929")).toMatchObject({ contextWindow: 200_000, source: "table", matched: "claude-sonnet-4" });
    expect(lookupModel("claude-opus-4-6")).toMatchObject({ contextWindow: 1_000_000, maxOutputTokens: 128_000, matched: "claude-opus-4-6" });
    expect(lookupModel("claude-opus-4-1-20250805")).toMatchObject({ contextWindow: 200_000, matched: "claude-opus-4" });
    expect(lookupModel("claude-sonnet-5-5")).toMatchObject({ contextWindow: 1_000_000, matched: "claude-sonnet-5" });
    expect(lookupModel("gpt-4o-mini")).toMatchObject({ contextWindow: 128_000, matched: "gpt-4o" });
    expect(lookupModel("gpt-4.1-nano")).toMatchObject({ contextWindow: 1_047_576 });
    expect(lookupModel("openai/gpt-5-mini")).toMatchObject({ matched: "gpt-5" });
    expect(lookupModel("o3-mini")).toMatchObject({ matched: "o3" });
    expect(lookupModel("qwen2.5-coder:7b")).toMatchObject({ contextWindow: 32_768, matched: "qwen2.5-coder" });
    expect(lookupModel("llama3.1:8b")).toMatchObject({ contextWindow: 131_072, matched: "llama3.1" });
    expect(lookupModel("my-local-model")).toEqual({ ...DEFAULT_MODEL_INFO, source: "default" });
  });

  it("the models settings section overrides per model name, validated at load like any section", () => {
    const cwd = tempDir();
    const home = tempDir();
    fs.mkdirSync(path.join(cwd, ".toolgate"));
    fs.writeFileSync(
      path.join(cwd, ".toolgate/settings.json"),
      JSON.stringify({ models: { "my-local-model": { contextWindow: 65_536, maxOutputTokens: 2048 }, "gpt-4o": { maxOutputTokens: 1000 }, broken: { contextWindow: -1 } } }),
    );
    const loaded = loadSettings({ cwd, home, env: {} });
    expect(loaded.errors.map((e) => e.message).join("\n")).toMatch(/models/);
    const settings = loaded.files.reduce((acc, f) => ({ ...acc, ...f.settings }), {} as Record<string, unknown>);
    const overrides = readModelOverrides(settings);
    expect(lookupModel("my-local-model", overrides)).toEqual({ contextWindow: 65_536, maxOutputTokens: 2048, source: "settings" });
    expect(lookupModel("gpt-4o", overrides)).toEqual({ contextWindow: 128_000, maxOutputTokens: 1000, source: "settings" });
  });

  it("counts context tokens from API usage when present, else estimates, and says which", () => {
    const messages = [
      { role: "user" as const, content: "x".repeat(400) },
      { role: "assistant" as const, content: [{ type: "text" as const, text: "ok" }] },
    ];
    expect(countContextTokens(messages)).toEqual({ tokens: expect.any(Number), source: "estimate" });
    expect(countContextTokens(messages).tokens).toBeGreaterThanOrEqual(100);
    const usage = { input: 500, output: 20, cacheRead: 1000, cacheWrite: 0, source: "api" as const };
    expect(countContextTokens(messages, { usage, messageCount: 2 })).toEqual({ tokens: 1520, source: "api" });
    const more = [...messages, { role: "user" as const, content: "y".repeat(40) }];
    expect(countContextTokens(more, { usage, messageCount: 2 })).toEqual({ tokens: 1530, source: "estimate" });
  });
});

describe("tool schemas", () => {
  it("toolToAPISchema keeps the Anthropic shape for its callers (ToolSearch, tools, mcp serve)", async () => {
    const tools = getBuiltinTools();
    const read = tools.find((t) => t.name === "Read")!;
    const schema = await toolToAPISchema(read, { tools });
    expect(Object.keys(schema)).toEqual(["name", "description", "input_schema"]);
    expect(schema.input_schema.type).toBe("object");
    expect(coreCallersSchema).toBe(toolToAPISchema);
  });

  it("deferred tools go by name only until loaded", async () => {
    const tools = getBuiltinTools();
    const deferred = tools.filter((t) => t.shouldDefer && t.isEnabled()).map((t) => t.name);
    expect(deferred.length).toBeGreaterThan(0);
    const before = await toolDefinitionsForModel(tools, new Set());
    expect(before.deferredToolNames).toEqual(deferred);
    expect(before.tools.map((t) => t.name)).not.toContain(deferred[0]);
    const after = await toolDefinitionsForModel(tools, new Set([deferred[0]]));
    expect(after.tools.map((t) => t.name)).toContain(deferred[0]);
    expect(after.deferredToolNames).not.toContain(deferred[0]);
  });

  it("strict only when every object requires all its properties and forbids others", () => {
    const strictOk = { type: "object", properties: { a: { type: "string" }, b: { type: "object", properties: { c: { type: "number" } }, required: ["c"], additionalProperties: false } }, required: ["a", "b"], additionalProperties: false };
    expect(qualifiesForStrict(strictOk)).toBe(true);
    expect(qualifiesForStrict({ ...strictOk, required: ["a"] })).toBe(false);
    expect(qualifiesForStrict({ ...strictOk, additionalProperties: undefined })).toBe(false);
    const nestedLoose = { ...strictOk, properties: { ...strictOk.properties, b: { type: "object", properties: { c: { type: "number" } }, required: [] , additionalProperties: false } } };
    expect(qualifiesForStrict(nestedLoose)).toBe(false);
    const rendered = renderOpenAITools([{ name: "T", description: "d", inputSchema: strictOk }]);
    expect(rendered[0]).toEqual({ type: "function", function: { name: "T", description: "d", parameters: strictOk, strict: true } });
  });
});

describe("provider selection", () => {
  it("options beat the environment, which beats settings; defaults otherwise", () => {
    const settings = { provider: { name: "openai", model: "qwen3:8b", baseURL: "http://127.0.0.1:11434/v1" } };
    expect(resolveProviderConfig({}, {}, settings)).toEqual({
      provider: "openai",
      model: "qwen3:8b",
      smallModel: "qwen3:8b",
      baseURL: "http://127.0.0.1:11434/v1",
      sources: { provider: "settings", model: "settings", baseURL: "settings" },
    });
    const env = { TOOLGATE_PROVIDER: "anthropic", ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://proxy" };
    expect(resolveProviderConfig({}, env, settings)).toMatchObject({ provider: "anthropic", model: "qwen3:8b", baseURL: "http://proxy", apiKey: "k", sources: { apiKey: "ANTHROPIC_API_KEY" } });
    expect(resolveProviderConfig({ provider: "openai", model: "gpt-4.1", baseURL: "http://x/v1" }, env, settings)).toMatchObject({ provider: "openai", model: "gpt-4.1", baseURL: "http://x/v1", sources: { provider: "option", model: "option", baseURL: "option" } });
    expect(resolveProviderConfig({}, {}, {})).toEqual({ provider: "anthropic", model: "claude-sonnet-4-5", smallModel: "claude-haiku-4-5", sources: { provider: "default", model: "default" } });
    expect(resolveProviderConfig({}, { OPENAI_BASE_URL: "http://127.0.0.1:8080/v1" }, {})).toMatchObject({ provider: "openai", model: "gpt-4o" });
  });

  it("the small model: option, TOOLGATE_SMALL_MODEL, settings, then the provider's default (OpenAI-compatible: the main model)", () => {
    expect(resolveProviderConfig({ smallModel: "a" }, { TOOLGATE_SMALL_MODEL: "b" }, { provider: { smallModel: "c" } }).smallModel).toBe("a");
    expect(resolveProviderConfig({}, { TOOLGATE_SMALL_MODEL: "b" }, { provider: { smallModel: "c" } }).smallModel).toBe("b");
    expect(resolveProviderConfig({}, {}, { provider: { smallModel: "c" } }).smallModel).toBe("c");
    expect(resolveProviderConfig({ provider: "anthropic" }, {}, {}).smallModel).toBe("claude-haiku-4-5");
    expect(resolveProviderConfig({ provider: "openai", model: "llama3" }, {}, {}).smallModel).toBe("llama3");
  });

  it("createProvider builds without loading an SDK or touching the network", () => {
    const provider = createProvider({ provider: "openai", model: "local", baseURL: "http://127.0.0.1:9/v1", env: {} });
    expect([provider.name, provider.model, provider.baseURL]).toEqual(["openai", "local", "http://127.0.0.1:9/v1"]);
  });
});

describe("retry timing", () => {
  it("reads retry-after-ms, retry-after seconds and dates; backoff doubles with jitter and is capped", () => {
    const headers = (h: Record<string, string>) => new Headers(h);
    expect(parseRetryAfter(headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(parseRetryAfter(headers({ "retry-after": "2" }))).toBe(2000);
    expect(parseRetryAfter(headers({ "retry-after": new Date(Date.now() + 60_000).toUTCString() }))).toBeGreaterThan(50_000);
    expect(parseRetryAfter(headers({}))).toBeUndefined();
    const o = { baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };
    for (let i = 0; i < 20; i++) {
      expect(retryDelay(0, undefined, o)).toBeGreaterThanOrEqual(75);
      expect(retryDelay(0, undefined, o)).toBeLessThanOrEqual(125);
      expect(retryDelay(2, undefined, o)).toBeGreaterThanOrEqual(300);
      expect(retryDelay(10, undefined, o)).toBeLessThanOrEqual(1250);
    }
    expect(retryDelay(0, 60_000, o)).toBe(5000);
  });
});

describe("doctor's model provider section", () => {
  it("shows provider, model, base URL and limits with their sources, and whether a key is set but never the key", async () => {
    const { modelProviderCheck } = await import("../../src/cli/doctor.js");
    const settings = { provider: { model: "my-local-model" }, models: { "my-local-model": { contextWindow: 65536 } } };
    const input = { session: { context: { options: { settings } } }, env: { OPENAI_API_KEY: "sk-very-secret", OPENAI_BASE_URL: "http://127.0.0.1:8080/v1" } };
    const result = await modelProviderCheck.run(input as never);
    expect(result).toEqual({
      status: "ok",
      lines: [
        "provider: openai (env)",
        "model: my-local-model (settings)",
        "small model (side questions such as WebFetch's): my-local-model",
        "base URL: http://127.0.0.1:8080/v1 (env)",
        "API key: set (OPENAI_API_KEY)",
        "context window 65,536 tokens, max output 4,096 (settings models section)",
      ],
    });
    expect(JSON.stringify(result)).not.toContain("sk-very-secret");
    const bare = await modelProviderCheck.run({ session: { context: { options: { settings: {} } } }, env: {} } as never);
    expect(bare.lines).toContain("API key: not set — set ANTHROPIC_API_KEY for -p and the interactive UI");
  });

  it("TOOLGATE_STREAM_IDLE_TIMEOUT_MS sets the stall watchdog", async () => {
    const { retryOptionsFromEnv } = await import("../../src/providers/index.js");
    expect(retryOptionsFromEnv({ TOOLGATE_STREAM_IDLE_TIMEOUT_MS: "5000" })).toEqual({ stallMs: 5000 });
    expect(retryOptionsFromEnv({ TOOLGATE_STREAM_IDLE_TIMEOUT_MS: "soon" })).toEqual({});
  });
});
