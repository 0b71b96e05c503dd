/** What the telemetry events say: decision sources, and that inputs stay out unless the user opted in. */
import { describe, expect, it } from "vitest";
import { decisionSource, telemetryEnabled, telemetryOptions } from "../../src/telemetry/index.js";
import { toolDecisionAttributes, toolResultAttributes, userPromptAttributes } from "../../src/telemetry/events.js";
import type { PermissionDecision, PermissionRule, PermissionRuleSource } from "../../src/core/permissionTypes.js";
import type { AnyTool } from "../../src/core/Tool.js";

const rule = (source: PermissionRuleSource, behavior: "allow" | "deny" = "allow"): PermissionRule => ({ source, ruleBehavior: behavior, ruleValue: { toolName: "Bash", ruleContent: "touch:*" } });
const allowBy = (source: PermissionRuleSource): PermissionDecision => ({ behavior: "allow", decisionReason: { type: "rule", rule: rule(source) } });

describe("decisionSource", () => {
  it("maps rule sources: session → user_temporary, local/user settings → user_permanent, others → config", () => {
    expect(decisionSource(allowBy("session"), false)).toBe("user_temporary");
    expect(decisionSource(allowBy("localSettings"), false)).toBe("user_permanent");
    expect(decisionSource(allowBy("userSettings"), false)).toBe("user_permanent");
    for (const source of ["projectSettings", "flagSettings", "policySettings", "cliArg"] as const) expect(decisionSource(allowBy(source), false)).toBe("config");
    expect(decisionSource({ behavior: "deny", message: "no", decisionReason: { type: "rule", rule: rule("userSettings", "deny") } }, false)).toBe("user_permanent");
  });

  it("a command judged per part takes the deciding part's rule, else the first part a rule decided", () => {
    const parts = [
      { command: "git status", result: { behavior: "allow" as const, decisionReason: { type: "tool" as const, reason: "read-only" } } },
      { command: "touch x", result: allowBy("localSettings") },
    ];
    expect(decisionSource({ behavior: "allow", decisionReason: { type: "subcommands", parts } }, false)).toBe("user_permanent");
    const denied: PermissionDecision = {
      behavior: "deny",
      message: "no",
      decisionReason: { type: "subcommands", parts: [...parts, { command: "rm -rf x", result: { behavior: "deny", message: "no", decisionReason: { type: "rule", rule: rule("projectSettings", "deny") } } }], decidingPart: "rm -rf x" },
    };
    expect(decisionSource(denied, false)).toBe("config");
  });

  it("answers to a question: allow → user_temporary, deny → user_reject; automatic answers are config", () => {
    expect(decisionSource({ behavior: "allow", decisionReason: { type: "other", reason: "allowed by the controlling client" } }, true)).toBe("user_temporary");
    expect(decisionSource({ behavior: "deny", message: "The user rejected this call." }, true)).toBe("user_reject");
    expect(decisionSource({ behavior: "deny", message: "x", decisionReason: { type: "nonInteractive", reason: "would ask" } }, true)).toBe("config");
    expect(decisionSource({ behavior: "deny", message: "x", decisionReason: { type: "other", reason: "auto mode: looks destructive" } }, true)).toBe("config");
    // Modes, hooks, checks and the tool's own verdict are configuration.
    expect(decisionSource({ behavior: "allow", decisionReason: { type: "mode", mode: "acceptEdits" } }, false)).toBe("config");
    expect(decisionSource({ behavior: "deny", message: "x", decisionReason: { type: "hook", hookEvent: "PreToolUse" } }, false)).toBe("config");
  });
});

describe("event attributes", () => {
  const bash = { name: "Bash", describeInput: (input: { command?: string }) => input.command ?? "" } as unknown as AnyTool;
  const input = { command: "cat /home/me/secret.txt" };
  const off = { includeInputs: false, logUserPrompts: false };
  const on = { includeInputs: true, logUserPrompts: true };

  it("carry the input and the prompt only with the opt-ins", () => {
    const decision = { toolName: "Bash", toolUseID: "t1", verdict: { behavior: "allow" as const }, asked: false, tool: bash, input };
    expect(JSON.stringify(toolDecisionAttributes(decision, off))).not.toContain("secret");
    expect(toolDecisionAttributes(decision, on).tool_input).toBe("cat /home/me/secret.txt");
    const result = { toolName: "Bash", toolUseID: "t1", outcome: "tool_error", durationMs: 12, errorLabel: "Error:ENOENT", tool: bash, input };
    expect(toolResultAttributes(result, off)).toEqual({ tool_name: "Bash", tool_use_id: "t1", outcome: "tool_error", success: false, duration_ms: 12, error: "Error:ENOENT" });
    expect(toolResultAttributes(result, on).tool_input).toBe("cat /home/me/secret.txt");
    expect(userPromptAttributes("fix /home/me/app", off)).toEqual({ prompt_length: 16 });
    expect(userPromptAttributes("fix /home/me/app", on)).toEqual({ prompt_length: 16, prompt: "fix /home/me/app" });
  });

  it("a tool name the model made up (no such tool) is not exported", () => {
    const attributes = toolResultAttributes({ toolName: "/etc/passwd", toolUseID: "t1", outcome: "invalid_input", durationMs: 0, input: {} }, on);
    expect(attributes.tool_name).toBe("unknown");
    expect(JSON.stringify(attributes)).not.toContain("passwd");
  });

  it("a tool_use id that is not shaped like an id (any text an OpenAI-compatible server sent) is exported only as a hash", () => {
    const weird = "call_/home/me/secret.txt && rm -rf ~";
    const result = toolResultAttributes({ toolName: "Bash", toolUseID: weird, outcome: "success", durationMs: 1, tool: bash, input }, off);
    expect(result.tool_use_id).toMatch(/^sha256:[0-9a-f]{16}$/);
    const decision = toolDecisionAttributes({ toolName: "Bash", toolUseID: weird, verdict: { behavior: "allow" }, asked: false, tool: bash, input }, off);
    expect(decision.tool_use_id).toBe(result.tool_use_id);
    expect(toolResultAttributes({ toolName: "Bash", toolUseID: "toolu_01AbC-9", outcome: "success", durationMs: 1, tool: bash, input }, off).tool_use_id).toBe("toolu_01AbC-9");
  });

  it("is enabled only by TOOLGATE_ENABLE_TELEMETRY set to a true value", () => {
    expect(telemetryEnabled({})).toBe(false);
    expect(telemetryEnabled({ TOOLGATE_ENABLE_TELEMETRY: "0" })).toBe(false);
    expect(telemetryEnabled({ TOOLGATE_ENABLE_TELEMETRY: "" })).toBe(false);
    expect(telemetryEnabled({ TOOLGATE_ENABLE_TELEMETRY: "1" })).toBe(true);
    expect(telemetryEnabled({ TOOLGATE_ENABLE_TELEMETRY: "true" })).toBe(true);
    expect(telemetryOptions({ OTEL_LOG_USER_PROMPTS: "1" })).toEqual({ includeInputs: false, logUserPrompts: true });
  });
});
