/**
 * The pipeline's stages, in order: find → abort check → parse → backfill → validate → PreToolUse hooks →
 * permission → call → PostToolUse hooks → map. Each reads and writes one call's state; a stage that ends the
 * call returns its result (after telling the hooks, so an audit hook sees every call), otherwise undefined.
 */
import { isDeepStrictEqual } from "node:util";
import type { AnyObject, AnyTool, SpeculativeRun, ToolResult, ToolUseContext, HookRunner, HookToolIdentity } from "../Tool.js";
import type { PermissionDecision } from "../permissionTypes.js";
import { describeUnavailableMcpServer, findToolByName, getCurrentTools, isDeferredTool } from "../registry.js";
import { suggestToolName } from "../toolNames.js";
import { formatZodIssues, parseToolInput } from "../validation.js";
import { AbortError, classifyToolError, formatError, isAbortError } from "../errors.js";
import { trackWorkspaceWrites } from "./workspaceTracking.js";
import { mapToolResultToToolResultBlockParam, maybePersistLargeToolResult, persistenceThreshold, toolResultTextLength } from "../results.js";
import type { ToolResultBlockParam } from "../messages.js";
import { watchAbort } from "../abort.js";
import { askSubjects, decideWithoutRules } from "../permissionOrder.js";
import {
  absorbHookOutcome,
  emitAwaitingPermission,
  emitStatus,
  errorBlock,
  failCall,
  finishCall,
  wrapError,
  type CallState,
  type ProgressUpdate,
  type ResolvedCall,
  type ToolResultUpdate,
} from "./state.js";

export type StageResult = ToolResultUpdate | undefined;
/** Stages answer synchronously when they have nothing to wait for: most calls pass most stages at once. */
export type MaybePromise<T> = T | Promise<T>;

/** How long an interrupted call may take to wind down before its cancellation result is returned anyway. */
export const ABORT_GRACE_MS = 2_000;

export const INTERRUPT_MESSAGE =
  "The user interrupted this tool call, so it did not complete. Stop what you are doing and wait for the user to say how to continue.";

export function cancellationMessage(signal: AbortSignal): string {
  return signal.reason instanceof AbortError ? signal.reason.message : INTERRUPT_MESSAGE;
}

/**
 * A call refused before it ran still reaches the hooks: refused by validation or cancelled →
 * PostToolUseFailure, denied → PermissionDenied. `input` is the observable input when there is one, else what
 * the model sent (which may not even be an object).
 */
async function tellHooksOfRefusal(
  state: CallState,
  tool: HookToolIdentity,
  input: unknown,
  event: "PostToolUseFailure" | "PermissionDenied",
  message: string,
  isInterrupt = false,
): Promise<void> {
  const runner = state.context.hookRunner;
  if (!runner) return;
  const args = { tool, input: input as AnyObject, toolUseID: state.toolUseID, context: state.context };
  if (event === "PostToolUseFailure") {
    absorbHookOutcome(state, await runner.postToolUseFailure({ ...args, error: message, isInterrupt }), "A PostToolUseFailure hook reported");
  } else if (runner.permissionDenied) {
    absorbHookOutcome(state, await runner.permissionDenied({ ...args, reason: message }), "A PermissionDenied hook reported");
  }
}

async function refuseInput(call: ResolvedCall, input: unknown, message: string, extra: Partial<ToolResultUpdate> = {}): Promise<ToolResultUpdate> {
  await tellHooksOfRefusal(call, call.tool, input, "PostToolUseFailure", message);
  return failCall(call, wrapError(message), "invalid_input", extra);
}

/** Tells telemetry the verdict; a sink that fails never changes the call. */
function reportDecision(call: ResolvedCall, verdict: PermissionDecision, asked: boolean): void {
  try {
    call.context.telemetry?.toolDecision({ toolName: call.tool.name, toolUseID: call.toolUseID, verdict, asked, tool: call.tool, input: call.observable });
  } catch {
    // telemetry is best effort
  }
}

async function deny(call: ResolvedCall, message: string, verdict?: PermissionDecision, asked = false): Promise<ToolResultUpdate> {
  reportDecision(call, verdict ?? { behavior: "deny", message }, asked);
  await tellHooksOfRefusal(call, call.tool, call.observable, "PermissionDenied", message);
  return failCall(call, message, "denied");
}

async function cancel(call: ResolvedCall, input: unknown): Promise<ToolResultUpdate> {
  const message = cancellationMessage(call.context.abortController.signal);
  await tellHooksOfRefusal(call, call.tool, input, "PostToolUseFailure", message, true);
  return failCall(call, message, "cancelled");
}

function deferredHint(tool: AnyTool, context: ToolUseContext): string {
  if (!isDeferredTool(tool) || context.getAppState().loadedDeferredTools.has(tool.name)) return "";
  return `\nThe schema of ${tool.name} has not been loaded in this conversation, so its parameters were guessed. Call ToolSearch with query "select:${tool.name}" to load it, then call ${tool.name} again.`;
}

/** 1. Find the tool by name or legacy alias; an unknown or disabled tool ends the call with a did-you-mean. */
export function findTool(state: CallState): MaybePromise<ResolvedCall | ToolResultUpdate> {
  const { context, toolName } = state;
  const tools = getCurrentTools(context);
  const tool = findToolByName(tools, toolName) ?? context.options.builtinTools?.find((t) => t.aliases?.includes(toolName));
  if (!tool || !tool.isEnabled()) {
    const suggestion = suggestToolName(toolName, tools.filter((t) => t.isEnabled()).map((t) => t.name));
    const message =
      describeUnavailableMcpServer(toolName, context.options.mcpClients) ??
      `No such tool available: ${toolName}${suggestion ? `. Did you mean ${suggestion}?` : ""}`;
    return tellHooksOfRefusal(state, { name: toolName }, state.toolUse.input, "PostToolUseFailure", message).then(() =>
      finishCall(state, errorBlock(state.toolUseID, wrapError(`Error: ${message}`)), "unknown_tool"),
    );
  }
  const call = state as { -readonly [K in keyof ResolvedCall]: ResolvedCall[K] };
  call.tool = tool;
  call.input = {};
  call.observable = {};
  call.interrupted = false;
  return call;
}

/** 2. A call cancelled before it started (checked again after the permission step, which may have waited). */
export function checkNotAborted(call: ResolvedCall, input: unknown = call.toolUse.input): MaybePromise<StageResult> {
  return call.context.abortController.signal.aborted ? cancel(call, input) : undefined;
}

/** 3. The tool's schema. */
export function parseInput(call: ResolvedCall): MaybePromise<StageResult> {
  const parsed = parseToolInput(call.tool.inputSchema, call.toolUse.input);
  if (!parsed.success) {
    return refuseInput(call, call.toolUse.input, formatZodIssues(call.tool.name, parsed.issues) + deferredHint(call.tool, call.context));
  }
  call.input = parsed.data as AnyObject;
  return undefined;
}

function observe(call: ResolvedCall, input: AnyObject): AnyObject {
  const clone = { ...input };
  call.tool.backfillObservableInput?.(clone, call.context);
  return clone;
}

/** 4. The observable clone that hooks and permission checks see (absolute paths and the like). */
export function backfillInput(call: ResolvedCall): StageResult {
  call.observable = observe(call, call.input);
  return undefined;
}

async function runValidateInput(call: ResolvedCall, input: AnyObject): Promise<StageResult> {
  const validation = call.tool.validateInput ? await call.tool.validateInput(input, call.context) : { result: true as const };
  if (!validation.result) return refuseInput(call, observe(call, input), validation.message, { errorLabel: `validation:${validation.errorCode}` });
  call.prepared = validation.prepared;
  return undefined;
}

/** 5. The tool's own validation. */
export function validateInput(call: ResolvedCall): MaybePromise<StageResult> {
  return call.tool.validateInput ? runValidateInput(call, call.input) : undefined;
}

/** Input rewritten by a hook or the permission step goes through the schema and validation again. */
async function adoptInput(call: ResolvedCall, input: unknown, origin: string): Promise<StageResult> {
  const reparsed = parseToolInput(call.tool.inputSchema, input);
  if (!reparsed.success) {
    return refuseInput(call, input, `${origin} the input of ${call.tool.name} into an invalid one.\n${formatZodIssues(call.tool.name, reparsed.issues)}`);
  }
  const invalid = await runValidateInput(call, reparsed.data as AnyObject);
  if (invalid) return invalid;
  call.input = reparsed.data as AnyObject;
  call.observable = observe(call, call.input);
  return undefined;
}

/** 6. PreToolUse hooks: they may stop the turn, rewrite the input, or say allow / ask / deny. */
export function runPreToolUseHooks(call: ResolvedCall): MaybePromise<StageResult> {
  return call.context.hookRunner ? preToolUseHooks(call, call.context.hookRunner) : undefined;
}

/**
 * `followRewrite` is off for the second run on an input an answer changed: that input already holds the first
 * run's rewrite, and a hook that wraps a command would wrap it twice.
 */
async function preToolUseHooks(call: ResolvedCall, runner: HookRunner, followRewrite = true): Promise<StageResult> {
  const outcome = await runner.preToolUse({ tool: call.tool, input: call.observable, toolUseID: call.toolUseID, context: call.context });
  absorbHookOutcome(call, outcome);
  if (outcome.preventContinuation) {
    const message = `A PreToolUse hook stopped this turn before ${call.tool.name} ran: ${outcome.preventContinuation.reason}`;
    return deny(call, message, { behavior: "deny", message, decisionReason: { type: "hook", hookEvent: "PreToolUse" } });
  }
  if (followRewrite && outcome.updatedInput && !isDeepStrictEqual(outcome.updatedInput, call.observable)) {
    const rejected = await adoptInput(call, outcome.updatedInput, "A PreToolUse hook rewrote");
    if (rejected) return rejected;
  }
  call.hookDecision = outcome.permissionDecision;
  if (call.hookDecision?.behavior === "deny") {
    const reason = call.hookDecision.reason ? `: ${call.hookDecision.reason}` : ".";
    const message = `A PreToolUse hook blocked this ${call.tool.name} call${reason}`;
    return deny(call, message, { behavior: "deny", message, decisionReason: { type: "hook", hookEvent: "PreToolUse", file: call.hookDecision.file } });
  }
  return undefined;
}

/**
 * 7. Permission: the rule engine (or, without one, the same order with no rules), PermissionRequest hooks,
 * then canUseTool for what would still ask.
 */
export function resolvePermission(call: ResolvedCall): Promise<StageResult> {
  return decide(call).then((decision) => settlePermission(call, decision));
}

/** The rule engine's verdict on the call's current (observable) input. */
function decide(call: ResolvedCall): Promise<PermissionDecision> {
  const { tool, context, toolUseID, hookDecision } = call;
  try {
    return Promise.resolve(
      context.permissionDecider
        ? context.permissionDecider(tool, call.observable, context, { toolUseID, hookDecision })
        : decideWithoutRules(tool, call.observable, context, hookDecision),
    );
  } catch (err) {
    return Promise.reject(err);
  }
}

/** A plain allow, the usual verdict, needs nothing more to wait for. */
function settlePermission(call: ResolvedCall, decision: PermissionDecision): MaybePromise<StageResult> {
  if (decision.behavior !== "allow" || (decision.updatedInput && !isDeepStrictEqual(decision.updatedInput, call.observable))) {
    return settleAskOrChange(call, decision);
  }
  call.decision = decision;
  reportDecision(call, decision, false);
  return checkNotAborted(call, call.observable);
}

async function settleAskOrChange(call: ResolvedCall, verdict: PermissionDecision): Promise<StageResult> {
  const { tool, context, toolUseID } = call;
  let decision = verdict;
  if (decision.behavior === "ask" && context.hookRunner) {
    const outcome = await context.hookRunner.permissionRequest({ tool, input: call.observable, toolUseID, context, decision });
    absorbHookOutcome(call, outcome);
    if (outcome.decision) decision = outcome.decision;
  }
  let asked = false;
  if (decision.behavior === "ask") {
    emitAwaitingPermission(call, decision, decision.message);
    decision = await call.canUseTool(tool, call.observable, context, call.assistantMessage, toolUseID, decision);
    asked = true;
  }
  if (decision.behavior !== "allow") {
    return deny(call, decision.behavior === "deny" ? decision.message : `Permission to use ${tool.name} was not granted.`, decision, asked);
  }
  if (decision.updatedInput && !isDeepStrictEqual(decision.updatedInput, call.observable)) {
    // The engine's own allow may normalise the input; an answer's change is checked like the model's input.
    const judged: { checkedPath?: PermissionDecision["checkedPath"] } = {};
    const rejected =
      decision === verdict ? await adoptInput(call, decision.updatedInput, "The permission step changed") : await adoptAnsweredInput(call, decision.updatedInput, verdict, asked, judged);
    if (rejected) return rejected;
    // The changed input was judged again: the call uses the file that judgement saw.
    if (judged.checkedPath) decision = { ...decision, checkedPath: judged.checkedPath };
  } else if (verdict.checkedPath && !decision.checkedPath) {
    // A prompt's or hook's allow approves the verdict it was shown, so the call uses the file that verdict judged.
    decision = { ...decision, checkedPath: verdict.checkedPath };
  }
  call.decision = decision;
  reportDecision(call, decision, asked);
  return checkNotAborted(call, call.observable);
}

/**
 * An input changed by whoever answered the question (a PermissionRequest hook, the SDK host, the permission
 * prompt tool) goes through everything the model's input went through: schema, validation, PreToolUse hooks,
 * the rules and the path checks. The answer's yes stands in for a new question only where it answers what was
 * asked; a changed input that needs a yes for something else (a protected path, a path outside the working
 * directories, an ask rule, a hook's ask) is denied rather than asked again: an answerer that rewrites inputs
 * could rewrite the second answer too, and the model can make that call itself to have the right question asked.
 */
async function adoptAnsweredInput(
  call: ResolvedCall,
  updatedInput: AnyObject,
  question: PermissionDecision,
  asked: boolean,
  judged: { checkedPath?: PermissionDecision["checkedPath"] },
): Promise<StageResult> {
  const invalid = await adoptInput(call, updatedInput, "The answer to the permission question changed");
  if (invalid) return invalid;
  const stopped = call.context.hookRunner ? await preToolUseHooks(call, call.context.hookRunner, false) : undefined;
  if (stopped) return stopped;
  const recheck = await decide(call);
  const changed = `The answer to the permission question changed the input of ${call.tool.name}`;
  if (recheck.behavior === "deny") {
    const message = `${changed}, and the changed input is not allowed: ${recheck.message} Nothing ran.`;
    return deny(call, message, { ...recheck, message }, asked);
  }
  if (recheck.behavior === "ask") {
    const approved = askSubjects(question);
    if ([...askSubjects(recheck)].some((subject) => !approved.has(subject))) {
      const message = `${changed}, and the changed input needs an approval that answer did not give: ${recheck.message} Nothing ran; to run it, make that call yourself so that it is asked.`;
      return deny(call, message, { behavior: "deny", message, decisionReason: recheck.decisionReason }, asked);
    }
  }
  if (recheck.behavior === "allow" && recheck.updatedInput && !isDeepStrictEqual(recheck.updatedInput, call.observable)) {
    return adoptInput(call, recheck.updatedInput, "The permission step changed");
  }
  if (recheck.checkedPath) judged.checkedPath = recheck.checkedPath;
  return undefined;
}

/** A started call: progress not yet passed on, and whether the call has finished or been interrupted. */
export interface CallRun {
  readonly progress: ProgressUpdate[];
  finished: boolean;
  /** Settles once the tool's call has (an interrupted call may still be winding down). */
  readonly done: Promise<void>;
  /** Resolves the caller's current wait. */
  wake: (() => void) | undefined;
  readonly stopWatching: () => void;
}

function wakeRun(run: CallRun): void {
  const resume = run.wake;
  run.wake = undefined;
  resume?.();
}

/**
 * Start the tool's call. Not createAsyncQueue or a promise chain per step: most calls report no progress, and a
 * call that just returns costs one derived promise here and one wait in the caller (measured, bench/pipeline).
 */
export function startCall(call: ResolvedCall): CallRun {
  const { tool, toolUseID } = call;
  emitStatus(call, "running", undefined, call.decision);
  const run = { progress: [] as ProgressUpdate[], finished: false, wake: undefined } as { -readonly [K in keyof CallRun]: CallRun[K] };
  // A run started while the block streamed stands in for the call when it ran on the same input and verdict.
  const speculative = claimSpeculativeRun(call);
  run.stopWatching = watchAbort(call.context.abortController.signal, () => {
    if (!call.settled) call.interrupted = true;
    speculative?.abort(call.context.abortController.signal.reason);
    run.finished = true;
    wakeRun(run);
  });
  // Copied, then extended: V8 (Node 20) gives `{ ...context, toolUseID }` a new hidden class on every call when
  // the spread adds keys, ~12 µs with a session's context (measured); this way the shapes are shared.
  const callContext: ToolUseContext = Object.assign({}, call.context);
  callContext.toolUseID = toolUseID;
  callContext.validated = call.prepared;
  callContext.permissionDecision = call.decision;
  const tracking = trackWorkspaceWrites(call);
  let pending: Promise<ToolResult<unknown>>;
  const invoke = () =>
    tool.call(call.input, callContext, call.canUseTool, call.assistantMessage, (update) => {
      if (run.finished) return;
      run.progress.push({ type: "progress", toolUseID, data: update.data });
      wakeRun(run);
    });
  if (speculative) {
    pending = speculative.result;
    speculative.onProgress((data) => {
      if (run.finished) return;
      run.progress.push({ type: "progress", toolUseID, data });
      wakeRun(run);
    });
  } else if (tracking) {
    // The call starts once the files it may change were snapshotted; an interrupt meanwhile still reaches it.
    pending = tracking.ready.then(invoke);
  } else {
    try {
      pending = Promise.resolve(invoke());
    } catch (error) {
      pending = Promise.reject(error);
    }
  }
  if (tracking) pending = pending.finally(tracking.finish);
  run.done = pending.then(
    (value) => {
      call.settled = { ok: true, value };
      run.finished = true;
      wakeRun(run);
    },
    (error: unknown) => {
      call.settled = { ok: false, error };
      run.finished = true;
      wakeRun(run);
    },
  );
  return run;
}

function claimSpeculativeRun(call: ResolvedCall): SpeculativeRun | undefined {
  const board = call.context.speculativeCalls;
  if (!board) return undefined;
  try {
    return board.claim({ toolUseID: call.toolUseID, tool: call.tool, observable: call.observable, decision: call.decision });
  } catch {
    return undefined;
  }
}

/** Resolves at the run's next progress, its end, or an interrupt. */
export function nextRunEvent(run: CallRun): Promise<void> {
  return new Promise<void>((resolve) => (run.wake = resolve));
}

/** An interrupted call gets a grace period to stop what it started before its cancellation result goes out. */
export function windDown(call: ResolvedCall, run: CallRun): Promise<unknown> | undefined {
  if (call.settled) return undefined;
  return Promise.race([run.done, new Promise((resolve) => setTimeout(resolve, ABORT_GRACE_MS).unref())]);
}

/** 8. Call the tool, streaming its progress; an interrupted call gets a grace period to stop what it started. */
export async function* callTool(call: ResolvedCall): AsyncGenerator<ProgressUpdate, void> {
  const run = startCall(call);
  try {
    for (;;) {
      while (run.progress.length > 0) yield run.progress.shift() as ProgressUpdate;
      if (run.finished) break;
      await nextRunEvent(run);
    }
    await windDown(call, run);
  } finally {
    run.stopWatching();
  }
}

/**
 * 9. Hooks after the call: PostToolUseFailure for a failure or an interrupt (which end the call here),
 * PostToolUse for a success.
 */
export function runPostToolUseHooks(call: ResolvedCall): MaybePromise<StageResult> {
  const result = call.settled;
  // An interrupted call is cancelled even if the tool wound down with a value: the model must stop and wait.
  if (!result || call.interrupted || (!result.ok && isAbortError(result.error))) {
    const message = cancellationMessage(call.context.abortController.signal);
    return afterFailure(call, message, true).then(() => failCall(call, message, "cancelled"));
  }
  if (!result.ok) {
    const message = formatError(result.error);
    return afterFailure(call, message, false).then(() =>
      failCall(call, wrapError(`Error: ${message}`), "tool_error", { errorLabel: classifyToolError(result.error) }),
    );
  }
  const runner = call.context.hookRunner;
  if (!runner) return undefined;
  return runner
    .postToolUse({ tool: call.tool, input: call.observable, toolUseID: call.toolUseID, context: call.context, response: result.value.data })
    .then((outcome) => {
      absorbHookOutcome(call, outcome, "A PostToolUse hook objected to this result");
      return undefined;
    });
}

async function afterFailure(call: ResolvedCall, error: string, isInterrupt: boolean): Promise<void> {
  const runner = call.context.hookRunner;
  if (!runner) return;
  const outcome = await runner.postToolUseFailure({ tool: call.tool, input: call.observable, toolUseID: call.toolUseID, context: call.context, error, isInterrupt });
  absorbHookOutcome(call, outcome, "A PostToolUseFailure hook reported");
}

/** 10. Map the output to a tool_result, persisting it when it is too large. */
export async function mapResult(call: ResolvedCall): Promise<ToolResultUpdate> {
  return mapCallResult(call);
}

/** mapResult without a promise for the usual result, which is neither persisted nor replaced before. */
export function mapCallResult(call: ResolvedCall): MaybePromise<ToolResultUpdate> {
  const settled = call.settled;
  if (!settled?.ok) throw new Error("mapResult needs a successful call");
  const block = mapToolResultToToolResultBlockParam(call.tool, settled.value.data, call.toolUseID);
  const stays =
    !call.context.contentReplacementState.replacements.has(block.tool_use_id) && toolResultTextLength(block.content) <= persistenceThreshold(call.tool);
  if (stays) return finishMapped(call, settled.value, block);
  return maybePersistLargeToolResult(call.tool, block, call.context).then((persisted) => finishMapped(call, settled.value, persisted));
}

function finishMapped(call: ResolvedCall, value: ToolResult<unknown>, block: ToolResultBlockParam): ToolResultUpdate {
  return finishCall(call, block, block.is_error ? "tool_error" : "success", {
    tool: call.tool,
    output: value.data,
    contextModifier: value.contextModifier,
    newMessages: value.newMessages,
    mcpMeta: value.mcpMeta,
  });
}
