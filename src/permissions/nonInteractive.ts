import type { CanUseToolFn } from "../core/Tool.js";
import { describeDecisionReason, howToAllow } from "./explain.js";

/**
 * The canUseTool of sessions that cannot prompt (`toolgate exec`, SDK runs without a callback):
 * what would ask is denied, and the message says why it asked and which rule would allow it.
 */
export function createNonInteractiveCanUseTool(): CanUseToolFn {
  return async (tool, _input, _context, _assistantMessage, _toolUseID, decision) => {
    if (decision.behavior !== "ask") return decision;
    const hint = howToAllow(decision);
    const why = decision.decisionReason ? ` (${describeDecisionReason(decision.decisionReason)})` : "";
    return {
      behavior: "deny",
      message: `${decision.message}${why} This session is non-interactive, so the ${tool.name} call was denied instead of asking.${hint ? ` ${hint}` : ""}`,
      decisionReason: { type: "nonInteractive", reason: `would ask: ${describeDecisionReason(decision.decisionReason)}` },
      suggestions: decision.suggestions,
    };
  };
}
