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
 * The denial of a call that needs the person's own answer (a question) where no one can give it: the model is
 * told to go on by itself rather than wait or ask again.
 */
export function nobodyToAnswer(toolName: string, why: string): string {
  return `No one can answer ${toolName} in this session (${why}), so nothing was asked. Do not call it again: go on with your own judgement, pick the most reasonable option for each question, and state that assumption in your reply.`;
}

/**
 * The canUseTool of sessions that cannot prompt (`toolgate exec`, SDK runs without a callback):
 * what would ask is denied, and the message says why it asked and which rule would allow it.
 */
export function createNonInteractiveCanUseTool(): CanUseToolFn {
  return async (tool, _input, _context, _assistantMessage, _toolUseID, decision) => {
    if (decision.behavior !== "ask") return decision;
    if (decision.decisionReason?.type === "userInput") {
      return { behavior: "deny", message: nobodyToAnswer(tool.name, "it is non-interactive"), decisionReason: { type: "nonInteractive", reason: "needs the user's answer" } };
    }
    const hint = howToAllow(decision);
    return {
      behavior: "deny",
      message: `${decision.message}${reasonNotInMessage(decision)} This session is non-interactive, so the ${tool.name} call was denied instead of asking.${hint ? ` ${hint}` : ""}`,
      decisionReason: { type: "nonInteractive", reason: `would ask: ${describeDecisionReason(decision.decisionReason)}` },
      suggestions: decision.suggestions,
    };
  };
}
