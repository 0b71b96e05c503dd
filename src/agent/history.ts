/**
 * Keeps a conversation valid for the API: every tool_use is answered by exactly one tool_result in the message
 * right after it. A history loaded after a crash (or built by a caller) may break that; a broken one would be
 * refused on every request from then on, so it is repaired here and each repair is reported.
 */
import type { AssistantContentBlock, Message, TextBlock, ToolResultBlockParam, ToolUseBlock, UserMessage } from "../core/messages.js";

/** How the summary message a compaction puts first in the history begins. */
export const COMPACTION_HEAD = "This session was compacted:";

/** The tag around what a `!command` of the person's printed, sent with their next prompt: context, not their words. */
export const SHELL_CONTEXT_TAG = "user-shell-command";

/** The tag around a file an `@path` in the prompt attached. */
export const ATTACHED_FILE_TAG = "attached-file";

/** The tag around an MCP resource an `@server:uri` in the prompt attached. */
export const ATTACHED_RESOURCE_TAG = "mcp-resource";

/** Text blocks the runtime adds to a prompt, which are not what the person wrote. */
const ADDED_CONTEXT = ["<system-reminder>", `<${SHELL_CONTEXT_TAG}>`, `<${ATTACHED_FILE_TAG} `, `<${ATTACHED_RESOURCE_TAG} `];

export const INTERRUPTED_RESULT = "The session ended before this tool call finished (it was interrupted); it may have partly run.";

type UserBlock = Exclude<UserMessage["content"], string>[number];

/** The text of a message's text blocks, joined. */
export function textOf(blocks: ReadonlyArray<AssistantContentBlock | UserBlock>): string {
  return blocks.flatMap((b) => (b.type === "text" && typeof b.text === "string" ? [b.text] : [])).join("");
}

/** A user message that is a prompt (the user's words), not a message of tool results. */
export function isPrompt(message: Message): boolean {
  if (message.role !== "user") return false;
  return typeof message.content === "string" || !message.content.some((b) => b.type === "tool_result");
}

/** What the user wrote in a prompt, without the context hooks added to it; undefined for anything else. */
export function promptText(message: Message): string | undefined {
  if (!isPrompt(message)) return undefined;
  const content = (message as UserMessage).content;
  if (typeof content === "string") return content;
  const text = content.flatMap((b) => (b.type === "text" && !ADDED_CONTEXT.some((tag) => b.text.startsWith(tag)) ? [b.text] : [])).join("\n");
  return text || undefined;
}

function toolUseIds(content: readonly AssistantContentBlock[]): string[] {
  return content.filter((b): b is ToolUseBlock => b.type === "tool_use").map((b) => b.id);
}

function placeholder(id: string): ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: id, content: `<tool_use_error>${INTERRUPTED_RESULT}</tool_use_error>`, is_error: true };
}

function blocksOf(message: UserMessage): UserBlock[] {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : [...message.content];
}

/** Repairs `messages` in place; returns one sentence per repair (empty when the history was valid). */
export function repairHistory(messages: Message[]): string[] {
  const problems: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message.role === "assistant") {
      if (message.content.length === 0) {
        messages.splice(i--, 1);
        problems.push("an empty assistant message was dropped");
        continue;
      }
      const ids = toolUseIds(message.content);
      if (ids.length === 0) continue;
      const next = messages[i + 1];
      if (next?.role !== "user") {
        messages.splice(i + 1, 0, { role: "user", content: ids.map(placeholder) });
        problems.push(`${ids.length} tool call(s) without a result got an interruption result (${ids.join(", ")})`);
        i++;
        continue;
      }
      const blocks = blocksOf(next);
      const results = new Map<string, ToolResultBlockParam>();
      const others: UserBlock[] = [];
      for (const block of blocks) {
        if (block.type !== "tool_result") others.push(block);
        else if (!ids.includes(block.tool_use_id)) problems.push(`a tool_result for ${block.tool_use_id}, which no tool call asked for, was dropped`);
        else if (results.has(block.tool_use_id)) problems.push(`a second tool_result for ${block.tool_use_id} was dropped`);
        else results.set(block.tool_use_id, block);
      }
      const missing = ids.filter((id) => !results.has(id));
      if (missing.length) problems.push(`${missing.length} tool call(s) without a result got an interruption result (${missing.join(", ")})`);
      const repaired: UserBlock[] = [...ids.map((id) => results.get(id) ?? placeholder(id)), ...others];
      const inOrder = blocks.length === repaired.length && blocks.every((b, k) => b === repaired[k]);
      if (!inOrder) messages[i + 1] = { role: "user", content: repaired };
      i++;
      continue;
    }
    // A user message not right after a tool call: any tool_result in it answers nothing.
    if (typeof message.content === "string") continue;
    const orphans = message.content.filter((b) => b.type === "tool_result");
    if (!orphans.length) continue;
    for (const orphan of orphans) problems.push(`a tool_result for ${(orphan as ToolResultBlockParam).tool_use_id}, which no tool call asked for, was dropped`);
    const kept = message.content.filter((b) => b.type !== "tool_result");
    if (kept.length) messages[i] = { role: "user", content: kept };
    else messages.splice(i--, 1);
  }
  return problems;
}
