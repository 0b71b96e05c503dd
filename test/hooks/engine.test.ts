import { afterEach, describe, expect, it } from "vitest";
import { createEmptyPermissionContext } from "../../src/core/context.js";
import type { PermissionBehavior, PermissionRule } from "../../src/core/permissionTypes.js";
import { createNonInteractiveCanUseTool, hasPermissionsToUseTool } from "../../src/permissions/index.js";
import { hooksFor, makeContext, makeEchoTool, makeTempDir, nodeHook, recordingCanUseTool, removeTempDirs, resultText, runnerFor, runOne } from "./helpers.js";

afterEach(removeTempDirs);

const jsonHook = (dir: string, name: string, output: unknown) => nodeHook(dir, name, `process.stdout.write(${JSON.stringify(JSON.stringify(output))});`);

const rule = (ruleBehavior: PermissionBehavior, toolName: string): PermissionRule => ({
  source: "projectSettings",
  ruleBehavior,
  ruleValue: { toolName },
  file: "/project/.toolgate/settings.json",
});

function setup(options: { preToolUse?: unknown; permissionRequest?: unknown; rules?: PermissionRule[]; permission?: "allow" | "passthrough"; nonInteractive?: boolean }) {
  const dir = makeTempDir();
  const echo = makeEchoTool({ permission: options.permission ?? "passthrough" });
  const hooks: Record<string, unknown[]> = {};
  if (options.preToolUse) hooks.PreToolUse = [{ hooks: [{ type: "command", command: jsonHook(dir, "pre.js", options.preToolUse) }] }];
  if (options.permissionRequest) hooks.PermissionRequest = [{ hooks: [{ type: "command", command: jsonHook(dir, "perm.js", options.permissionRequest) }] }];
  const permissionContext = {
    ...createEmptyPermissionContext(dir),
    rules: options.rules ?? [],
    shouldAvoidPermissionPrompts: options.nonInteractive ?? false,
  };
  const context = makeContext(dir, [echo.tool], { hookRunner: runnerFor(dir, hooks), permissionDecider: hasPermissionsToUseTool, permissionContext });
  return { dir, context, ...echo };
}

const HOOK_ALLOW = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "hook says fine" } };

describe("hook verdicts and the permission engine", () => {
  it("a hook allow does not override a deny rule", async () => {
    const { context, calls } = setup({ preToolUse: HOOK_ALLOW, rules: [rule("deny", "Echo")] });
    const prompt = recordingCanUseTool("allow");

    const result = await runOne(context, "Echo", { text: "hi" }, prompt.fn);

    expect(result.outcome).toBe("denied");
    expect(resultText(result)).toMatch(/denied by rule/);
    expect(prompt.asked).toEqual([]);
    expect(calls).toEqual([]);
  });

  it("a hook allow does not override an ask rule: the user is still asked", async () => {
    const { context, calls } = setup({ preToolUse: HOOK_ALLOW, rules: [rule("ask", "Echo")] });
    const prompt = recordingCanUseTool("deny");

    const result = await runOne(context, "Echo", { text: "hi" }, prompt.fn);

    expect(prompt.asked).toHaveLength(1);
    expect(prompt.asked[0]).toMatchObject({ behavior: "ask", decisionReason: { type: "rule" } });
    expect(result.outcome).toBe("denied");
    expect(calls).toEqual([]);
  });

  it("without a rule, a hook allow skips the default ask and is credited in the decision", async () => {
    const { context, calls } = setup({ preToolUse: HOOK_ALLOW });
    const prompt = recordingCanUseTool("deny");

    const result = await runOne(context, "Echo", { text: "hi" }, prompt.fn);

    expect(result.outcome).toBe("success");
    expect(prompt.asked).toEqual([]);
    expect(calls).toEqual([{ text: "hi" }]);
  });

  it("a hook ask makes the engine ask even when the tool itself would allow", async () => {
    const { context, calls } = setup({
      preToolUse: { hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "touches billing" } },
      permission: "allow",
    });
    const prompt = recordingCanUseTool("deny");

    await runOne(context, "Echo", { text: "hi" }, prompt.fn);

    expect(prompt.asked).toHaveLength(1);
    expect(prompt.asked[0]).toMatchObject({ behavior: "ask", decisionReason: { type: "hook", hookEvent: "PreToolUse", reason: "touches billing" } });
    expect(prompt.asked[0].behavior === "ask" && prompt.asked[0].message).toMatch(/touches billing/);
    expect(calls).toEqual([]);
  });

  it("non-interactive: a hook's ask is denied saying the hook asked (its reason once) and how to change the hook, not which rule to add", async () => {
    const { context, calls } = setup({
      preToolUse: { hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "Lockfiles are generated" } },
      rules: [rule("allow", "Echo")],
      nonInteractive: true,
    });

    const result = await runOne(context, "Echo", { text: "hi" }, createNonInteractiveCanUseTool());

    const text = resultText(result);
    expect(result.outcome).toBe("denied");
    expect(calls).toEqual([]);
    expect(text.startsWith("A PreToolUse hook asked for approval of this Echo call: Lockfiles are generated. This session is non-interactive")).toBe(true);
    expect(text.split("Lockfiles are generated")).toHaveLength(2);
    expect(text).toMatch(/change the PreToolUse hook `node ".*pre\.js"` \(hooks\.PreToolUse in \/settings\/0\.json\)/);
    expect(text).toContain("cannot be overridden by allow rules or --allowedTools");
    expect(text).not.toContain("--allowedTools Echo");
    expect(text).not.toContain('--allowedTools "Echo"');
    expect(text).not.toContain("permissions.allow");
  });

  it("interactive: a hook's ask offers no rule to remember, since no allow rule could skip it", async () => {
    const { context } = setup({ preToolUse: { hookSpecificOutput: { permissionDecision: "ask" } } });
    const prompt = recordingCanUseTool("deny");

    await runOne(context, "Echo", { text: "hi" }, prompt.fn);

    expect(prompt.asked).toHaveLength(1);
    expect(prompt.asked[0]).toMatchObject({ behavior: "ask", decisionReason: { type: "hook", file: "/settings/0.json" } });
    expect(prompt.asked[0].behavior === "ask" && prompt.asked[0].suggestions).toBeUndefined();
  });

  it("a PermissionRequest hook answers before a non-interactive session would deny", async () => {
    const allowed = setup({
      permissionRequest: { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } },
      nonInteractive: true,
    });
    const ok = await runOne(allowed.context, "Echo", { text: "hi" }, createNonInteractiveCanUseTool());
    expect(ok.outcome).toBe("success");
    expect(allowed.calls).toEqual([{ text: "hi" }]);

    const plain = setup({ nonInteractive: true });
    const denied = await runOne(plain.context, "Echo", { text: "hi" }, createNonInteractiveCanUseTool());
    expect(denied.outcome).toBe("denied");
    expect(plain.calls).toEqual([]);
  });

  it("a PermissionRequest hook allow does not get past a deny rule (it is never asked)", async () => {
    const { context, calls } = setup({
      permissionRequest: { hookSpecificOutput: { decision: { behavior: "allow" } } },
      rules: [rule("deny", "Echo")],
    });
    const result = await runOne(context, "Echo", { text: "hi" });
    expect(result.outcome).toBe("denied");
    expect(calls).toEqual([]);
  });
});
