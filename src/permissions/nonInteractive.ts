import type { CanUseToolFn } from "../core/Tool.js";
import type { PermissionAskDecision } from "../core/permissionTypes.js";
import { describeDecisionReason, howToAllow } from "./explain.js";
import { ruleToString } from "./rules.js";

/** The reason in words, unless the ask's message already says it (path and mode messages do). */
function reasonNotInMessage(decision: PermissionAskDecision): string {
  const reason = decision.decisionReason;
  if (!reason || reason.type === "workingDirectory" || reason.type === "mode" || reason.type === "safetyCheck" || reason.type === "hook") return "";
  if (reason.type === "rule" && decision.message.includes(JSON.stringify(ruleToString(reason.rule)))) return "";
  return ` (${describeDecisionReason(reason)})`;
}

/**
 * The canUseTool of sessions that cannot prompt (`toolgate exec`, SDK runs without a callback):
 * what would ask is denied, and the message says why it asked and which rule would allow it.
 */
export function createNonInteractiveCanUseTool(): CanUseToolFn {
  return async (tool, _input, _context, _assistantMessage, _toolUseID, decision) => {
    if (decision.behavior !== "ask") return decision;
    const hint = howToAllow(decision);
    return {
      behavior: "deny",
      message: `${decision.message}${reasonNotInMessage(decision)} This session is non-interactive, so the ${tool.name} call was denied instead of asking.${hint ? ` ${hint}` : ""}`,
      decisionReason: { type: "nonInteractive", reason: `would ask: ${describeDecisionReason(decision.decisionReason)}` },
      suggestions: decision.suggestions,
    };
  };
}
