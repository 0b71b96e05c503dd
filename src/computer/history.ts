/**
 * Screenshots pile up: each is an image the model reads again on every turn. Requests keep the most recent ones
 * and replace older computer screenshots with a short note. They are dropped in steps, so the start of the
 * conversation stays the same for several turns in a row and the prompt cache keeps working.
 */
import type { Message, ToolResultBlockParam, ToolResultContentBlock, ToolUseBlock } from "../core/messages.js";

/** At most this many computer screenshots stay in a request (plus up to one step more). */
export const RECENT_SCREENSHOTS = 10;
/** Older screenshots are dropped this many at a time. */
export const SCREENSHOT_DROP_STEP = 5;

const NOTE = "[An older screenshot was left out to save context; take a new one if you need it.]";

/** The messages with all but the most recent computer screenshots replaced by a note; the input is not changed. */
export function withRecentScreenshots(messages: readonly Message[], toolName = "computer", keep = RECENT_SCREENSHOTS, step = SCREENSHOT_DROP_STEP): Message[] {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const block of message.content) if (block.type === "tool_use" && (block as ToolUseBlock).name === toolName) ids.add((block as ToolUseBlock).id);
  }
  if (!ids.size) return [...messages];
  const isScreenshotResult = (b: { type: string }): b is ToolResultBlockParam =>
    b.type === "tool_result" && ids.has((b as ToolResultBlockParam).tool_use_id) && Array.isArray((b as ToolResultBlockParam).content);
  let total = 0;
  for (const message of messages) {
    if (message.role !== "user" || typeof message.content === "string") continue;
    for (const block of message.content) if (isScreenshotResult(block)) total += (block.content as Array<{ type: string }>).filter((c) => c.type === "image").length;
  }
  let drop = total - keep;
  drop -= drop % step;
  if (drop <= 0) return [...messages];
  return messages.map((message) => {
    if (drop <= 0 || message.role !== "user" || typeof message.content === "string") return message;
    const content = message.content.map((block) => {
      if (drop <= 0 || !isScreenshotResult(block)) return block;
      const inner = (block.content as ToolResultContentBlock[]).map((c): ToolResultContentBlock => {
        if (drop <= 0 || c.type !== "image") return c;
        drop--;
        return { type: "text", text: NOTE };
      });
      return { ...block, content: inner } as typeof block;
    });
    return { ...message, content } as Message;
  });
}
