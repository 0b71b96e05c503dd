import type { AnyObject, AnyTool, HookPermissionDecision, ToolUseContext } from "./Tool.js";
import type {
  PermissionAskDecision,
  PermissionDecision,
  PermissionDecisionReason,
  PermissionDenyDecision,
  PermissionResult,
} from "./permissionTypes.js";
import { formatError } from "./errors.js";

/**
 * The one copy of the decision order of SPEC section 4 (steps 3 to 9). The rule engine finds the facts (which
 * rules match, the mode); a context with no engine supplies only the tool's verdict and the hooks' word, and
 * goes through the same order.
 */
export interface DecisionFacts {
  toolName: string;
  /** The tool's own checkPermissions verdict. */
  toolResult: PermissionResult;
  /** A content deny rule that matched. */
  contentDeny?: PermissionDenyDecision;
  /** Plan mode and the call is not read-only. */
  planDeny?: PermissionDenyDecision;
  /** A whole-tool ask rule. */
  wholeAsk?: PermissionAskDecision;
  /** A content ask rule that matched. */
  contentAsk?: PermissionAskDecision;
  /** bypassPermissions mode. */
  bypass?: boolean;
  /** The reason of the allow rule (whole-tool first, then content) that matched. */
  allowRule?: PermissionDecisionReason;
  hookDecision?: HookPermissionDecision;
  /** The text of a hook's ask; by default the hook's own reason. */
  hookAskMessage?: (hook: HookPermissionDecision) => string;
  /** Adds rule suggestions to the final ask (the engine knows the rule syntax; core does not). */
  suggest?: (ask: PermissionAskDecision) => PermissionAskDecision;
}

/**
 * An ask that no mode, allow rule or hook may turn into allow: an ask rule, a safety check (also inside a
 * Bash part) or a PreToolUse hook's ask.
 */
export function isForcedAsk(result: PermissionResult): boolean {
  return result.behavior === "ask" && reasonForcesAsk(result.decisionReason);
}

function reasonForcesAsk(reason: PermissionDecisionReason | undefined): boolean {
  if (!reason) return false;
  if (reason.type === "rule") return reason.rule.ruleBehavior === "ask";
  if (reason.type === "safetyCheck" || reason.type === "userInput") return true;
  if (reason.type === "hook") return reason.hookEvent === "PreToolUse";
  if (reason.type === "subcommands") return reason.parts.some((part) => isForcedAsk(part.result));
  return false;
}

/**
 * What an ask needs a yes for, one key per reason (a Bash command's parts each add theirs). Reasons any yes
 * answers (none given, writing inside a working directory, the mode) add nothing; a path check keys on its
 * path and a rule on the rule, so a yes to one protected path is never a yes to another.
 */
export function askSubjects(result: PermissionResult, into = new Set<string>()): Set<string> {
  if (result.behavior !== "ask" && result.behavior !== "passthrough") return into;
  const reason = result.decisionReason;
  if (!reason) return into;
  switch (reason.type) {
    case "subcommands":
      for (const part of reason.parts) askSubjects(part.result, into);
      break;
    case "rule": {
      const { toolName, ruleContent } = reason.rule.ruleValue;
      into.add(`rule:${reason.rule.ruleBehavior}:${toolName}:${ruleContent ?? ""}`);
      break;
    }
    case "safetyCheck":
      into.add(`safetyCheck:${reason.path ?? ""}:${reason.reason}`);
      break;
    case "workingDirectory":
      if (!reason.inside) into.add(`outside:${reason.path}`);
      break;
    case "hook":
      into.add(`hook:${reason.hookEvent}:${reason.reason ?? ""}`);
      break;
    case "mode":
      break;
    default:
      into.add(`${reason.type}:${reason.reason}`);
  }
  return into;
}

/** The hook's part of a decision reason, without keys the hook did not fill. */
function hookReason(hook: HookPermissionDecision): PermissionDecisionReason {
  return {
    type: "hook",
    hookEvent: "PreToolUse",
    ...(hook.command !== undefined && { command: hook.command }),
    ...(hook.reason !== undefined && { reason: hook.reason }),
    ...(hook.file !== undefined && { file: hook.file }),
  };
}

/**
 * Steps 3 to 9: deny beats ask beats allow, forced asks beat modes and allow rules, and ask is the default.
 * Whatever decides, the decision carries the file the tool's own check judged, so the call uses that file.
 */
export function orderDecision(facts: DecisionFacts): PermissionDecision {
  const decision = order(facts);
  const checkedPath = facts.toolResult.checkedPath;
  return checkedPath && decision.checkedPath !== checkedPath ? { ...decision, checkedPath } : decision;
}

function order(facts: DecisionFacts): PermissionDecision {
  const { toolResult: result, hookDecision, toolName } = facts;
  const suggest = facts.suggest ?? ((ask: PermissionAskDecision) => ask);

  // 3. a deny from the tool or a content deny rule; it also beats a whole-tool ask
  if (result.behavior === "deny") return result;
  if (facts.contentDeny) return facts.contentDeny;
  if (facts.planDeny) return facts.planDeny;

  // 4. whole-tool ask
  if (facts.wholeAsk) return facts.wholeAsk;

  // 5. content ask rules, safety checks and a hook's ask ask in every mode
  if (isForcedAsk(result)) return result as PermissionAskDecision;
  if (facts.contentAsk) return facts.contentAsk;
  // No suggestions: an allow rule cannot override a hook's ask, only a change to the hook can.
  if (hookDecision?.behavior === "ask") {
    const message = facts.hookAskMessage?.(hookDecision) ?? hookDecision.reason ?? `A PreToolUse hook asked for approval before ${toolName} runs.`;
    return { behavior: "ask", message, decisionReason: hookReason(hookDecision) };
  }

  const updatedInput = result.behavior === "allow" ? result.updatedInput : undefined;
  const allow = (decisionReason: PermissionDecisionReason): PermissionDecision =>
    updatedInput ? { behavior: "allow", updatedInput, decisionReason } : { behavior: "allow", decisionReason };

  // 6. bypassPermissions
  if (facts.bypass) return allow({ type: "mode", mode: "bypassPermissions" });

  // 7. allow rules, then the tool's own allow
  if (facts.allowRule) return allow(facts.allowRule);
  if (result.behavior === "allow") return result;

  // 8. a PreToolUse hook allow skips the default ask
  if (hookDecision?.behavior === "allow") return allow(hookReason(hookDecision));

  // 9. ask
  const ask: PermissionAskDecision =
    result.behavior === "ask"
      ? result
      : { behavior: "ask", message: result.message || `${toolName} needs approval.`, decisionReason: result.decisionReason, suggestions: result.suggestions };
  return ask.suggestions?.length || isForcedAsk(ask) ? ask : suggest(ask);
}

/** The tool's own verdict; a check that throws denies (fail closed) instead of failing the call. */
export async function checkToolPermissions(tool: AnyTool, input: AnyObject, context: ToolUseContext): Promise<PermissionResult> {
  try {
    return await tool.checkPermissions(input, context);
  } catch (err) {
    return permissionCheckFailed(tool, err);
  }
}

function permissionCheckFailed(tool: AnyTool, err: unknown): PermissionResult {
  return {
    behavior: "deny",
    message: `The permission check of ${tool.name} failed, so the call was not allowed: ${formatError(err)}`,
    decisionReason: { type: "other", reason: "permission check failed" },
  };
}

/** A context with no rule engine: the same order with no rules, so the tool's verdict and the hooks decide. */
export async function decideWithoutRules(
  tool: AnyTool,
  input: AnyObject,
  context: ToolUseContext,
  hookDecision: HookPermissionDecision | undefined,
): Promise<PermissionDecision> {
  let toolResult: PermissionResult;
  try {
    toolResult = await tool.checkPermissions(input, context);
  } catch (err) {
    toolResult = permissionCheckFailed(tool, err);
  }
  return orderDecision({ toolName: tool.name, toolResult, hookDecision });
}
