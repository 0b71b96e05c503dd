import type { CanUseToolFn, ToolUseContext } from "../Tool.js";
import type { AssistantMessage, ToolUseBlock } from "../messages.js";
import { classifyToolError, formatError } from "../errors.js";
import {
  backfillInput,
  checkNotAborted,
  resolvePermission,
  findTool,
  mapCallResult,
  nextRunEvent,
  parseInput,
  startCall,
  windDown,
  runPostToolUseHooks,
  runPreToolUseHooks,
  validateInput,
  type MaybePromise,
  type StageResult,
} from "./stages.js";
import { createCallState, emitDone, emitStatus, errorBlock, wrapError, type CallState, type ProgressUpdate, type ResolvedCall, type ToolResultUpdate, type ToolUseUpdate } from "./state.js";

/** The stages between finding the tool and calling it, in order; each may end the call with its result. */
export const STAGES_BEFORE_CALL: ReadonlyArray<{ name: string; run: (call: ResolvedCall) => MaybePromise<StageResult> }> = [
  { name: "abort check", run: (call) => checkNotAborted(call) },
  { name: "parse", run: parseInput },
  { name: "backfill", run: backfillInput },
  { name: "validate", run: validateInput },
  { name: "PreToolUse hooks", run: runPreToolUseHooks },
  { name: "permission", run: resolvePermission },
];

/** Everything before the call: the tool found and allowed, or the result that ends the call. */
function prepareCall(state: CallState): MaybePromise<ResolvedCall | ToolResultUpdate> {
  const found = findTool(state);
  if (found instanceof Promise || "type" in found) return found;
  return runStages(found, 0);
}

function runStages(call: ResolvedCall, from: number): MaybePromise<ResolvedCall | ToolResultUpdate> {
  for (let i = from; i < STAGES_BEFORE_CALL.length; i++) {
    const outcome = STAGES_BEFORE_CALL[i].run(call);
    // Only a stage that has something to wait for costs a turn of the event loop.
    if (outcome instanceof Promise) return continueStages(call, outcome, i + 1);
    if (outcome) return outcome;
  }
  return call;
}

function continueStages(call: ResolvedCall, pending: Promise<StageResult>, next: number): Promise<ResolvedCall | ToolResultUpdate> {
  return pending.then((stop) => stop ?? runStages(call, next));
}

function runtimeFailure(state: CallState, content: string, error: unknown): ToolResultUpdate {
  return {
    type: "result",
    toolUseID: state.toolUseID,
    block: errorBlock(state.toolUseID, wrapError(content)),
    tool: (state as Partial<ResolvedCall>).tool,
    outcome: "runtime_error",
    errorLabel: classifyToolError(error),
    notices: [],
    durationMs: Date.now() - state.started,
  };
}

/** `done` goes out just before the result, so a listener never sees a result for a call still "running". */
function announceDone(state: CallState, result: ToolResultUpdate): ToolResultUpdate {
  emitDone(state, result.outcome, result.durationMs);
  try {
    state.context.telemetry?.toolResult({ toolName: result.tool?.name ?? state.toolName, toolUseID: state.toolUseID, outcome: result.outcome, durationMs: result.durationMs, errorLabel: result.errorLabel, tool: result.tool, input: state.toolUse.input });
  } catch {
    // telemetry is best effort
  }
  return result;
}

/**
 * Run one tool_use through the whole pipeline, yielding progress as it happens and exactly one result.
 * Nothing thrown inside — by the tool, a hook, or the runtime — escapes as anything but that result.
 * Status changes (validating, awaiting_permission, running, done) go to `context.toolStatus`.
 * The stages and the call run inline (no nested generators, no promise for a stage that answers at once):
 * a trivial call's overhead is mostly allocation, and GC was a third of it.
 */
export async function* runToolUse(
  toolUse: ToolUseBlock,
  assistantMessage: AssistantMessage,
  canUseTool: CanUseToolFn,
  context: ToolUseContext,
): AsyncGenerator<ToolUseUpdate, void> {
  const state = createCallState(toolUse, assistantMessage, canUseTool, context);
  let result: ToolResultUpdate | undefined;
  // The call's clock starts as it is validated.
  emitStatus(state, "validating", state.started);
  try {
    try {
      const preparing = prepareCall(state);
      const prepared = preparing instanceof Promise ? await preparing : preparing;
      if ("type" in prepared) {
        result = prepared;
      } else {
        const run = startCall(prepared);
        try {
          for (;;) {
            while (run.progress.length > 0) yield run.progress.shift() as ProgressUpdate;
            if (run.finished) break;
            await nextRunEvent(run);
          }
          const grace = windDown(prepared, run);
          if (grace) await grace;
        } finally {
          run.stopWatching();
        }
        const after = runPostToolUseHooks(prepared);
        const stop = after instanceof Promise ? await after : after;
        const mapped = stop ?? mapCallResult(prepared);
        result = mapped instanceof Promise ? await mapped : mapped;
      }
      yield announceDone(state, result);
    } catch (err) {
      if (!result) {
        result = runtimeFailure(state, `Error: toolgate failed while running this tool: ${formatError(err)}`, err);
        yield announceDone(state, result);
      }
    }
  } finally {
    // The consumer stopped before the result: the board must not keep the call in progress forever.
    if (!result) emitDone(state, "cancelled", Date.now() - state.started);
  }
}
