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
  permissionDecision?: { behavior: "allow" | "deny" | "ask"; reason?: string; command?: string };
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

export interface HookCallArgs {
  tool: AnyTool;
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
}
