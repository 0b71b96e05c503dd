import type { AnyObject, HookNotice, PermissionRequestHookOutcome, PostToolUseHookOutcome, PreToolUseHookOutcome, SessionHookOutcome } from "../core/Tool.js";
import type { HookVerdict, ToolHookEvent } from "./output.js";

const PRECEDENCE = ["deny", "ask", "allow"] as const;

function baseOutcome(verdicts: readonly HookVerdict[]) {
  const stops = verdicts.flatMap((v) => (v.preventContinuation ? [v.preventContinuation.reason] : []));
  return {
    preventContinuation: stops.length ? { reason: stops.join("\n") } : undefined,
    additionalContext: verdicts.flatMap((v) => (v.additionalContext ? [v.additionalContext] : [])),
    notices: verdicts.flatMap((v) => v.notices),
  };
}

/** The last rewrite in configuration order wins; when several hooks rewrote, the user is told which one. */
function pickUpdatedInput(
  event: ToolHookEvent,
  toolName: string,
  rewriters: readonly HookVerdict[],
  notices: HookNotice[],
): AnyObject | undefined {
  const last = rewriters.at(-1);
  if (!last) return undefined;
  if (rewriters.length > 1) {
    notices.push({
      hookEvent: event,
      command: last.command,
      level: "warning",
      message: `${rewriters.length} ${event} hooks rewrote the input of ${toolName} (${rewriters.map((v) => `\`${v.command}\``).join(", ")}); using the one from \`${last.command}\`, the last in configuration order.`,
    });
  }
  return last.updatedInput;
}

function withoutUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as Array<keyof T>) if (value[key] === undefined) delete value[key];
  return value;
}

/**
 * deny > ask > allow. The rewritten input comes from the hooks that gave the winning verdict, or that
 * gave none; a deny never carries one (the call will not run).
 */
export function combinePreToolUse(verdicts: readonly HookVerdict[], toolName: string): PreToolUseHookOutcome {
  const outcome: PreToolUseHookOutcome = baseOutcome(verdicts);
  const behavior = PRECEDENCE.find((b) => verdicts.some((v) => v.permissionDecision?.behavior === b));
  if (behavior) {
    const deciding = verdicts.filter((v) => v.permissionDecision?.behavior === behavior);
    const reasons = deciding.flatMap((v) => (v.permissionDecision?.reason ? [v.permissionDecision.reason] : []));
    outcome.permissionDecision = withoutUndefined({
      behavior,
      reason: reasons.length ? reasons.join("\n") : undefined,
      command: deciding[0].command,
      file: deciding[0].file,
    });
  }
  if (behavior !== "deny") {
    const rewriters = verdicts.filter(
      (v) => v.updatedInput && (v.permissionDecision === undefined || v.permissionDecision.behavior === behavior),
    );
    outcome.updatedInput = pickUpdatedInput("PreToolUse", toolName, rewriters, outcome.notices);
  }
  return withoutUndefined(outcome);
}

export function combinePostToolUse(verdicts: readonly HookVerdict[]): PostToolUseHookOutcome {
  const outcome: PostToolUseHookOutcome = baseOutcome(verdicts);
  const errors = verdicts.flatMap((v) => (v.blockingError ? [v.blockingError] : []));
  if (errors.length) outcome.blockingError = errors.join("\n");
  return withoutUndefined(outcome);
}

/** deny > allow; the decision says which hook made it and why. */
export function combinePermissionRequest(verdicts: readonly HookVerdict[], toolName: string): PermissionRequestHookOutcome {
  const outcome: PermissionRequestHookOutcome = baseOutcome(verdicts);
  const denying = verdicts.filter((v) => v.permissionRequestDecision?.behavior === "deny");
  const allowing = verdicts.filter((v) => v.permissionRequestDecision?.behavior === "allow");
  const deciding = denying.length ? denying : allowing;
  if (deciding.length === 0) return withoutUndefined(outcome);

  const messages = deciding.flatMap((v) => (v.permissionRequestDecision?.message ? [v.permissionRequestDecision.message] : []));
  const reason = messages.length ? messages.join("\n") : undefined;
  const decisionReason = withoutUndefined({ type: "hook" as const, hookEvent: "PermissionRequest", command: deciding[0].command, reason });
  if (denying.length) {
    outcome.decision = { behavior: "deny", message: reason ?? `A PermissionRequest hook denied this ${toolName} call.`, decisionReason };
  } else {
    const updatedInput = pickUpdatedInput("PermissionRequest", toolName, allowing.filter((v) => v.updatedInput), outcome.notices);
    outcome.decision = withoutUndefined({ behavior: "allow" as const, updatedInput, decisionReason });
  }
  return withoutUndefined(outcome);
}

/** UserPromptSubmit, SessionStart, Stop: any hook that blocks blocks, with every blocking reason. */
export function combineSessionHooks(verdicts: readonly HookVerdict[]): SessionHookOutcome {
  const outcome: SessionHookOutcome = baseOutcome(verdicts);
  const reasons = verdicts.flatMap((v) => (v.blockingError ? [v.blockingError] : []));
  if (reasons.length) outcome.block = { reason: reasons.join("\n") };
  return withoutUndefined(outcome);
}
