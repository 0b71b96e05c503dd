/**
 * The task list across turns: restoring it from a resumed history (it lives in TodoWrite's tool_use inputs) and
 * reminding the model of it when it has gone stale.
 */
import type { TodoItem, Tools } from "../core/Tool.js";
import type { Message } from "../core/messages.js";
import { TODO_WRITE_TOOL_NAME } from "../tools/TodoWrite/prompt.js";
import { COMPACTION_HEAD } from "./history.js";

/** Model turns without a TodoWrite call, while items are open, before the model is reminded of its list. */
export const TODO_REMINDER_TURNS = 10;

const REMINDER_HEAD = "Your task list (TodoWrite) has not been updated";

const STATUSES = new Set(["pending", "in_progress", "completed"]);

function isTodoList(value: unknown): value is TodoItem[] {
  return (
    Array.isArray(value) &&
    value.every((t) => t && typeof t === "object" && typeof t.content === "string" && typeof t.activeForm === "string" && STATUSES.has(t.status))
  );
}

function resultsOf(message: Message | undefined): Map<string, boolean> {
  const results = new Map<string, boolean>();
  if (!message || message.role !== "user" || typeof message.content === "string") return results;
  for (const block of message.content) if (block.type === "tool_result") results.set(block.tool_use_id, block.is_error === true);
  return results;
}

const COMPACTED_LIST = /<todos>(\[[\s\S]*?\])<\/todos>/;

/**
 * The task list as compaction writes it into the summary message, so the model keeps seeing it and a resumed
 * session gets it back: JSON inside `<todos>`, with `<` escaped so an item's text cannot close the tag.
 */
export function compactedTodoList(todos: readonly TodoItem[]): string {
  const json = JSON.stringify(todos.map((t) => ({ content: t.content, status: t.status, activeForm: t.activeForm }))).replace(/</g, "\\u003c");
  return `Your task list (TodoWrite) when the conversation was compacted; keep it current with TodoWrite:\n<todos>${json}</todos>`;
}

/** The list in a compaction's summary message (only there: a prompt quoting the tag is not a task list). */
function compactedTodos(message: Message): TodoItem[] | undefined {
  if (message.role !== "user" || typeof message.content === "string") return undefined;
  const first = message.content[0];
  if (first?.type !== "text" || !first.text.startsWith(COMPACTION_HEAD)) return undefined;
  for (const block of message.content) {
    const found = block.type === "text" ? COMPACTED_LIST.exec(block.text) : null;
    if (!found) continue;
    try {
      const todos: unknown = JSON.parse(found[1]);
      if (isTodoList(todos)) return todos.map((t) => ({ content: t.content, status: t.status, activeForm: t.activeForm }));
    } catch {
      // not ours
    }
  }
  return undefined;
}

/**
 * The list the last successful TodoWrite call saved, or the one a compaction kept (its summary message leads
 * the history), or undefined when the history has neither.
 */
export function latestTodos(messages: readonly Message[]): TodoItem[] | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role !== "assistant") {
      if (i === 0) return compactedTodos(message);
      continue;
    }
    const results = resultsOf(messages[i + 1]);
    const calls = message.content.filter((b) => b.type === "tool_use" && b.name === TODO_WRITE_TOOL_NAME);
    for (const call of calls.reverse()) {
      if (call.type !== "tool_use" || results.get(call.id as string) !== false) continue;
      const todos = (call.input as { todos?: unknown } | null)?.todos;
      if (isTodoList(todos)) return todos.map((t) => ({ content: t.content, status: t.status, activeForm: t.activeForm }));
    }
  }
  return undefined;
}

function mentionsReminder(message: Message): boolean {
  return message.role === "user" && typeof message.content !== "string" && message.content.some((b) => b.type === "text" && b.text.includes(REMINDER_HEAD));
}

/**
 * A system-reminder for the next request when items are open and the model has made TODO_REMINDER_TURNS
 * requests since it last called TodoWrite (or was last reminded); undefined otherwise. Quiet by design: no
 * nudge for an empty list.
 */
export function todoReminder(messages: readonly Message[], todos: readonly TodoItem[], tools: Tools, every = TODO_REMINDER_TURNS): string | undefined {
  if (!todos.some((t) => t.status !== "completed")) return undefined;
  if (!tools.some((t) => t.name === TODO_WRITE_TOOL_NAME)) return undefined;
  // Turns since the model last wrote the list, and since it was last reminded (reminders come every `every` turns).
  let turns = 0;
  let sinceReminder: number | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (sinceReminder === undefined && mentionsReminder(message)) sinceReminder = turns;
    if (message.role !== "assistant") continue;
    if (message.content.some((b) => b.type === "tool_use" && b.name === TODO_WRITE_TOOL_NAME)) break;
    turns++;
  }
  if ((sinceReminder ?? turns) < every) return undefined;
  const list = todos.map((t) => `- [${t.status}] ${t.content}`).join("\n");
  return `<system-reminder>\n${REMINDER_HEAD} for ${turns} turns. Its items:\n${list}\nIf it is out of date, update it with TodoWrite (mark finished items completed, the current one in_progress); if it is current, carry on. Do not mention this reminder to the user.\n</system-reminder>`;
}
