import { describe, expect, it } from "vitest";
import { buildAnthropicRequest, CHAT_REASONING_MARK, REASONING_SIGNATURE_PREFIX } from "../../src/providers/index.js";

describe("a session that changes provider", () => {
  it("sends Anthropic only the thinking blocks Anthropic signed", () => {
    const body = buildAnthropicRequest({
      model: "claude-sonnet-4-5",
      messages: [
        { role: "user", content: "q" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "from DeepSeek", signature: `${CHAT_REASONING_MARK}{"field":"reasoning_content"}` },
            { type: "thinking", thinking: "from the Responses API", signature: `${REASONING_SIGNATURE_PREFIX}{"type":"reasoning"}` },
            { type: "thinking", thinking: "unsigned (an older session)", signature: "" },
            { type: "thinking", thinking: "from Claude", signature: "EqQBCkYIBRgCKkA" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "text", text: "answer" },
          ],
        },
        { role: "user", content: "next" },
      ],
    }) as { messages: Array<{ content: Array<{ type: string; thinking?: string }> }> };
    expect(body.messages[1].content.map((b) => b.thinking ?? b.type)).toEqual(["from Claude", "redacted_thinking", "text"]);
  });
});
