import type { CanUseToolFn, ToolUseContext } from "../Tool.js";
import type { AssistantMessage, ToolUseBlock } from "../messages.js";
import { classifyToolError, formatError } from "../errors.js";
import {
  backfillInput,
  callTool,
  checkNotAborted,
  resolvePermission,
  findTool,
  mapResult,
  parseInput,
  runPostToolUseHooks,
  runPreToolUseHooks,
  validateInput,
  type MaybePromise,
  type StageResult,
} from "./stages.js";
import { createCallState, emitStatus, errorBlock, wrapError, type CallState, type ProgressUpdate, type ResolvedCall, type ToolResultUpdate, type ToolUseUpdate } from "./state.js";

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
async function prepareCall(state: CallState): Promise<ResolvedCall | ToolResultUpdate> {
  const lookup = findTool(state);
  const found = lookup instanceof Promise ? await lookup : lookup;
  if ("type" in found) return found;
  for (const stage of STAGES_BEFORE_CALL) {
    const outcome = stage.run(found);
    // Only a stage that has something to wait for costs a turn of the event loop.
    const stop = outcome instanceof Promise ? await outcome : outcome;
    if (stop) return stop;
  }
  return found;
}

/** The call itself, streaming progress, then what follows it; returns the call's result. */
async function* runCall(call: ResolvedCall): AsyncGenerator<ProgressUpdate, ToolResultUpdate> {
  yield* callTool(call);
  const after = runPostToolUseHooks(call);
  return (after instanceof Promise ? await after : after) ?? (await mapResult(call));
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

/**
 * Run one tool_use through the whole pipeline, yielding progress as it happens and exactly one result.
 * Nothing thrown inside — by the tool, a hook, or the runtime — escapes as anything but that result.
 * Status changes (validating, awaiting_permission, running, done) go to `context.toolStatus`.
 */
export async function* runToolUse(
  toolUse: ToolUseBlock,
  assistantMessage: AssistantMessage,
  canUseTool: CanUseToolFn,
  context: ToolUseContext,
): AsyncGenerator<ToolUseUpdate, void> {
  const state = createCallState(toolUse, assistantMessage, canUseTool, context);
  let result: ToolResultUpdate | undefined;
  let announced = false;
  /** `done` goes out just before the result, so a listener never sees a result for a call still "running". */
  const conclude = (update: ToolResultUpdate) => {
    result = update;
    announced = true;
    emitStatus(state, "done", { outcome: update.outcome, durationMs: update.durationMs });
    return update;
  };
  emitStatus(state, "validating");
  try {
    try {
      const prepared = await prepareCall(state);
      yield conclude("type" in prepared ? prepared : yield* runCall(prepared));
    } catch (err) {
      if (!result) yield conclude(runtimeFailure(state, `Error: toolgate failed while running this tool: ${formatError(err)}`, err));
    }
  } finally {
    // The consumer stopped before the result: the board must not keep the call in progress forever.
    if (!announced) emitStatus(state, "done", { outcome: "cancelled", durationMs: Date.now() - state.started });
  }
}
