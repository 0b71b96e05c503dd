/**
 * What a session cost, where the model's list price is known (USD per million tokens, public price lists as of
 * late 2026). Unknown models (local ones, new releases) report no cost rather than a wrong one.
 */
import type { UsageTotals } from "./query.js";
import { canonicalModelName } from "../providers/models.js";

interface Price {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

// Longest prefix wins, so "claude-opus-4-5" is not priced as "claude-opus-4".
// Checked against platform.claude.com/docs/en/about-claude/pricing on 2026-12-03; cache writes at the 5-minute rate.
// Haiku 5.5 is the band for prompts up to 100K tokens (longer prompts cost 5x; totals cannot tell them apart).
const PRICES: ReadonlyArray<[prefix: string, price: Price]> = [
  ["claude-fable-5-1", { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 0.25 }],
  ["claude-fable-5", { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 1 }],
  ["claude-mythos-5-1", { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 0.25 }],
  ["claude-mythos-5", { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 1 }],
  ["claude-opus-5-5", { input: 4, output: 20, cacheWrite: 5, cacheRead: 0.2 }],
  ["claude-opus-5", { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 }],
  ["claude-sonnet-5-5", { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 }],
  ["claude-sonnet-5", { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 }],
  ["claude-haiku-5-5", { input: 0.1, output: 0.5, cacheWrite: 0.125, cacheRead: 0.01 }],
  ["claude-opus-4-8", { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 }],
  ["claude-opus-4-7", { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 }],
  ["claude-opus-4-6", { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 }],
  ["claude-opus-4-5", { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 }],
  ["claude-opus-4", { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 }],
  ["claude-sonnet-4", { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 }],
  ["claude-3-7-sonnet", { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 }],
  ["claude-haiku-4-5", { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 }],
  ["claude-3-5-haiku", { input: 0.8, output: 4, cacheWrite: 1, cacheRead: 0.08 }],
  ["gpt-4o-mini", { input: 0.15, output: 0.6, cacheWrite: 0.15, cacheRead: 0.075 }],
  ["gpt-4o", { input: 2.5, output: 10, cacheWrite: 2.5, cacheRead: 1.25 }],
  ["gpt-4.1-mini", { input: 0.4, output: 1.6, cacheWrite: 0.4, cacheRead: 0.1 }],
  ["gpt-4.1", { input: 2, output: 8, cacheWrite: 2, cacheRead: 0.5 }],
  ["gpt-5-mini", { input: 0.25, output: 2, cacheWrite: 0.25, cacheRead: 0.025 }],
  ["gpt-5", { input: 1.25, output: 10, cacheWrite: 1.25, cacheRead: 0.125 }],
];

/** By the model's canonical name, so Bedrock's and Vertex's ids of a Claude model cost what it lists at. */
export function priceOf(model: string): Price | undefined {
  const name = canonicalModelName(model);
  let best: [string, Price] | undefined;
  for (const entry of PRICES) if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  return best?.[1];
}

/** The cost in USD, rounded to a millionth of a dollar, or undefined for a model without a known price. */
export function estimateCostUSD(model: string, usage: UsageTotals): number | undefined {
  const price = priceOf(model);
  if (!price) return undefined;
  const dollars =
    (usage.inputTokens * price.input + usage.outputTokens * price.output + usage.cacheCreationInputTokens * price.cacheWrite + usage.cacheReadInputTokens * price.cacheRead) / 1_000_000;
  return Math.round(dollars * 1_000_000) / 1_000_000;
}

/**
 * The share of prompt tokens read from the prompt cache (cache reads over all input: uncached, cache reads and
 * cache writes), 0 to 1; undefined before any input. Prompt caching marks the system prompt, the tools and the
 * conversation's tail, so from the second request of a session on most of the prompt should be a hit.
 */
export function cacheHitRate(usage: Pick<UsageTotals, "inputTokens" | "cacheReadInputTokens" | "cacheCreationInputTokens">): number | undefined {
  const all = usage.inputTokens + usage.cacheReadInputTokens + usage.cacheCreationInputTokens;
  return all > 0 ? Math.round((usage.cacheReadInputTokens / all) * 1000) / 1000 : undefined;
}
