import { describe, expect, it } from "vitest";
import { orderDecision, type DecisionFacts } from "../../src/core/permissionOrder.js";
import type { PermissionRule } from "../../src/core/permissionTypes.js";

const rule = (ruleBehavior: PermissionRule["ruleBehavior"]): PermissionRule => ({ source: "session", ruleBehavior, ruleValue: { toolName: "T" } });
const deny = { behavior: "deny" as const, message: "content deny" };
const ask = (message: string, forced = false) => ({
  behavior: "ask" as const,
  message,
  ...(forced && { decisionReason: { type: "rule" as const, rule: rule("ask") } }),
});
const base: DecisionFacts = { toolName: "T", toolResult: { behavior: "passthrough", message: "" } };

describe("the one decision order", () => {
  const cases: Array<[string, Partial<DecisionFacts>, string]> = [
    ["no facts: ask", {}, "ask:T needs approval."],
    ["the tool's deny beats an allow rule and bypass", { toolResult: { behavior: "deny", message: "tool says no" }, allowRule: { type: "rule", rule: rule("allow") }, bypass: true }, "deny:tool says no"],
    ["a content deny beats a whole-tool ask", { contentDeny: deny, wholeAsk: ask("whole ask") }, "deny:content deny"],
    ["plan mode denies before asks", { planDeny: { behavior: "deny", message: "plan" }, wholeAsk: ask("whole ask") }, "deny:plan"],
    ["a whole-tool ask beats bypass", { wholeAsk: ask("whole ask"), bypass: true }, "ask:whole ask"],
    ["a forced ask from the tool beats an allow rule", { toolResult: ask("safety", true), allowRule: { type: "rule", rule: rule("allow") } }, "ask:safety"],
    ["a hook ask beats bypass and allow rules", { hookDecision: { behavior: "ask", reason: "check it" }, bypass: true }, "ask:check it"],
    ["bypass allows what would ask", { bypass: true }, "allow:mode"],
    ["an allow rule allows", { allowRule: { type: "rule", rule: rule("allow") } }, "allow:rule"],
    ["the tool's own allow allows", { toolResult: { behavior: "allow" } }, "allow:"],
    ["a hook allow skips the default ask", { hookDecision: { behavior: "allow" } }, "allow:hook"],
    ["a hook allow beats the tool's ordinary (not forced) ask", { toolResult: ask("tool asks"), hookDecision: { behavior: "allow" } }, "allow:hook"],
    ["a hook deny is not the order's business (the pipeline ends the call before)", { hookDecision: { behavior: "deny" } }, "ask:T needs approval."],
  ];
  for (const [label, facts, expected] of cases) {
    it(label, () => {
      const decision = orderDecision({ ...base, ...facts });
      const detail = decision.behavior === "allow" ? (decision.decisionReason?.type ?? "") : decision.message;
      expect(`${decision.behavior}:${detail}`).toBe(expected);
    });
  }

  it("adds suggestions only to a plain final ask, never to a forced one", () => {
    const suggest = (a: { message: string }) => ({ ...a, behavior: "ask" as const, suggestions: [{ type: "setMode" as const, mode: "acceptEdits" as const, destination: "session" as const }] });
    expect(orderDecision({ ...base, suggest })).toMatchObject({ suggestions: [{ type: "setMode" }] });
    expect(orderDecision({ ...base, toolResult: ask("safety", true), suggest })).not.toHaveProperty("suggestions");
  });
});
