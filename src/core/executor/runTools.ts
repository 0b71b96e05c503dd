import type { CanUseToolFn, ToolUseContext } from "../Tool.js";
import type { AssistantMessage, TextBlock, ToolResultBlockParam, ToolUseBlock, UserMessage } from "../messages.js";
import { applyToolResultBudget } from "../results.js";
import type { ToolResultUpdate, ToolUseUpdate } from "../pipeline/state.js";
import { createToolCallScheduler } from "./scheduler.js";

/**
 * Run every tool_use of one finished assistant message: batches in order, results in block order, progress as
 * it happens. contextModifiers are honoured only for calls that are not concurrency-safe, applied in block
 * order before later calls start. Yields updates; returns the context the next turn should use.
 */
export async function* runTools(
  toolUses: readonly ToolUseBlock[],
  assistantMessage: AssistantMessage,
  canUseTool: CanUseToolFn,
  context: ToolUseContext,
): AsyncGenerator<ToolUseUpdate, ToolUseContext> {
  const scheduler = createToolCallScheduler(context, canUseTool);
  for (const block of toolUses) scheduler.add(block, assistantMessage);
  scheduler.close();
  for await (const update of scheduler.updates) {
    if (update.type !== "status") yield update;
  }
  return scheduler.context();
}

export interface ToolResultMessageResult {
  message: UserMessage;
  results: ToolResultUpdate[];
  context: ToolUseContext;
  preventContinuation?: { reason: string };
}

/** The user message answering a set of results: one tool_result per tool_use, in order, under the size budget. */
export async function buildToolResultMessage(results: ToolResultUpdate[], context: ToolUseContext): Promise<ToolResultMessageResult> {
  const blocks: ToolResultBlockParam[] = await applyToolResultBudget(
    results.map((r) => ({ block: r.block, tool: r.tool })),
    context,
  );
  const stop = results.find((r) => r.preventContinuation)?.preventContinuation;
  const content: Array<ToolResultBlockParam | TextBlock> = [...blocks];
  if (stop) content.push({ type: "text", text: `A hook stopped this turn: ${stop.reason}` });
  return { message: { role: "user", content }, results, context, preventContinuation: stop };
}

/**
 * Run all tool_uses of an assistant message and build the user message that answers it. `onUpdate` sees
 * progress and results as they happen.
 */
export async function runToolsToMessage(
  toolUses: readonly ToolUseBlock[],
  assistantMessage: AssistantMessage,
  canUseTool: CanUseToolFn,
  context: ToolUseContext,
  onUpdate?: (update: ToolUseUpdate) => void,
): Promise<ToolResultMessageResult> {
  const results: ToolResultUpdate[] = [];
  const generator = runTools(toolUses, assistantMessage, canUseTool, context);
  let step = await generator.next();
  while (!step.done) {
    if (step.value.type === "result") results.push(step.value);
    onUpdate?.(step.value);
    step = await generator.next();
  }
  return buildToolResultMessage(results, step.value);
}
