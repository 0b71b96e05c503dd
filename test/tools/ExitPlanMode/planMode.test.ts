/**
 * Plan mode through the real pipeline and rule engine: reads, TodoWrite and the question tools run; writes are
 * denied without asking; ExitPlanMode always asks, and the answer (as the terminal UI's choices give it) decides
 * the mode the session leaves plan mode for, or keeps it in plan mode with the user's feedback.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CanUseToolFn, ToolUseContext } from "../../../src/core/Tool.js";
import type { PermissionDecision, PermissionMode } from "../../../src/core/permissionTypes.js";
import { createNonInteractiveCanUseTool, hasPermissionsToUseTool } from "../../../src/permissions/index.js";
import { AskUserQuestionTool, BashTool, EditTool, ExitPlanModeTool, GlobTool, ReadTool, TodoWriteTool, WriteTool, getBuiltinTools } from "../../../src/tools/index.js";
import { subagentTools } from "../../../src/agent/subagent.js";
import { answerPermission, permissionChoices } from "../../../src/ui/permissionAnswer.js";
import { tempDir, testContext } from "../../helpers.js";
import { permissionContext, runTool, type RuleSet } from "../Bash/helpers.js";

const PLAN = "# Rename the helper\n\n1. Rename `foo` to `bar` in src/a.ts\n2. Run the tests";

function planSession(mode: PermissionMode = "plan", rules: RuleSet = {}): { context: ToolUseContext; dir: string } {
  const dir = tempDir("toolgate-plan-");
  const context = testContext({ cwd: dir, permissionContext: permissionContext(dir, rules, mode), tools: [ReadTool, GlobTool, WriteTool, EditTool, BashTool, TodoWriteTool, ExitPlanModeTool, AskUserQuestionTool], permissionDecider: hasPermissionsToUseTool });
  fs.writeFileSync(path.join(dir, "a.txt"), "alpha\n");
  return { context, dir };
}

const mode = (context: ToolUseContext) => context.getAppState().toolPermissionContext.mode;

/** Records every ask and answers it with `answer`. */
function asker(answer: (decision: PermissionDecision, context: ToolUseContext) => PermissionDecision) {
  const asked: string[] = [];
  const canUseTool: CanUseToolFn = async (tool, input, context, _m, toolUseID, decision) => {
    if (decision.behavior !== "ask") return decision;
    asked.push(tool.name);
    return answer(decision, context);
  };
  return { asked, canUseTool };
}

/** What the terminal UI's plan dialog gives for choice `index` (0 yes, 1 yes and accept edits, 2 keep planning). */
function planAnswer(index: number, feedback?: string) {
  return (decision: PermissionDecision, context: ToolUseContext): PermissionDecision => {
    if (decision.behavior !== "ask") throw new Error("expected an ask");
    const choices = permissionChoices(decision, { cwd: context.getCwd(), home: context.paths.home }, "ExitPlanMode");
    return answerPermission({ tool: ExitPlanModeTool, input: { plan: PLAN }, toolUseID: "toolu_plan", decision }, choices[index]!, context, feedback).decision;
  };
}

describe("plan mode", () => {
  it("denies writes without asking and leaves the files alone", async () => {
    const { context, dir } = planSession();
    const never = asker(() => {
      throw new Error("plan mode must not ask about a write");
    });
    const write = await runTool(context, "Write", { file_path: path.join(dir, "b.txt"), content: "new\n" }, never.canUseTool);
    expect(write.result.block.is_error).toBe(true);
    expect(write.text).toMatch(/plan mode.*only read-only tools run/);
    expect(fs.existsSync(path.join(dir, "b.txt"))).toBe(false);
    await runTool(context, "Read", { file_path: path.join(dir, "a.txt") }, never.canUseTool);
    const edit = await runTool(context, "Edit", { file_path: path.join(dir, "a.txt"), old_string: "alpha", new_string: "beta" }, never.canUseTool);
    expect(edit.result.block.is_error).toBe(true);
    expect(edit.text).toMatch(/plan mode/);
    expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("alpha\n");
    const bash = await runTool(context, "Bash", { command: "touch c.txt" }, never.canUseTool);
    expect(bash.result.block.is_error).toBe(true);
    expect(bash.text).toMatch(/plan mode/);
    expect(fs.existsSync(path.join(dir, "c.txt"))).toBe(false);
    expect(never.asked).toEqual([]);
  });

  it("runs reads and TodoWrite without asking", async () => {
    const { context, dir } = planSession();
    const never = asker(() => {
      throw new Error("plan mode must not ask about a read");
    });
    const read = await runTool(context, "Read", { file_path: path.join(dir, "a.txt") }, never.canUseTool);
    expect(read.result.block.is_error).toBeFalsy();
    expect(read.text).toContain("alpha");
    const glob = await runTool(context, "Glob", { pattern: "*.txt" }, never.canUseTool);
    expect(glob.text).toContain("a.txt");
    const todos = await runTool(context, "TodoWrite", { todos: [{ content: "Rename foo", status: "pending", activeForm: "Renaming foo" }] }, never.canUseTool);
    expect(todos.result.block.is_error).toBeFalsy();
    expect(context.todos?.get()).toHaveLength(1);
    expect(never.asked).toEqual([]);
    expect(mode(context)).toBe("plan");
  });

  it("ExitPlanMode asks; yes leaves plan mode for default and hands the plan back", async () => {
    const { context, dir } = planSession();
    const yes = asker(planAnswer(0));
    const exit = await runTool(context, "ExitPlanMode", { plan: PLAN }, yes.canUseTool);
    expect(yes.asked).toEqual(["ExitPlanMode"]);
    expect(exit.result.block.is_error).toBeFalsy();
    expect(exit.text).toContain("now default mode");
    expect(exit.text).toContain("Rename `foo` to `bar`");
    expect(mode(context)).toBe("default");
    // out of plan mode, a write asks again (default mode) instead of being denied
    const write = asker(() => ({ behavior: "deny", message: "not now" }));
    await runTool(context, "Write", { file_path: path.join(dir, "b.txt"), content: "x" }, write.canUseTool);
    expect(write.asked).toEqual(["Write"]);
  });

  it("'yes, and accept edits' leaves plan mode for acceptEdits", async () => {
    const { context } = planSession();
    const exit = await runTool(context, "ExitPlanMode", { plan: PLAN }, asker(planAnswer(1)).canUseTool);
    expect(exit.result.block.is_error).toBeFalsy();
    expect(exit.text).toContain("now acceptEdits mode");
    expect(exit.text).toContain("File edits are accepted without asking");
    expect(mode(context)).toBe("acceptEdits");
  });

  it("keep planning: the feedback is the tool_result and the mode stays plan", async () => {
    const { context } = planSession();
    const exit = await runTool(context, "ExitPlanMode", { plan: PLAN }, asker(planAnswer(2, "also update the docs")).canUseTool);
    expect(exit.result.block.is_error).toBe(true);
    expect(exit.text).toContain("did not approve the plan");
    expect(exit.text).toContain("Their feedback: also update the docs");
    expect(mode(context)).toBe("plan");
  });

  it("with no one to ask the plan is not approved and the mode stays plan", async () => {
    const { context } = planSession();
    const exit = await runTool(context, "ExitPlanMode", { plan: PLAN }, createNonInteractiveCanUseTool());
    expect(exit.result.block.is_error).toBe(true);
    expect(exit.text).toMatch(/non-interactive/);
    expect(mode(context)).toBe("plan");
  });

  it("an allow rule ExitPlanMode approves every plan without asking", async () => {
    const { context } = planSession("plan", { allow: ["ExitPlanMode"] });
    const never = asker(() => {
      throw new Error("must not ask");
    });
    const exit = await runTool(context, "ExitPlanMode", { plan: PLAN }, never.canUseTool);
    expect(exit.result.block.is_error).toBeFalsy();
    expect(never.asked).toEqual([]);
    expect(mode(context)).toBe("default");
  });

  it("outside plan mode ExitPlanMode fails without asking; an empty plan is refused", async () => {
    const { context } = planSession("default");
    const never = asker(() => {
      throw new Error("must not ask");
    });
    const exit = await runTool(context, "ExitPlanMode", { plan: PLAN }, never.canUseTool);
    expect(exit.result.block.is_error).toBe(true);
    expect(exit.text).toContain("not in plan mode (it is in default mode)");
    const plan = planSession();
    const empty = await runTool(plan.context, "ExitPlanMode", { plan: "  " }, never.canUseTool);
    expect(empty.result.block.is_error).toBe(true);
    expect(empty.text).toContain("write the plan");
    expect(never.asked).toEqual([]);
  });

  it("AskUserQuestion is let through to its question in plan mode", async () => {
    const { context } = planSession();
    const answered = asker((decision) => ({ behavior: "allow", updatedInput: { questions: [{ question: "Which name?", header: "Name", options: [{ label: "bar", description: "" }, { label: "baz", description: "" }], multiSelect: false }], answers: { "Which name?": "baz" } }, decisionReason: { type: "other", reason: decision.behavior } }));
    const ask = await runTool(context, "AskUserQuestion", { questions: [{ question: "Which name?", header: "Name", options: [{ label: "bar", description: "" }, { label: "baz", description: "" }], multiSelect: false }] }, answered.canUseTool);
    expect(answered.asked).toEqual(["AskUserQuestion"]);
    expect(ask.text).toContain('"Which name?" → "baz"');
    expect(mode(context)).toBe("plan");
  });
});

describe("subagents", () => {
  it("never get ExitPlanMode or AskUserQuestion, even when their type lists them", () => {
    const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name);
    expect(names(getBuiltinTools())).toEqual(expect.arrayContaining(["ExitPlanMode", "AskUserQuestion"]));
    const all = names(subagentTools(getBuiltinTools(), {}));
    expect(all).toContain("TodoWrite");
    expect(all).not.toContain("ExitPlanMode");
    expect(all).not.toContain("AskUserQuestion");
    expect(names(subagentTools(getBuiltinTools(), { tools: ["ExitPlanMode", "AskUserQuestion", "Read"] }))).toEqual(["Read"]);
  });
});
