import { setMaxListeners } from "node:events";
import type { AnyTool, CanUseToolFn, ToolUseContext } from "./Tool.js";
import type { AssistantMessage, ToolResultBlockParam, ToolUseBlock, UserMessage, TextBlock } from "./messages.js";
import { findToolByName, getCurrentTools } from "./registry.js";
import { parseToolInput } from "./validation.js";
import { AbortError } from "./errors.js";
import { createAsyncQueue } from "./asyncQueue.js";
import { runToolUse, type ToolResultUpdate, type ToolUseUpdate } from "./runToolUse.js";
import { applyToolResultBudget } from "./results.js";

export const DEFAULT_MAX_TOOL_USE_CONCURRENCY = 10;

/** Tools whose failure inside a parallel batch cancels the siblings still running. */
const SIBLING_CANCELLING_TOOLS = new Set(["Bash"]);

export interface ToolBatch {
  isConcurrencySafe: boolean;
  blocks: ToolUseBlock[];
}

export function getMaxToolUseConcurrency(context: ToolUseContext): number {
  const configured = context.options.maxToolUseConcurrency ?? Number.parseInt(context.env.TOOLGATE_MAX_TOOL_USE_CONCURRENCY ?? "", 10);
  return Number.isFinite(configured) && configured >= 1 ? Math.floor(configured) : DEFAULT_MAX_TOOL_USE_CONCURRENCY;
}

/** Whether this call may run beside others: false when the tool is unknown, the input does not parse, or the check throws. */
export function isToolUseConcurrencySafe(block: ToolUseBlock, context: ToolUseContext): boolean {
  const tools = getCurrentTools(context);
  const tool = findToolByName(tools, block.name);
  if (!tool) return false;
  try {
    const parsed = parseToolInput(tool.inputSchema, block.input);
    return parsed.success && Boolean(tool.isConcurrencySafe(parsed.data));
  } catch {
    return false;
  }
}

/** Consecutive concurrency-safe calls form one batch; every other call is a batch of its own. */
export function partitionToolCalls(blocks: readonly ToolUseBlock[], context: ToolUseContext): ToolBatch[] {
  const batches: ToolBatch[] = [];
  for (const block of blocks) {
    const safe = isToolUseConcurrencySafe(block, context);
    const last = batches[batches.length - 1];
    if (safe && last?.isConcurrencySafe) last.blocks.push(block);
    else batches.push({ isConcurrencySafe: safe, blocks: [block] });
  }
  return batches;
}

function describeCall(tool: AnyTool | undefined, block: ToolUseBlock): string {
  const input = block.input as { command?: unknown; description?: unknown } | null;
  const detail = typeof input?.command === "string" ? input.command : typeof input?.description === "string" ? input.description : "";
  const short = detail.length > 60 ? `${detail.slice(0, 57)}...` : detail;
  return `${tool?.name ?? block.name}${short ? `(${short})` : ""}`;
}

/** A child controller that follows its parent's abort. */
function childAbortController(parent: AbortController, cap: number): { controller: AbortController; dispose(): void } {
  const controller = new AbortController();
  // Every running call listens (the pipeline, the tool, its hooks): a full batch legitimately exceeds Node's default 10.
  setMaxListeners(Math.max(10, cap * 4), controller.signal);
  const forward = () => controller.abort(parent.signal.reason);
  if (parent.signal.aborted) forward();
  else parent.signal.addEventListener("abort", forward, { once: true });
  return { controller, dispose: () => parent.signal.removeEventListener("abort", forward) };
}

/**
 * Run one batch: up to `cap` calls at once, progress forwarded as it arrives, results yielded in block order.
 * A failing Bash call cancels the siblings still running or queued.
 */
async function* runBatch(
  batch: ToolBatch,
  assistantMessage: AssistantMessage,
  canUseTool: CanUseToolFn,
  context: ToolUseContext,
  cap: number,
): AsyncGenerator<ToolUseUpdate, void> {
  const { controller, dispose } = childAbortController(context.abortController, cap);
  const batchContext: ToolUseContext = { ...context, abortController: controller };
  const events = createAsyncQueue<ToolUseUpdate>();
  const results = new Map<string, ToolResultUpdate>();
  let next = 0;
  let yieldedUpTo = 0;

  const worker = async () => {
    while (next < batch.blocks.length) {
      const block = batch.blocks[next++];
      for await (const update of runToolUse(block, assistantMessage, canUseTool, batchContext)) {
        events.push(update);
        if (
          update.type === "result" &&
          update.outcome === "tool_error" &&
          batch.blocks.length > 1 &&
          update.tool &&
          SIBLING_CANCELLING_TOOLS.has(update.tool.name) &&
          !controller.signal.aborted
        ) {
          controller.abort(new AbortError(`Cancelled: the parallel tool call ${describeCall(update.tool, block)} failed, so this call was stopped.`));
        }
      }
    }
  };

  const workers = Array.from({ length: Math.min(cap, batch.blocks.length) }, worker);
  void Promise.all(workers).finally(() => events.close());
  try {
    for await (const update of events) {
      if (update.type === "progress") {
        yield update;
        continue;
      }
      results.set(update.toolUseID, update);
      while (yieldedUpTo < batch.blocks.length && results.has(batch.blocks[yieldedUpTo].id)) {
        yield results.get(batch.blocks[yieldedUpTo].id) as ToolResultUpdate;
        yieldedUpTo++;
      }
    }
  } finally {
    dispose();
  }
}

/**
 * Run every tool_use of one assistant message: batches in order, results in block order, progress as it
 * happens. contextModifiers are honoured only for calls that are not concurrency-safe, applied after their
 * batch in block order. Yields updates; returns the context the next turn should use.
 */
export async function* runTools(
  toolUses: readonly ToolUseBlock[],
  assistantMessage: AssistantMessage,
  canUseTool: CanUseToolFn,
  context: ToolUseContext,
): AsyncGenerator<ToolUseUpdate, ToolUseContext> {
  let current = context;
  const cap = getMaxToolUseConcurrency(context);
  for (const batch of partitionToolCalls(toolUses, current)) {
    const modifiers: Array<NonNullable<ToolResultUpdate["contextModifier"]>> = [];
    for await (const update of runBatch(batch, assistantMessage, canUseTool, current, batch.isConcurrencySafe ? cap : 1)) {
      if (update.type === "result" && update.contextModifier && !batch.isConcurrencySafe) modifiers.push(update.contextModifier);
      yield update;
    }
    for (const modify of modifiers) current = modify(current);
  }
  return current;
}

export interface ToolResultMessageResult {
  message: UserMessage;
  results: ToolResultUpdate[];
  context: ToolUseContext;
  preventContinuation?: { reason: string };
}

/**
 * Run all tool_uses of an assistant message and build the user message that answers it: one tool_result per
 * tool_use, in order, under the per-message size budget. `onProgress` sees progress and results as they happen.
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
  const blocks: ToolResultBlockParam[] = await applyToolResultBudget(
    results.map((r) => ({ block: r.block, tool: r.tool })),
    step.value,
  );
  const stop = results.find((r) => r.preventContinuation)?.preventContinuation;
  const content: Array<ToolResultBlockParam | TextBlock> = [...blocks];
  if (stop) content.push({ type: "text", text: `A hook stopped this turn: ${stop.reason}` });
  return { message: { role: "user", content }, results, context: step.value, preventContinuation: stop };
}
