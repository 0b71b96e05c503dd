import { describe, expect, it } from "vitest";
import { estimateCostUSD, priceOf } from "../../src/agent/cost.js";

const usage = (inputTokens: number, outputTokens: number, cacheCreationInputTokens = 0, cacheReadInputTokens = 0) => ({ inputTokens, outputTokens, cacheCreationInputTokens, cacheReadInputTokens, source: "api" as const });

describe("cost", () => {
  it("prices by the longest matching prefix, so a newer Opus 4.x is not priced as Opus 4", () => {
    expect(priceOf("claude-opus-4-1-20250805")?.input).toBe(15);
    expect(priceOf("claude-opus-4-6")?.input).toBe(5);
    expect(priceOf("claude-opus-5-5")?.input).toBe(4);
    expect(priceOf("claude-opus-5")?.input).toBe(5);
    expect(priceOf("claude-sonnet-5-5-20261001")?.cacheRead).toBe(0.1);
    expect(priceOf("gpt-4o-mini-2024-07-18")?.input).toBe(0.15);
  });

  it("adds every token kind at its rate, and an unknown model has no cost rather than a wrong one", () => {
    // 1M input at $3, 100k output at $15, 200k cache writes at $3.75, 1M cache reads at $0.30
    expect(estimateCostUSD("claude-sonnet-4-5", usage(1_000_000, 100_000, 200_000, 1_000_000))).toBeCloseTo(3 + 1.5 + 0.75 + 0.3, 6);
    expect(estimateCostUSD("claude-haiku-5-5", usage(10_000, 1_000))).toBeCloseTo(0.001 + 0.0005, 9);
    expect(estimateCostUSD("qwen3:8b", usage(1000, 1000))).toBeUndefined();
  });
});
