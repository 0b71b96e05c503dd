/**
 * Context window and output limit per model, by longest matching prefix, overridable per model name in the
 * `models` settings section; and the token counter the context budget uses.
 */
import type { Message } from "../core/messages.js";
import type { Usage } from "./events.js";

export interface ModelInfo {
  contextWindow: number;
  maxOutputTokens: number;
}

/** Prefix → limits. A model matches the longest prefix of its name (dated and tagged names included). */
const KNOWN_MODELS: ReadonlyArray<readonly [string, ModelInfo]> = [
  // The Claude 5 generation and Opus 4.6-4.8: 1M tokens of context, 128K of output (platform.claude.com, 2026-12).
  ["claude-fable-5", { contextWindow: 1_000_000, maxOutputTokens: 128_000 }],
  ["claude-mythos-5", { contextWindow: 1_000_000, maxOutputTokens: 128_000 }],
  ["claude-opus-5", { contextWindow: 1_000_000, maxOutputTokens: 128_000 }],
  ["claude-sonnet-5", { contextWindow: 1_000_000, maxOutputTokens: 128_000 }],
  ["claude-haiku-5", { contextWindow: 1_000_000, maxOutputTokens: 128_000 }],
  ["claude-opus-4-8", { contextWindow: 1_000_000, maxOutputTokens: 128_000 }],
  ["claude-opus-4-7", { contextWindow: 1_000_000, maxOutputTokens: 128_000 }],
  ["claude-opus-4-6", { contextWindow: 1_000_000, maxOutputTokens: 128_000 }],
  ["claude-opus-4-5", { contextWindow: 200_000, maxOutputTokens: 64_000 }],
  ["claude-opus-4", { contextWindow: 200_000, maxOutputTokens: 32_000 }],
  ["claude-sonnet-4", { contextWindow: 200_000, maxOutputTokens: 64_000 }],
  ["claude-haiku-4", { contextWindow: 200_000, maxOutputTokens: 64_000 }],
  ["claude-3-7-sonnet", { contextWindow: 200_000, maxOutputTokens: 64_000 }],
  ["claude-3-5-haiku", { contextWindow: 200_000, maxOutputTokens: 8_192 }],
  ["claude-3-5-sonnet", { contextWindow: 200_000, maxOutputTokens: 8_192 }],
  ["claude-3", { contextWindow: 200_000, maxOutputTokens: 4_096 }],
  ["claude", { contextWindow: 200_000, maxOutputTokens: 32_000 }],
  ["gpt-4o", { contextWindow: 128_000, maxOutputTokens: 16_384 }],
  ["gpt-4.1", { contextWindow: 1_047_576, maxOutputTokens: 32_768 }],
  ["gpt-4-turbo", { contextWindow: 128_000, maxOutputTokens: 4_096 }],
  ["gpt-4", { contextWindow: 8_192, maxOutputTokens: 8_192 }],
  ["gpt-5", { contextWindow: 400_000, maxOutputTokens: 128_000 }],
  ["o1", { contextWindow: 200_000, maxOutputTokens: 100_000 }],
  ["o3", { contextWindow: 200_000, maxOutputTokens: 100_000 }],
  ["o4-mini", { contextWindow: 200_000, maxOutputTokens: 100_000 }],
  ["llama3", { contextWindow: 8_192, maxOutputTokens: 4_096 }],
  ["llama3.1", { contextWindow: 131_072, maxOutputTokens: 8_192 }],
  ["llama3.2", { contextWindow: 131_072, maxOutputTokens: 8_192 }],
  ["llama3.3", { contextWindow: 131_072, maxOutputTokens: 8_192 }],
  ["qwen2.5-coder", { contextWindow: 32_768, maxOutputTokens: 8_192 }],
  ["qwen3", { contextWindow: 32_768, maxOutputTokens: 8_192 }],
  ["deepseek-r1", { contextWindow: 128_000, maxOutputTokens: 32_768 }],
  ["deepseek", { contextWindow: 128_000, maxOutputTokens: 8_192 }],
  ["mistral", { contextWindow: 32_768, maxOutputTokens: 8_192 }],
  ["codestral", { contextWindow: 256_000, maxOutputTokens: 8_192 }],
  ["gemma", { contextWindow: 8_192, maxOutputTokens: 4_096 }],
  ["gpt-oss", { contextWindow: 131_072, maxOutputTokens: 32_768 }],
];

/** An unknown model: small enough that a local server is not overrun, large enough for real work. */
export const DEFAULT_MODEL_INFO: ModelInfo = { contextWindow: 32_768, maxOutputTokens: 4_096 };

export type ModelOverrides = Readonly<Record<string, Partial<ModelInfo>>>;

/** Where a model's limits come from, for doctor. */
export type ModelInfoSource = "settings" | "table" | "default";

/**
 * A model's name without what a platform adds around it, so one table serves them all: vendor prefixes
 * ("openai/gpt-4o"), Bedrock's ids (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`, `anthropic.claude-…`, and
 * ARNs ending `…/inference-profile/<id>`) and Vertex's (`claude-sonnet-4-5@20250929`) become the Anthropic API's
 * `claude-sonnet-4-5-20250929`. Lower-cased; a tag after a colon ("qwen3:8b") stays.
 */
export function canonicalModelName(model: string): string {
  const bare = model.toLowerCase().replace(/^.*[/]/, "");
  // Bedrock's inference profiles put a geography before the vendor: us., eu., apac., global., us-gov., …
  const claude = /^(?:[a-z]{2,6}(?:-[a-z]+)?\.)?anthropic\.(claude.*)$/.exec(bare)?.[1] ?? (bare.startsWith("claude") ? bare : undefined);
  if (!claude) return bare;
  return claude.replace("@", "-").replace(/-v\d+(?::\d+)?$/, "");
}

export function lookupModel(model: string, overrides: ModelOverrides = {}): ModelInfo & { source: ModelInfoSource; matched?: string } {
  const bare = canonicalModelName(model);
  let best: readonly [string, ModelInfo] | undefined;
  for (const entry of KNOWN_MODELS) {
    if (bare.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  const base = best?.[1] ?? DEFAULT_MODEL_INFO;
  const override = overrides[model];
  if (override) return { ...base, ...override, source: "settings" };
  return best ? { ...base, source: "table", matched: best[0] } : { ...base, source: "default" };
}

export function getModelInfo(model: string, overrides?: ModelOverrides): ModelInfo {
  const { contextWindow, maxOutputTokens } = lookupModel(model, overrides);
  return { contextWindow, maxOutputTokens };
}

/** About four characters per token for English and code; good enough for a budget, said to be an estimate. */
const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Characters of everything a message carries to the model (images and documents count by their data size). */
export function messageChars(message: Message): number {
  if (typeof message.content === "string") return message.content.length;
  let chars = 0;
  for (const block of message.content as Array<Record<string, unknown>>) chars += JSON.stringify(block).length;
  return chars;
}

export interface TokenCount {
  tokens: number;
  source: "api" | "estimate";
}

/**
 * Tokens the conversation occupies: the last API usage (input + cache + output of that reply) plus an estimate
 * for messages added since (`messageCount` is the length of the conversation including that reply); with no
 * usage at all, an estimate of everything. A count that had to estimate any part says "estimate".
 */
export function countContextTokens(messages: readonly Message[], lastUsage?: { usage: Usage; messageCount: number }): TokenCount {
  if (lastUsage && lastUsage.usage.source === "api") {
    const { input, cacheRead, cacheWrite, output, context } = lastUsage.usage;
    const since = messages.slice(lastUsage.messageCount).reduce((n, m) => n + Math.ceil(messageChars(m) / CHARS_PER_TOKEN), 0);
    return { tokens: (context ?? input + cacheRead + cacheWrite) + output + since, source: since ? "estimate" : "api" };
  }
  return { tokens: messages.reduce((n, m) => n + Math.ceil(messageChars(m) / CHARS_PER_TOKEN), 0), source: "estimate" };
}
