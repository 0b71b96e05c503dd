import type { AssistantMessage, ToolUseBlock } from "../core/messages.js";

/**
 * One stdin line of `toolgate exec`, classified. Parsing is pure and total: every possible input
 * (any JSON, or none) becomes exactly one of these.
 */
export type ExecRequest =
  | { kind: "tools"; message: AssistantMessage; toolUses: ToolUseBlock[] }
  | { kind: "rewind"; messageId: string }
  | { kind: "blank" }
  | { kind: "malformed"; error: string };

const MAX_QUOTED = 120;

function quote(text: string): string {
  return JSON.stringify(text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text);
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Validate the tool_use blocks of a message: each needs a unique non-empty string id and a string name. */
function collectToolUses(
  content: unknown[],
  where: (index: number) => string = (index) => `content[${index}]`,
): { toolUses: ToolUseBlock[] } | { error: string } {
  const toolUses: ToolUseBlock[] = [];
  const ids = new Set<string>();
  for (const [index, block] of content.entries()) {
    if (!isObject(block)) return { error: `${where(index)} must be an object, got ${describeType(block)}` };
    if (block.type !== "tool_use") continue;
    if (typeof block.id !== "string" || block.id === "") {
      return { error: `${where(index)} has no string "id"; every tool_use needs one so its tool_result can refer to it` };
    }
    if (ids.has(block.id)) return { error: `${where(index)} repeats tool_use id ${quote(block.id)}; ids must be unique` };
    if (typeof block.name !== "string" || block.name === "") {
      return { error: `${where(index)} (tool_use ${quote(block.id)}) has no string "name"` };
    }
    ids.add(block.id);
    toolUses.push({ type: "tool_use", id: block.id, name: block.name, input: block.input });
  }
  return { toolUses };
}

export function parseExecLine(line: string): ExecRequest {
  if (line.trim() === "") return { kind: "blank" };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { kind: "malformed", error: `not valid JSON (${(err as Error).message}): ${quote(line.trim())}` };
  }
  if (!isObject(value)) {
    return {
      kind: "malformed",
      error: `expected an assistant message or a tool_use block (a JSON object), got ${describeType(value)}`,
    };
  }
  if (value.type === "rewind") {
    if (typeof value.message_id !== "string" || value.message_id === "") {
      return { kind: "malformed", error: `a rewind request needs a string "message_id"` };
    }
    return { kind: "rewind", messageId: value.message_id };
  }
  if (value.type === "tool_use") {
    const collected = collectToolUses([value], () => "the tool_use block");
    if ("error" in collected) return { kind: "malformed", error: collected.error };
    const [toolUse] = collected.toolUses;
    return { kind: "tools", message: { role: "assistant", id: toolUse.id, content: [toolUse] }, toolUses: collected.toolUses };
  }
  if (value.role === "assistant") {
    if (!Array.isArray(value.content)) {
      return { kind: "malformed", error: `an assistant message needs a "content" array, got ${describeType(value.content)}` };
    }
    const collected = collectToolUses(value.content);
    if ("error" in collected) return { kind: "malformed", error: collected.error };
    const id = typeof value.id === "string" && value.id !== "" ? value.id : collected.toolUses[0]?.id;
    const message: AssistantMessage = { role: "assistant", id, content: value.content as AssistantMessage["content"] };
    return { kind: "tools", message, toolUses: collected.toolUses };
  }
  const hint = typeof value.role === "string" ? `role ${quote(value.role)}` : typeof value.type === "string" ? `type ${quote(value.type)}` : "no role or type";
  return {
    kind: "malformed",
    error: `expected {"role":"assistant","content":[…]}, a {"type":"tool_use",…} block or {"type":"rewind","message_id":…}; got an object with ${hint}`,
  };
}

export function formatExecError(lineNumber: number, error: string): string {
  return JSON.stringify({ type: "error", line: lineNumber, error });
}
