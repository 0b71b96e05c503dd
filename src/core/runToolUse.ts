import { isDeepStrictEqual } from "node:util";
import type { AnyObject, AnyTool, CanUseToolFn, HookPermissionDecision, ToolResult, ToolUseContext } from "./Tool.js";
import type { AssistantMessage, Message, TextBlock, ToolResultBlockParam, ToolUseBlock } from "./messages.js";
import type { PermissionDecision } from "./permissionTypes.js";
import type { HookNotice, HookToolIdentity, PostToolUseHookOutcome } from "./hookTypes.js";

type HookOutcome = Pick<PostToolUseHookOutcome, "notices" | "additionalContext" | "preventContinuation" | "blockingError">;
import { describeUnavailableMcpServer, findToolByName, getCurrentTools, isDeferredTool } from "./registry.js";
import { suggestToolName } from "./toolNames.js";
import { formatZodIssues, parseToolInput } from "./validation.js";
import { AbortError, classifyToolError, formatError, isAbortError } from "./errors.js";
import { mapToolResultToToolResultBlockParam, maybePersistLargeToolResult } from "./results.js";
import { createAsyncQueue } from "./asyncQueue.js";

export interface ProgressUpdate {
  type: "progress";
  toolUseID: string;
  data: unknown;
}

export type ToolUseOutcome = "success" | "tool_error" | "invalid_input" | "denied" | "cancelled" | "unknown_tool" | "runtime_error";

export interface ToolResultUpdate {
  type: "result";
  toolUseID: string;
  block: ToolResultBlockParam;
  /** The tool that ran, when one was found (the per-message budget needs its limit). */
  tool?: AnyTool;
  /** The tool's structured output on success. */
  output?: unknown;
  outcome: ToolUseOutcome;
  /** classifyToolError label for failures; safe for telemetry. */
  errorLabel?: string;
  contextModifier?: ToolResult<unknown>["contextModifier"];
  newMessages?: Message[];
  mcpMeta?: ToolResult<unknown>["mcpMeta"];
  /** A hook asked to stop the turn after this call. */
  preventContinuation?: { reason: string };
  /** For the user, not the model: hook messages, hook failures. */
  notices: HookNotice[];
  durationMs: number;
}

export type ToolUseUpdate = ProgressUpdate | ToolResultUpdate;

/** How long an interrupted call may take to wind down before its cancellation result is returned anyway. */
export const ABORT_GRACE_MS = 2_000;

export const INTERRUPT_MESSAGE =
  "The user interrupted this tool call, so it did not complete. Stop what you are doing and wait for the user to say how to continue.";

export function cancellationMessage(signal: AbortSignal): string {
  return signal.reason instanceof AbortError ? signal.reason.message : INTERRUPT_MESSAGE;
}

const wrapError = (message: string) => `<tool_use_error>${message}</tool_use_error>`;

function errorBlock(toolUseID: string, content: string): ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: toolUseID, content, is_error: true };
}

function deferredHint(tool: AnyTool, context: ToolUseContext): string {
  if (!isDeferredTool(tool) || context.getAppState().loadedDeferredTools.has(tool.name)) return "";
  return `\nThe schema of ${tool.name} has not been loaded in this conversation, so its parameters were guessed. Call ToolSearch with query "select:${tool.name}" to load it, then call ${tool.name} again.`;
}

function withExtraText(block: ToolResultBlockParam, texts: string[]): ToolResultBlockParam {
  if (texts.length === 0) return block;
  const extra: TextBlock[] = texts.map((text) => ({ type: "text", text }));
  const content = typeof block.content === "string" ? [{ type: "text" as const, text: block.content }, ...extra] : [...block.content, ...extra];
  return { ...block, content };
}

/** Without a rule engine the tool's own verdict decides; `passthrough` means ask. */
async function decideWithoutEngine(
  tool: AnyTool,
  input: AnyObject,
  context: ToolUseContext,
  hookDecision: HookPermissionDecision | undefined,
): Promise<PermissionDecision> {
  const result = await tool.checkPermissions(input, context);
  if (result.behavior === "deny") return result;
  if (hookDecision?.behavior === "ask") {
    return {
      behavior: "ask",
      message: hookDecision.reason ?? `A PreToolUse hook asked for confirmation before ${tool.name} runs.`,
      decisionReason: { type: "hook", hookEvent: "PreToolUse", command: hookDecision.command, reason: hookDecision.reason },
    };
  }
  if (result.behavior === "allow" || result.behavior === "ask") return result;
  if (hookDecision?.behavior === "allow") {
    return { behavior: "allow", decisionReason: { type: "hook", hookEvent: "PreToolUse", command: hookDecision.command, reason: hookDecision.reason } };
  }
  return { ...result, behavior: "ask" };
}

/**
 * Run one tool_use through the whole pipeline, yielding progress as it happens and exactly one result.
 * Nothing thrown inside — by the tool, a hook, or the runtime — escapes as anything but that result.
 */
export async function* runToolUse(
  toolUse: ToolUseBlock,
  assistantMessage: AssistantMessage,
  canUseTool: CanUseToolFn,
  context: ToolUseContext,
): AsyncGenerator<ToolUseUpdate, void> {
  const started = Date.now();
  const toolUseID = toolUse.id;
  let resultYielded = false;
  let foundTool: AnyTool | undefined;
  try {
    for await (const update of pipeline(toolUse, assistantMessage, canUseTool, context, started, (t) => (foundTool = t))) {
      if (update.type === "result") {
        if (resultYielded) continue;
        resultYielded = true;
      }
      yield update;
    }
  } catch (err) {
    if (!resultYielded) {
      resultYielded = true;
      yield {
        type: "result",
        toolUseID,
        block: errorBlock(toolUseID, wrapError(`Error: toolgate failed while running this tool: ${formatError(err)}`)),
        tool: foundTool,
        outcome: "runtime_error",
        errorLabel: classifyToolError(err),
        notices: [],
        durationMs: Date.now() - started,
      };
    }
  }
  if (!resultYielded) {
    yield {
      type: "result",
      toolUseID,
      block: errorBlock(toolUseID, wrapError("Error: the tool finished without producing a result.")),
      tool: foundTool,
      outcome: "runtime_error",
      notices: [],
      durationMs: Date.now() - started,
    };
  }
}

async function* pipeline(
  toolUse: ToolUseBlock,
  assistantMessage: AssistantMessage,
  canUseTool: CanUseToolFn,
  context: ToolUseContext,
  started: number,
  onToolFound: (tool: AnyTool) => void,
): AsyncGenerator<ToolUseUpdate, void> {
  const toolUseID = toolUse.id;
  const notices: HookNotice[] = [];
  const additionalContext: string[] = [];
  let preventContinuation: { reason: string } | undefined;

  /** Fold what a hook run said into this call's result: context for the model, notices for the user, a stop. */
  const absorb = (outcome: HookOutcome, objection?: string) => {
    notices.push(...outcome.notices);
    additionalContext.push(...outcome.additionalContext);
    if (outcome.preventContinuation) preventContinuation = outcome.preventContinuation;
    if (outcome.blockingError && objection) additionalContext.push(`${objection}: ${outcome.blockingError}`);
  };

  const finish = (
    block: ToolResultBlockParam,
    outcome: ToolUseOutcome,
    extra: Partial<ToolResultUpdate> = {},
  ): ToolResultUpdate => ({
    type: "result",
    toolUseID,
    block: withExtraText(block, additionalContext),
    outcome,
    notices,
    preventContinuation,
    durationMs: Date.now() - started,
    ...extra,
  });

  /**
   * A call refused before it ran still reaches the hooks, so that an audit hook sees every call: refused by
   * validation or cancelled → PostToolUseFailure, denied → PermissionDenied. `input` is the observable input
   * when there is one, else what the model sent (which may not even be an object).
   */
  const hookRefusal = async (
    hookTool: HookToolIdentity,
    input: unknown,
    event: "PostToolUseFailure" | "PermissionDenied",
    message: string,
    isInterrupt = false,
  ) => {
    const runner = context.hookRunner;
    if (!runner) return;
    const args = { tool: hookTool, input: input as AnyObject, toolUseID, context };
    if (event === "PostToolUseFailure") {
      absorb(await runner.postToolUseFailure({ ...args, error: message, isInterrupt }), "A PostToolUseFailure hook reported");
    } else if (runner.permissionDenied) {
      absorb(await runner.permissionDenied({ ...args, reason: message }), "A PermissionDenied hook reported");
    }
  };

  // 1. find the tool
  const name = typeof toolUse.name === "string" ? toolUse.name : String(toolUse.name);
  const tools = getCurrentTools(context);
  const tool =
    findToolByName(tools, name) ?? context.options.builtinTools?.find((t) => t.aliases?.includes(name));
  if (!tool || !tool.isEnabled()) {
    const suggestion = suggestToolName(name, tools.filter((t) => t.isEnabled()).map((t) => t.name));
    const message =
      describeUnavailableMcpServer(name, context.options.mcpClients) ?? `No such tool available: ${name}${suggestion ? `. Did you mean ${suggestion}?` : ""}`;
    await hookRefusal({ name }, toolUse.input, "PostToolUseFailure", message);
    yield finish(errorBlock(toolUseID, wrapError(`Error: ${message}`)), "unknown_tool");
    return;
  }
  onToolFound(tool);
  const fail = (content: string, outcome: ToolUseOutcome, extra: Partial<ToolResultUpdate> = {}) =>
    finish(errorBlock(toolUseID, content), outcome, { tool, ...extra });
  /** An input refused by the schema or validateInput. */
  const invalidInput = async (input: unknown, message: string, extra: Partial<ToolResultUpdate> = {}) => {
    await hookRefusal(tool, input, "PostToolUseFailure", message);
    return fail(wrapError(message), "invalid_input", extra);
  };
  const denied = async (input: AnyObject, message: string) => {
    await hookRefusal(tool, input, "PermissionDenied", message);
    return fail(message, "denied");
  };
  const cancelledBeforeCall = async (input: unknown) => {
    const message = cancellationMessage(signal);
    await hookRefusal(tool, input, "PostToolUseFailure", message, true);
    return fail(message, "cancelled");
  };

  // 2. cancelled before it started
  const signal = context.abortController.signal;
  if (signal.aborted) {
    yield await cancelledBeforeCall(toolUse.input);
    return;
  }

  // 3. schema
  const parsed = parseToolInput(tool.inputSchema, toolUse.input);
  if (!parsed.success) {
    yield await invalidInput(toolUse.input, formatZodIssues(tool.name, parsed.issues) + deferredHint(tool, context));
    return;
  }
  let callInput = parsed.data as AnyObject;

  // 4. the observable clone that hooks and permission checks see
  const observe = (input: AnyObject): AnyObject => {
    const clone = { ...input };
    tool.backfillObservableInput?.(clone, context);
    return clone;
  };
  let observable = observe(callInput);

  // 5. the tool's own validation
  const validate = async (input: AnyObject): Promise<ToolResultUpdate | undefined> => {
    const validation = tool.validateInput ? await tool.validateInput(input, context) : { result: true as const };
    return validation.result ? undefined : invalidInput(observe(input), validation.message, { errorLabel: `validation:${validation.errorCode}` });
  };
  /** Input rewritten by a hook or the permission step goes through the schema and validateInput again. */
  const adopt = async (input: unknown, origin: string): Promise<ToolResultUpdate | undefined> => {
    const reparsed = parseToolInput(tool.inputSchema, input);
    if (!reparsed.success) {
      return invalidInput(input, `${origin} the input of ${tool.name} into an invalid one.\n${formatZodIssues(tool.name, reparsed.issues)}`);
    }
    const invalid = await validate(reparsed.data as AnyObject);
    if (invalid) return invalid;
    callInput = reparsed.data as AnyObject;
    observable = observe(callInput);
    return undefined;
  };
  const invalid = await validate(callInput);
  if (invalid) {
    yield invalid;
    return;
  }

  // 6. PreToolUse hooks
  let hookDecision: HookPermissionDecision | undefined;
  if (context.hookRunner) {
    const outcome = await context.hookRunner.preToolUse({ tool, input: observable, toolUseID, context });
    absorb(outcome);
    if (outcome.preventContinuation) {
      yield await denied(observable, `A PreToolUse hook stopped this turn before ${tool.name} ran: ${outcome.preventContinuation.reason}`);
      return;
    }
    if (outcome.updatedInput && !isDeepStrictEqual(outcome.updatedInput, observable)) {
      const rejected = await adopt(outcome.updatedInput, "A PreToolUse hook rewrote");
      if (rejected) {
        yield rejected;
        return;
      }
    }
    hookDecision = outcome.permissionDecision;
    if (hookDecision?.behavior === "deny") {
      const reason = hookDecision.reason ? `: ${hookDecision.reason}` : ".";
      yield await denied(observable, `A PreToolUse hook blocked this ${tool.name} call${reason}`);
      return;
    }
  }

  // 7. permissions: the rule engine, PermissionRequest hooks, then canUseTool for what would ask
  let decision = context.permissionDecider
    ? await context.permissionDecider(tool, observable, context, { toolUseID, hookDecision })
    : await decideWithoutEngine(tool, observable, context, hookDecision);
  if (decision.behavior === "ask" && context.hookRunner) {
    const outcome = await context.hookRunner.permissionRequest({ tool, input: observable, toolUseID, context, decision });
    absorb(outcome);
    if (outcome.decision) decision = outcome.decision;
  }
  if (decision.behavior === "ask") {
    decision = await canUseTool(tool, observable, context, assistantMessage, toolUseID, decision);
  }
  if (decision.behavior !== "allow") {
    const message = decision.behavior === "deny" ? decision.message : `Permission to use ${tool.name} was not granted.`;
    yield await denied(observable, message);
    return;
  }
  if (decision.updatedInput && !isDeepStrictEqual(decision.updatedInput, observable)) {
    const rejected = await adopt(decision.updatedInput, "The permission step changed");
    if (rejected) {
      yield rejected;
      return;
    }
  }
  if (signal.aborted) {
    yield await cancelledBeforeCall(observable);
    return;
  }

  // 8. call, streaming progress
  context.setInProgressToolUseIDs((prev) => new Set(prev).add(toolUseID));
  const queue = createAsyncQueue<ProgressUpdate>();
  let settled: { ok: true; value: ToolResult<unknown> } | { ok: false; error: unknown } | undefined;
  let interruptedWhileRunning = false;
  const onAbort = () => {
    if (!settled) interruptedWhileRunning = true;
    queue.close();
  };
  signal.addEventListener("abort", onAbort, { once: true });
  const callContext: ToolUseContext = { ...context, toolUseId: toolUseID, permissionDecision: decision };
  try {
    const done = Promise.resolve()
      .then(() =>
        tool.call(callInput, callContext, canUseTool, assistantMessage, (progress) =>
          queue.push({ type: "progress", toolUseID, data: progress.data }),
        ),
      )
      .then(
        (value) => (settled = { ok: true, value }),
        (error) => (settled = { ok: false, error }),
      )
      .finally(() => queue.close());
    for await (const progress of queue) yield progress;
    // Interrupted: give the tool a moment to stop what it started, so "cancelled" means stopped.
    if (!settled) await Promise.race([done, new Promise((resolve) => setTimeout(resolve, ABORT_GRACE_MS).unref())]);
  } finally {
    signal.removeEventListener("abort", onAbort);
    context.setInProgressToolUseIDs((prev) => {
      const next = new Set(prev);
      next.delete(toolUseID);
      return next;
    });
  }

  const runFailureHooks = async (error: string, isInterrupt: boolean) => {
    if (!context.hookRunner) return;
    absorb(
      await context.hookRunner.postToolUseFailure({ tool, input: observable, toolUseID, context, error, isInterrupt }),
      "A PostToolUseFailure hook reported",
    );
  };

  const result = settled as typeof settled;
  // An interrupted call is cancelled even if the tool wound down with a value: the model must stop and wait.
  if (!result || interruptedWhileRunning || (!result.ok && isAbortError(result.error))) {
    const message = cancellationMessage(signal);
    await runFailureHooks(message, true);
    yield fail(message, "cancelled");
    return;
  }
  if (!result.ok) {
    const message = formatError(result.error);
    await runFailureHooks(message, false);
    yield fail(wrapError(`Error: ${message}`), "tool_error", { errorLabel: classifyToolError(result.error) });
    return;
  }

  // 9. PostToolUse hooks
  const output = result.value.data;
  if (context.hookRunner) {
    absorb(
      await context.hookRunner.postToolUse({ tool, input: observable, toolUseID, context, response: output }),
      "A PostToolUse hook objected to this result",
    );
  }

  // 10. map to a tool_result, persisting it when it is too large
  const block = await maybePersistLargeToolResult(tool, mapToolResultToToolResultBlockParam(tool, output, toolUseID), context);
  yield finish(block, block.is_error ? "tool_error" : "success", {
    tool,
    output,
    contextModifier: result.value.contextModifier,
    newMessages: result.value.newMessages,
    mcpMeta: result.value.mcpMeta,
  });
}
