import type { AnyObject, AnyTool, ToolUseContext } from "./Tool.js";
import type { PermissionDecision } from "./permissionTypes.js";

/** What a hook said that the user (not the model) should see: a systemMessage, a crash, a timeout. */
export interface HookNotice {
  hookEvent: string;
  command: string;
  level: "info" | "warning" | "error";
  message: string;
}

interface HookOutcomeBase {
  /** `continue: false` from any hook: finish this call, then stop the turn. */
  preventContinuation?: { reason: string };
  /** Extra context for the model (hookSpecificOutput.additionalContext). */
  additionalContext: string[];
  notices: HookNotice[];
}

export interface PreToolUseHookOutcome extends HookOutcomeBase {
  /** Combined verdict, deny > ask > allow. Absent when no hook decided. */
  permissionDecision?: { behavior: "allow" | "deny" | "ask"; reason?: string; command?: string; file?: string };
  /** Rewritten input from a hook; the pipeline re-validates it against the tool's schema. */
  updatedInput?: AnyObject;
}

export interface PostToolUseHookOutcome extends HookOutcomeBase {
  /** A hook blocked after the fact (exit 2 or decision: "block"); the model is told why. */
  blockingError?: string;
}

export interface PermissionRequestHookOutcome extends HookOutcomeBase {
  /** A hook answered the permission prompt on the user's behalf. */
  decision?: PermissionDecision;
}

/** What hooks need of a tool: its names. A call to a tool that does not exist has only the name it was called by. */
export type HookToolIdentity = Pick<AnyTool, "name" | "aliases">;

export interface HookCallArgs {
  tool: HookToolIdentity;
  /** The observable (backfilled) input. */
  input: AnyObject;
  toolUseID: string;
  context: ToolUseContext;
}

/** Runs configured hooks; injected into the context so the pipeline does not depend on how hooks are stored. */
export interface HookRunner {
  preToolUse(args: HookCallArgs): Promise<PreToolUseHookOutcome>;
  postToolUse(args: HookCallArgs & { response: unknown }): Promise<PostToolUseHookOutcome>;
  postToolUseFailure(args: HookCallArgs & { error: string; isInterrupt: boolean }): Promise<PostToolUseHookOutcome>;
  permissionRequest(args: HookCallArgs & { decision: PermissionDecision }): Promise<PermissionRequestHookOutcome>;
  /** A call denied by a rule, a hook, the mode or the user; it will not run. Optional for runners written before it. */
  permissionDenied?(args: HookCallArgs & { reason: string }): Promise<PostToolUseHookOutcome>;
}
