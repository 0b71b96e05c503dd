import { describe, expect, it } from "vitest";
import { mapMcpCallResult } from "../../src/mcp/client/toolResult.js";

describe("mapMcpCallResult: structuredContent", () => {
  it("a text block that is the JSON of structuredContent is replaced by one compact JSON block", () => {
    const structured = { temperature: 33, conditions: "Cloudy" };
    expect(mapMcpCallResult({ content: [{ type: "text", text: JSON.stringify(structured, null, 2) }], structuredContent: structured }).content).toEqual([
      { type: "text", text: '{"temperature":33,"conditions":"Cloudy"}' },
    ]);
  });

  it("structuredContent alone becomes JSON text", () => {
    expect(mapMcpCallResult({ content: [], structuredContent: { ok: true } }).content).toEqual([{ type: "text", text: '{"ok":true}' }]);
  });

  it("is not repeated when the text already holds every string of it", () => {
    const out = mapMcpCallResult({ content: [{ type: "text", text: "line 1\nline 2" }], structuredContent: { content: "line 1\nline 2" } });
    expect(out.content).toEqual([{ type: "text", text: "line 1\nline 2" }]);
  });

  it("is kept beside a summary that does not hold it", () => {
    const out = mapMcpCallResult({ content: [{ type: "text", text: "Here is the weather." }], structuredContent: { temperature: 21 } });
    expect(out.content).toEqual([
      { type: "text", text: '{"temperature":21}' },
      { type: "text", text: "Here is the weather." },
    ]);
  });

  it("isError is carried", () => {
    expect(mapMcpCallResult({ content: [{ type: "text", text: "boom" }], isError: true })).toEqual({ content: [{ type: "text", text: "boom" }], isError: true });
  });
});
