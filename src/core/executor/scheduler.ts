import { setMaxListeners } from "node:events";
import type { CanUseToolFn, ToolUseContext } from "../Tool.js";
import type { AssistantMessage, ToolUseBlock } from "../messages.js";
import { findToolByName, getCurrentTools } from "../registry.js";
import { parseToolInput } from "../validation.js";
import { AbortError } from "../errors.js";
import { createAsyncQueue } from "../asyncQueue.js";
import { runToolUse } from "../pipeline/runToolUse.js";
import type { ToolResultUpdate, ToolUseUpdate } from "../pipeline/state.js";
import type { ToolStatusUpdate } from "../pipeline/status.js";

export const DEFAULT_MAX_TOOL_USE_CONCURRENCY = 10;

export function getMaxToolUseConcurrency(context: ToolUseContext): number {
  const configured = context.options.maxToolUseConcurrency ?? Number.parseInt(context.env.TOOLGATE_MAX_TOOL_USE_CONCURRENCY ?? "", 10);
  return Number.isFinite(configured) && configured >= 1 ? Math.floor(configured) : DEFAULT_MAX_TOOL_USE_CONCURRENCY;
}

/** Whether this call may run beside others: false when the tool is unknown, the input does not parse, or the check throws. */
export function isToolUseConcurrencySafe(block: ToolUseBlock, context: ToolUseContext): boolean {
  const tool = findToolByName(getCurrentTools(context), block.name);
  if (!tool) return false;
  try {
    const parsed = parseToolInput(tool.inputSchema, block.input);
    return parsed.success && Boolean(tool.isConcurrencySafe(parsed.data));
  } catch {
    return false;
  }
}

export interface ToolBatch {
  isConcurrencySafe: boolean;
  blocks: ToolUseBlock[];
}

/** The batching rule: consecutive concurrency-safe calls form one batch; every other call is a batch of its own. */
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

export type ExecutorUpdate = ToolUseUpdate | ToolStatusUpdate;

/** A running call of a tool whose `interruptBehavior()` is `block` is left to finish when the user interrupts. */
function finishesWhenInterrupted(block: ToolUseBlock, context: ToolUseContext): boolean {
  try {
    return findToolByName(getCurrentTools(context), block.name)?.interruptBehavior?.() === "block";
  } catch {
    return false;
  }
}

interface ScheduledCall {
  block: ToolUseBlock;
  assistantMessage: AssistantMessage;
  batch: Batch;
  /** Follows the batch's controller; an interrupt aborts it unless the call's tool finishes what it started. */
  controller: AbortController;
  started: boolean;
  result?: ToolResultUpdate;
}

/** A batch as it grows: consecutive safe calls share one, and with it an abort controller for sibling cancellation. */
interface Batch {
  safe: boolean;
  calls: ScheduledCall[];
  controller: AbortController;
  /** Set when the batch's first call starts: the context then current, with the batch's controller. */
  context?: ToolUseContext;
}

export interface ToolCallScheduler {
  /** Schedule one call; it starts as soon as the batching rule and the cap allow. */
  add(block: ToolUseBlock, assistantMessage: AssistantMessage): void;
  /** No more calls will be added; the updates end once every call has its result. */
  close(): void;
  /** Cancel every unfinished call (each still gets its one, cancellation, result). */
  abort(reason?: string): void;
  /**
   * The user interrupted: running calls whose tool's `interruptBehavior()` is `block` finish; every other
   * unfinished call is cancelled with `reason`.
   */
  interrupt(reason: string): void;
  /** Progress and status as they happen, results in the order the calls were added. One consumer. */
  readonly updates: AsyncIterable<ExecutorUpdate>;
  /** The context after the contextModifiers of the calls finished so far. */
  context(): ToolUseContext;
  /** Every result, in order, once all calls are done. */
  readonly done: Promise<ToolResultUpdate[]>;
}

function describeCall(result: ToolResultUpdate, block: ToolUseBlock): string {
  const tool = result.tool;
  let detail = "";
  try {
    detail = tool?.describeInput?.(block.input as never) ?? "";
  } catch {
    detail = "";
  }
  const short = detail.length > 60 ? `${detail.slice(0, 57)}...` : detail;
  return `${tool?.name ?? block.name}${short ? `(${short})` : ""}`;
}

/**
 * The one scheduler behind runTools and the streaming executor. Calls run under the batching rule: a
 * concurrency-safe call starts once every unsafe call before it is done (up to the cap at once); an unsafe
 * call starts once everything before it is done. contextModifiers of unsafe calls apply, in order, before
 * later calls start. A failing call whose tool cancels its siblings aborts the rest of its batch.
 */
export function createToolCallScheduler(
  context: ToolUseContext,
  canUseTool: CanUseToolFn,
  options: { includeStatus?: boolean } = {},
): ToolCallScheduler {
  const cap = getMaxToolUseConcurrency(context);
  const root = new AbortController();
  // Every running call listens (the pipeline, the tool, its hooks): a full batch legitimately exceeds Node's default 10.
  setMaxListeners(Math.max(10, cap * 4), root.signal);
  const forwardParentAbort = () => root.abort(context.abortController.signal.reason);
  if (context.abortController.signal.aborted) forwardParentAbort();
  else context.abortController.signal.addEventListener("abort", forwardParentAbort, { once: true });

  const out = createAsyncQueue<ExecutorUpdate>();
  const calls: ScheduledCall[] = [];
  const batches: Batch[] = [];
  const ours = new Set<string>();
  let current = context;
  let closed = false;
  let flushed = 0;
  let running = 0;
  let interrupted = false;
  let interruptReason: AbortError | undefined;
  let resolveDone!: (results: ToolResultUpdate[]) => void;
  const done = new Promise<ToolResultUpdate[]>((resolve) => (resolveDone = resolve));

  const unsubscribe = options.includeStatus
    ? context.toolStatus?.subscribe((update) => {
        if (ours.has(update.toolUseID)) out.push(update);
      })
    : undefined;

  const newBatch = (safe: boolean): Batch => {
    const controller = new AbortController();
    setMaxListeners(Math.max(10, cap * 4), controller.signal);
    const follow = () => controller.abort(root.signal.reason);
    if (root.signal.aborted) follow();
    else root.signal.addEventListener("abort", follow, { once: true });
    return { safe, calls: [], controller };
  };

  const finishIfComplete = () => {
    if (!closed || flushed < calls.length || out.closed) return;
    context.abortController.signal.removeEventListener("abort", forwardParentAbort);
    unsubscribe?.();
    out.close();
    resolveDone(calls.map((call) => call.result as ToolResultUpdate));
  };

  const flush = () => {
    while (flushed < calls.length && calls[flushed].result) out.push(calls[flushed++].result as ToolResultUpdate);
  };

  const run = async (call: ScheduledCall) => {
    const batch = call.batch;
    batch.context ??= current;
    running++;
    try {
      for await (const update of runToolUse(call.block, call.assistantMessage, canUseTool, { ...batch.context, abortController: call.controller })) {
        if (update.type === "progress") {
          out.push(update);
          continue;
        }
        call.result = update;
        if (update.outcome === "tool_error" && update.tool?.cancelsSiblingsOnError && batch.calls.length > 1 && !batch.controller.signal.aborted) {
          batch.controller.abort(new AbortError(`Cancelled: the parallel tool call ${describeCall(update, call.block)} failed, so this call was stopped.`));
        }
        if (update.contextModifier && !batch.safe) current = update.contextModifier(current);
      }
    } finally {
      running--;
      flush();
      pump();
      finishIfComplete();
    }
  };

  /** Start what may start: the first unfinished batch's waiting calls, up to the cap; once aborted, everything. */
  const pump = () => {
    const aborted = root.signal.aborted || interrupted;
    for (const batch of batches) {
      const limit = batch.safe ? cap : 1;
      for (const call of batch.calls) {
        if (call.started) continue;
        if (!aborted && running >= limit) break;
        call.started = true;
        void run(call);
      }
      if (!aborted && batch.calls.some((call) => !call.result)) return;
    }
  };

  return {
    add(block, assistantMessage) {
      if (closed) throw new Error(`tool call ${block.id} was added after the executor was closed`);
      const safe = isToolUseConcurrencySafe(block, current);
      const last = batches[batches.length - 1];
      const batch = safe && last?.safe ? last : newBatch(safe);
      if (batch !== last) batches.push(batch);
      const controller = new AbortController();
      setMaxListeners(Math.max(10, cap * 4), controller.signal);
      const follow = () => controller.abort(batch.controller.signal.reason);
      if (batch.controller.signal.aborted || interrupted) controller.abort(batch.controller.signal.reason ?? interruptReason);
      else batch.controller.signal.addEventListener("abort", follow, { once: true });
      const call: ScheduledCall = { block, assistantMessage, batch, controller, started: false };
      batch.calls.push(call);
      calls.push(call);
      ours.add(block.id);
      context.toolStatus?.emit({ type: "status", toolUseID: block.id, toolName: String(block.name), status: "queued", at: Date.now() });
      pump();
    },
    close() {
      closed = true;
      finishIfComplete();
    },
    abort(reason) {
      if (!root.signal.aborted) root.abort(reason === undefined ? undefined : new AbortError(reason));
      pump();
    },
    interrupt(reason) {
      if (interrupted || root.signal.aborted) return;
      interrupted = true;
      interruptReason = new AbortError(reason);
      for (const call of calls) {
        if (call.result || (call.started && finishesWhenInterrupted(call.block, current))) continue;
        call.controller.abort(interruptReason);
      }
      pump();
    },
    updates: out,
    context: () => current,
    done,
  };
}
