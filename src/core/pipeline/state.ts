import type { AnyObject, AnyTool, CanUseToolFn, HookPermissionDecision, ToolResult, ToolUseContext, HookNotice, PostToolUseHookOutcome } from "../Tool.js";
import type { PermissionDecision } from "../permissionTypes.js";
import type { AssistantMessage, Message, TextBlock, ToolResultBlockParam, ToolUseBlock } from "../messages.js";
import type { ToolUseOutcome } from "./status.js";

export type { ToolUseOutcome };

export interface ProgressUpdate {
  type: "progress";
  toolUseID: string;
  data: unknown;
}

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

/** What `runToolUse` and `runTools` yield. Status changes go to `context.toolStatus` (the streaming executor also yields them). */
export type ToolUseUpdate = ProgressUpdate | ToolResultUpdate;

export type CallSettlement = { ok: true; value: ToolResult<unknown> } | { ok: false; error: unknown };

/** Everything one call's stages read and write, in one place instead of closures. */
export interface CallState {
  readonly toolUse: ToolUseBlock;
  readonly toolUseID: string;
  /** The name the model called, as a string whatever it sent. */
  readonly toolName: string;
  readonly assistantMessage: AssistantMessage;
  readonly canUseTool: CanUseToolFn;
  readonly context: ToolUseContext;
  readonly started: number;
  /** For the user, not the model: hook messages, hook failures. */
  readonly notices: HookNotice[];
  /** Text appended to the tool_result for the model (hook context, hook objections). */
  readonly additionalContext: string[];
  preventContinuation?: { reason: string };
}

/** A call whose tool was found. `input` is what `call()` gets; `observable` the backfilled clone hooks and rules see. */
export interface ResolvedCall extends CallState {
  readonly tool: AnyTool;
  input: AnyObject;
  observable: AnyObject;
  hookDecision?: HookPermissionDecision;
  /** The allow that let the call run (a sandbox picks its write scope from it). */
  decision?: PermissionDecision;
  /** What the last successful validateInput prepared for `call()`. */
  prepared?: unknown;
  settled?: CallSettlement;
  /** The abort signal fired while `call()` was still running. */
  interrupted: boolean;
}

export function createCallState(
  toolUse: ToolUseBlock,
  assistantMessage: AssistantMessage,
  canUseTool: CanUseToolFn,
  context: ToolUseContext,
): CallState {
  return {
    toolUse,
    toolUseID: toolUse.id,
    toolName: typeof toolUse.name === "string" ? toolUse.name : String(toolUse.name),
    assistantMessage,
    canUseTool,
    context,
    started: Date.now(),
    notices: [],
    additionalContext: [],
  };
}

type HookOutcome = Pick<PostToolUseHookOutcome, "notices" | "additionalContext" | "preventContinuation" | "blockingError">;

/** Fold what a hook run said into the call: context for the model, notices for the user, a stop. */
export function absorbHookOutcome(state: CallState, outcome: HookOutcome, objection?: string): void {
  state.notices.push(...outcome.notices);
  state.additionalContext.push(...outcome.additionalContext);
  if (outcome.preventContinuation) state.preventContinuation = outcome.preventContinuation;
  if (outcome.blockingError && objection) state.additionalContext.push(`${objection}: ${outcome.blockingError}`);
}

/** Each status is one object literal of a fixed shape (V8 then shares its hidden class across calls). */
export function emitStatus(state: CallState, status: "validating" | "running", at = Date.now(), decision?: PermissionDecision): void {
  state.context.toolStatus?.emit({ type: "status", toolUseID: state.toolUseID, toolName: state.toolName, status, at, decision });
}

export function emitAwaitingPermission(state: CallState, decision: PermissionDecision, explanation: string | undefined): void {
  state.context.toolStatus?.emit({ type: "status", toolUseID: state.toolUseID, toolName: state.toolName, status: "awaiting_permission", at: Date.now(), decision, explanation });
}

/** `at` is derived from the duration, so both come from one clock reading. */
export function emitDone(state: CallState, outcome: ToolUseOutcome, durationMs: number): void {
  const at = state.started + durationMs;
  state.context.toolStatus?.emit({ type: "status", toolUseID: state.toolUseID, toolName: state.toolName, status: "done", at, outcome, durationMs });
}

export const wrapError = (message: string) => `<tool_use_error>${message}</tool_use_error>`;

export function errorBlock(toolUseID: string, content: string): ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: toolUseID, content, is_error: true };
}

function withExtraText(block: ToolResultBlockParam, texts: string[]): ToolResultBlockParam {
  if (texts.length === 0) return block;
  const extra: TextBlock[] = texts.map((text) => ({ type: "text", text }));
  const content = typeof block.content === "string" ? [{ type: "text" as const, text: block.content }, ...extra] : [...block.content, ...extra];
  return { ...block, content };
}

/** The call's one result, with the hooks' context appended for the model. */
export function finishCall(state: CallState, block: ToolResultBlockParam, outcome: ToolUseOutcome, extra: Partial<ToolResultUpdate> = {}): ToolResultUpdate {
  return {
    type: "result",
    toolUseID: state.toolUseID,
    block: withExtraText(block, state.additionalContext),
    outcome,
    notices: state.notices,
    preventContinuation: state.preventContinuation,
    durationMs: Date.now() - state.started,
    ...extra,
  };
}

/** An error result for a call whose tool was found. */
export function failCall(state: ResolvedCall, content: string, outcome: ToolUseOutcome, extra: Partial<ToolResultUpdate> = {}): ToolResultUpdate {
  return finishCall(state, errorBlock(state.toolUseID, content), outcome, { tool: state.tool, ...extra });
}
