import { z } from "zod";
import type { AnyObject, HookNotice, SessionHookEvent } from "../core/Tool.js";
import { ERROR_MESSAGE_MAX_CHARS, truncateMiddle } from "../core/errors.js";
import type { HookExecResult } from "./execHook.js";

export type ToolHookEvent = "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "PermissionRequest" | "PermissionDenied";
export type AnyHookEvent = ToolHookEvent | SessionHookEvent;

/** What one hook said, before it is combined with the other hooks of the same event. */
export interface HookVerdict {
  command: string;
  /** The settings file that configured the hook. */
  file?: string;
  notices: HookNotice[];
  additionalContext?: string;
  preventContinuation?: { reason: string };
  /** PreToolUse. */
  permissionDecision?: { behavior: "allow" | "deny" | "ask"; reason?: string };
  /** PreToolUse (hookSpecificOutput.updatedInput) and PermissionRequest (decision.updatedInput). */
  updatedInput?: AnyObject;
  /** PostToolUse, PostToolUseFailure and PermissionDenied. */
  blockingError?: string;
  /** PermissionRequest. */
  permissionRequestDecision?: { behavior: "allow" | "deny"; message?: string };
}

const inputRecord = z.record(z.string(), z.unknown());

// Not strict: hooks written for Claude Code may print fields toolgate ignores (suppressOutput, …).
const hookJSONOutputSchema = z.object({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  decision: z.enum(["approve", "block"]).optional(),
  reason: z.string().optional(),
  systemMessage: z.string().optional(),
  hookSpecificOutput: z
    .object({
      hookEventName: z.string().optional(),
      permissionDecision: z.enum(["allow", "deny", "ask"]).optional(),
      permissionDecisionReason: z.string().optional(),
      updatedInput: inputRecord.optional(),
      additionalContext: z.string().optional(),
      decision: z
        .object({
          behavior: z.enum(["allow", "deny"]),
          updatedInput: inputRecord.optional(),
          message: z.string().optional(),
          interrupt: z.boolean().optional(),
        })
        .optional(),
    })
    .optional(),
});

type HookJSONOutput = z.infer<typeof hookJSONOutputSchema>;

/** Text from a hook, bounded so a chatty hook cannot flood the model or the user. */
function clip(text: string, truncated: boolean): string {
  const trimmed = truncateMiddle(text.trim(), ERROR_MESSAGE_MAX_CHARS);
  return truncated ? `${trimmed}\n[output truncated]` : trimmed;
}

function applyJSON(event: AnyHookEvent, verdict: HookVerdict, output: HookJSONOutput): void {
  const notice = (level: HookNotice["level"], message: string) =>
    verdict.notices.push({ hookEvent: event, command: verdict.command, level, message });

  if (output.systemMessage) notice("info", output.systemMessage);
  if (output.continue === false) {
    verdict.preventContinuation = { reason: output.stopReason || `A ${event} hook stopped the turn.` };
  }

  let specific = output.hookSpecificOutput;
  if (specific?.hookEventName !== undefined && specific.hookEventName !== event) {
    notice("warning", `hookSpecificOutput.hookEventName is "${specific.hookEventName}" but this hook ran for ${event}; hookSpecificOutput ignored.`);
    specific = undefined;
  }
  if (specific?.additionalContext) verdict.additionalContext = specific.additionalContext;

  switch (event) {
    case "PreToolUse":
      if (specific?.permissionDecision) {
        verdict.permissionDecision = { behavior: specific.permissionDecision, reason: specific.permissionDecisionReason };
      } else if (output.decision) {
        verdict.permissionDecision = { behavior: output.decision === "approve" ? "allow" : "deny", reason: output.reason };
      }
      if (specific?.updatedInput) verdict.updatedInput = specific.updatedInput;
      break;
    case "PostToolUse":
    case "PostToolUseFailure":
    case "PermissionDenied":
    case "UserPromptSubmit":
    case "Stop":
    case "SubagentStop":
    case "PreCompact":
      if (output.decision === "block") verdict.blockingError = output.reason || `Blocked by the ${event} hook \`${verdict.command}\`.`;
      break;
    case "PermissionRequest": {
      const decision = specific?.decision;
      if (!decision) break;
      verdict.permissionRequestDecision = { behavior: decision.behavior, message: decision.message };
      if (decision.behavior === "allow" && decision.updatedInput) verdict.updatedInput = decision.updatedInput;
      if (decision.behavior === "deny" && decision.interrupt) {
        verdict.preventContinuation ??= { reason: decision.message || "A PermissionRequest hook denied the call and stopped the turn." };
      }
      break;
    }
  }
}

function parseJSONOutput(stdout: string): { ok: true; value: HookJSONOutput } | { ok: false; message: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(stdout);
  } catch (err) {
    return { ok: false, message: `its stdout starts with "{" but is not valid JSON (${(err as Error).message})` };
  }
  const parsed = hookJSONOutputSchema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`);
  return { ok: false, message: `its JSON output has fields of the wrong type (${problems.join("; ")})` };
}

/** Turn one hook's exit status and output into its verdict (Claude Code's exit-code and JSON protocol). */
export function interpretHookResult(event: AnyHookEvent, command: string, result: HookExecResult, timeoutSeconds: number): HookVerdict {
  const verdict: HookVerdict = { command, notices: [] };
  const notice = (level: HookNotice["level"], message: string) => verdict.notices.push({ hookEvent: event, command, level, message });

  switch (result.kind) {
    case "spawnFailed":
      notice("error", `${event} hook \`${command}\` could not start: ${result.message}. It gave no decision.`);
      return verdict;
    case "timedOut":
      notice("error", `${event} hook \`${command}\` timed out after ${timeoutSeconds} s and was killed. It gave no decision.`);
      return verdict;
    case "cancelled":
      notice("info", `${event} hook \`${command}\` was killed because the tool call was cancelled.`);
      return verdict;
    case "signaled": {
      const stderr = clip(result.stderr, result.stderrTruncated);
      notice("error", `${event} hook \`${command}\` crashed (killed by ${result.signal})${stderr ? `: ${stderr}` : ""}. It gave no decision.`);
      return verdict;
    }
    case "exited":
      break;
  }

  if (result.code === 2) {
    const stderr = clip(result.stderr, result.stderrTruncated) || `The ${event} hook \`${command}\` exited with code 2 without a message.`;
    if (event === "PreToolUse") verdict.permissionDecision = { behavior: "deny", reason: stderr };
    else if (event === "PermissionRequest") verdict.permissionRequestDecision = { behavior: "deny", message: stderr };
    else verdict.blockingError = stderr;
    return verdict;
  }
  if (result.code !== 0) {
    const stderr = clip(result.stderr, result.stderrTruncated);
    notice("error", `${event} hook \`${command}\` failed with exit code ${result.code}${stderr ? `: ${stderr}` : " (no stderr)"}.`);
    return verdict;
  }

  const stdout = result.stdout.trim();
  if (!stdout.startsWith("{")) {
    // Claude Code's protocol: what these hooks print is context for the model.
    if ((event === "UserPromptSubmit" || event === "SessionStart") && stdout) verdict.additionalContext = clip(stdout, result.stdoutTruncated);
    return verdict;
  }
  const parsed = parseJSONOutput(stdout);
  if (!parsed.ok) {
    const truncated = result.stdoutTruncated ? " Its stdout was cut at the output limit." : "";
    notice("error", `${event} hook \`${command}\` printed malformed JSON: ${parsed.message}.${truncated} Its output was ignored and it gave no decision.`);
    return verdict;
  }
  applyJSON(event, verdict, parsed.value);
  return verdict;
}
