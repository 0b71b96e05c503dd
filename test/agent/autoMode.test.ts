import { describe, expect, it } from "vitest";
import { classifierMayDecide, parseVerdict } from "../../src/agent/autoMode.js";
import type { PermissionDecision, PermissionRule } from "../../src/core/permissionTypes.js";

const rule = (ruleBehavior: PermissionRule["ruleBehavior"]): PermissionRule => ({ source: "projectSettings", ruleBehavior, ruleValue: { toolName: "Bash", ruleContent: "git push:*" } });
const ask = (decisionReason?: Extract<PermissionDecision, { behavior: "ask" }>["decisionReason"]): PermissionDecision => ({ behavior: "ask", message: "needs approval", decisionReason });

describe("auto mode: which asks the classifier may answer", () => {
  it("answers asks that no rule, safety check or hook made", () => {
    expect(classifierMayDecide(ask())).toBe(true);
    expect(classifierMayDecide(ask({ type: "other", reason: "not read-only" }))).toBe(true);
    expect(classifierMayDecide(ask({ type: "workingDirectory", path: "/etc/x", inside: false }))).toBe(true);
  });

  it("never answers an ask rule, a safety check, a hook's ask, or a compound command with such a part", () => {
    expect(classifierMayDecide(ask({ type: "rule", rule: rule("ask") }))).toBe(false);
    expect(classifierMayDecide(ask({ type: "safetyCheck", path: ".git/config", reason: "protected" }))).toBe(false);
    expect(classifierMayDecide(ask({ type: "hook", hookEvent: "PreToolUse", command: "guard.sh" }))).toBe(false);
    const parts = [
      { command: "ls", result: { behavior: "allow" as const } },
      { command: "git push", result: { behavior: "ask" as const, message: "m", decisionReason: { type: "rule" as const, rule: rule("ask") } } },
    ];
    expect(classifierMayDecide(ask({ type: "subcommands", parts }))).toBe(false);
    expect(classifierMayDecide(ask({ type: "subcommands", parts: [parts[0], { command: "make", result: { behavior: "ask", message: "m" } }] }))).toBe(true);
    expect(classifierMayDecide({ behavior: "deny", message: "no" })).toBe(false);
  });
});

describe("auto mode: reading the classifier's answer", () => {
  it("takes the first JSON object with a decision; anything else is no verdict", () => {
    expect(parseVerdict('{"decision":"allow","reason":"builds the project"}')).toEqual({ behavior: "allow", reason: "builds the project" });
    expect(parseVerdict('Sure.\n```json\n{"decision": "deny", "reason": "pushes to a remote"}\n```')).toEqual({ behavior: "deny", reason: "pushes to a remote" });
    expect(parseVerdict('{"decision":"deny"}')).toEqual({ behavior: "deny", reason: "no reason given" });
    expect(parseVerdict('{"decision":"maybe"}')).toBeUndefined();
    expect(parseVerdict("allow")).toBeUndefined();
    expect(parseVerdict('{"decision": "allow", ')).toBeUndefined();
  });
});
