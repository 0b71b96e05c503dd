/**
 * Bedrock's and Vertex's ids of a Claude model are the same model to toolgate: the limits table, the native text
 * editor type and the price list read them as the Anthropic API's name.
 */
import { describe, expect, it } from "vitest";
import { buildAnthropicRequest, canonicalModelName, lookupModel } from "../../src/providers/index.js";
import { nativeTextEditorType } from "../../src/providers/anthropic.js";
import { priceOf } from "../../src/agent/cost.js";

const SAME_MODEL = [
  "claude-sonnet-4-5-20250929",
  "claude-sonnet-4-5@20250929",
  "anthropic.claude-sonnet-4-5-20250929-v1:0",
  "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
  "eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
  "apac.anthropic.claude-sonnet-4-5-20250929-v1:0",
  "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
  "us-gov.anthropic.claude-sonnet-4-5-20250929-v1:0",
  "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
];

describe("platform model ids", () => {
  it("all name claude-sonnet-4-5-20250929", () => {
    for (const id of SAME_MODEL) expect(canonicalModelName(id), id).toBe("claude-sonnet-4-5-20250929");
    expect(canonicalModelName("anthropic.claude-3-5-sonnet-20241022-v2:0")).toBe("claude-3-5-sonnet-20241022");
    // Names of other models are left alone (lower-cased), tags included.
    expect(canonicalModelName("openai/gpt-4o")).toBe("gpt-4o");
    expect(canonicalModelName("qwen3:8b")).toBe("qwen3:8b");
    expect(canonicalModelName("us.meta.llama3-1-70b-instruct-v1:0")).toBe("us.meta.llama3-1-70b-instruct-v1:0");
  });

  it("get Claude's limits, text editor type and price, and so the request's max_tokens", () => {
    for (const id of SAME_MODEL) {
      expect(lookupModel(id), id).toMatchObject({ contextWindow: 200_000, maxOutputTokens: 64_000, source: "table" });
      expect(nativeTextEditorType(id), id).toBe("text_editor_20250728");
      expect(priceOf(id), id).toEqual(priceOf("claude-sonnet-4-5"));
    }
    expect(nativeTextEditorType("us.anthropic.claude-3-7-sonnet-20250219-v1:0")).toBe("text_editor_20250124");
    expect(nativeTextEditorType("claude-3-5-haiku@20241022")).toBeUndefined();
    expect(lookupModel("claude-haiku-4-5@20251001")).toMatchObject({ maxOutputTokens: 64_000 });
    const body = buildAnthropicRequest({ model: "us.anthropic.claude-opus-4-5-20251101-v1:0", messages: [{ role: "user", content: "hi" }] });
    expect(body.max_tokens).toBe(64_000);
  });
});
