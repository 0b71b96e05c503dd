import { describe, expect, it } from "vitest";
import type { Message } from "../../src/core/messages.js";
import { RECENT_SCREENSHOTS, SCREENSHOT_DROP_STEP, withRecentScreenshots } from "../../src/computer/history.js";

const image = { type: "image" as const, source: { type: "base64" as const, media_type: "image/png" as const, data: "AA==" } };

function conversation(screenshots: number): Message[] {
  const messages: Message[] = [{ role: "user", content: "go" }];
  for (let i = 0; i < screenshots; i++) {
    messages.push({ role: "assistant", content: [{ type: "tool_use", id: `c${i}`, name: "computer", input: { action: "screenshot" } }, { type: "tool_use", id: `r${i}`, name: "Read", input: {} }] });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `c${i}`, content: [{ type: "text", text: `shot ${i}` }, image] }, { type: "tool_result", tool_use_id: `r${i}`, content: [image] }] });
  }
  return messages;
}

type Result = { type: string; tool_use_id?: string; content?: unknown };
const images = (messages: Message[], prefix: string) =>
  messages
    .flatMap((m): Result[] => (typeof m.content === "string" ? [] : (m.content as Result[])))
    .filter((b) => b.type === "tool_result" && b.tool_use_id!.startsWith(prefix) && Array.isArray(b.content) && (b.content as Array<{ type: string }>).some((c) => c.type === "image")).length;

describe("older screenshots in requests", () => {
  it("keeps every screenshot up to the limit and one step over it", () => {
    const messages = conversation(RECENT_SCREENSHOTS + SCREENSHOT_DROP_STEP - 1);
    expect(withRecentScreenshots(messages)).toEqual(messages);
  });

  it("drops the oldest computer screenshots a step at a time, leaves other tools' images and the input alone", () => {
    const messages = conversation(RECENT_SCREENSHOTS + SCREENSHOT_DROP_STEP + 2);
    const copy = structuredClone(messages);
    const sent = withRecentScreenshots(messages);
    expect(messages).toEqual(copy);
    expect(images(sent, "c")).toBe(RECENT_SCREENSHOTS + 2);
    expect(images(sent, "r")).toBe(RECENT_SCREENSHOTS + SCREENSHOT_DROP_STEP + 2);
    const first = sent[2].content as Array<{ content: Array<{ type: string; text?: string }> }>;
    expect(first[0].content.map((c) => c.text ?? c.type)).toEqual(["shot 0", expect.stringContaining("older screenshot was left out")]);
    // One more turn: the same screenshots are dropped, so the start of the request is unchanged (prompt cache).
    const next = withRecentScreenshots(conversation(RECENT_SCREENSHOTS + SCREENSHOT_DROP_STEP + 3));
    expect(next.slice(0, sent.length)).toEqual(sent);
  });
});
