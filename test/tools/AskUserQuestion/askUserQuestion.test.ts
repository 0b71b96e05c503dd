/**
 * AskUserQuestion through the real pipeline and rule engine: the limits the model is told about, answers in and
 * out, and the ask that no mode, rule or missing person turns into a silent yes.
 */
import { describe, expect, it } from "vitest";
import type { CanUseToolFn, ToolUseContext } from "../../../src/core/Tool.js";
import type { PermissionDecision, PermissionMode } from "../../../src/core/permissionTypes.js";
import { createNonInteractiveCanUseTool, hasPermissionsToUseTool } from "../../../src/permissions/index.js";
import { AskUserQuestionTool } from "../../../src/tools/index.js";
import { answerQuestions } from "../../../src/ui/permissionAnswer.js";
import { tempDir, testContext } from "../../helpers.js";
import { permissionContext, runTool, type RuleSet } from "../Bash/helpers.js";

const option = (label: string) => ({ label, description: `pick ${label}` });
const question = (text: string, labels: string[], multiSelect = false) => ({ question: text, header: "Choice", options: labels.map(option), multiSelect });
const LIBRARY = question("Which date library should we use?", ["date-fns", "dayjs", "luxon"]);
const FEATURES = question("Which features do you want?", ["dark mode", "export", "sync"], true);

function session(mode: PermissionMode = "default", rules: RuleSet = {}): ToolUseContext {
  const dir = tempDir("toolgate-ask-");
  return testContext({ cwd: dir, permissionContext: permissionContext(dir, rules, mode), tools: [AskUserQuestionTool], permissionDecider: hasPermissionsToUseTool });
}

/** Answers every ask with `answers` filled into the input, as the picker or an SDK host does; records the asks. */
function answering(answers: Record<string, string | string[]> | undefined) {
  const asked: PermissionDecision[] = [];
  const canUseTool: CanUseToolFn = async (_tool, input, _context, _m, _id, decision) => {
    if (decision.behavior !== "ask") return decision;
    asked.push(decision);
    return answers ? { behavior: "allow", updatedInput: { ...input, answers } } : { behavior: "allow" };
  };
  return { asked, canUseTool };
}

const never: CanUseToolFn = async () => {
  throw new Error("an invalid call must not ask");
};

describe("AskUserQuestion", () => {
  it("refuses 0 or 5 questions and 1 or 5 options, telling the model the limit, without asking", async () => {
    const context = session();
    const none = await runTool(context, "AskUserQuestion", { questions: [] }, never);
    expect(none.result.block.is_error).toBe(true);
    expect(none.text).toContain("ask at least 1 question");
    const five = await runTool(context, "AskUserQuestion", { questions: [1, 2, 3, 4, 5].map((n) => question(`Question ${n}?`, ["a", "b"])) }, never);
    expect(five.result.block.is_error).toBe(true);
    expect(five.text).toContain("ask at most 4 questions in one call");
    const one = await runTool(context, "AskUserQuestion", { questions: [question("Only one?", ["a"])] }, never);
    expect(one.text).toContain("at least 2 options");
    const many = await runTool(context, "AskUserQuestion", { questions: [question("Too many?", ["a", "b", "c", "d", "e"])] }, never);
    expect(many.text).toContain("at most 4 options");
  });

  it("refuses repeated questions, repeated labels and an Other option of its own", async () => {
    const context = session();
    const repeated = await runTool(context, "AskUserQuestion", { questions: [LIBRARY, LIBRARY] }, never);
    expect(repeated.text).toContain("repeats an earlier question");
    const labels = await runTool(context, "AskUserQuestion", { questions: [question("Which?", ["a", "a"])] }, never);
    expect(labels.text).toContain('two options labelled "a"');
    const other = await runTool(context, "AskUserQuestion", { questions: [question("Which?", ["a", "Other"])] }, never);
    expect(other.text).toContain("the user can always type their own answer");
  });

  it("hands the answers back by question: a label, several labels joined, a typed answer", async () => {
    const context = session();
    const typed = question("What should the button say?", ["Save", "Apply"]);
    const { asked, canUseTool } = answering({ [LIBRARY.question]: "dayjs", [FEATURES.question]: ["dark mode", "sync"], [typed.question]: "Keep it" });
    const call = await runTool(context, "AskUserQuestion", { questions: [LIBRARY, FEATURES, typed] }, canUseTool);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ behavior: "ask", decisionReason: { type: "userInput" } });
    expect(call.result.block.is_error).toBeFalsy();
    expect(call.text).toContain('"Which date library should we use?" → "dayjs"');
    expect(call.text).toContain('"Which features do you want?" → "dark mode, sync"');
    expect(call.text).toContain('"What should the button say?" → "Keep it"');
    expect(call.result.output).toMatchObject({ answers: { [FEATURES.question]: "dark mode, sync" } });
  });

  it("always asks: in bypassPermissions mode and with an allow rule too", async () => {
    for (const context of [session("bypassPermissions"), session("default", { allow: ["AskUserQuestion"] })]) {
      const { asked, canUseTool } = answering({ [LIBRARY.question]: "luxon" });
      const call = await runTool(context, "AskUserQuestion", { questions: [LIBRARY] }, canUseTool);
      expect(asked).toHaveLength(1);
      expect(call.text).toContain('"luxon"');
    }
  });

  it("with no one to answer (non-interactive, dontAsk) the call fails saying so", async () => {
    const call = await runTool(session(), "AskUserQuestion", { questions: [LIBRARY] }, createNonInteractiveCanUseTool());
    expect(call.result.block.is_error).toBe(true);
    expect(call.text).toContain("No one can answer AskUserQuestion in this session (it is non-interactive)");
    expect(call.text).toContain("state that assumption in your reply");
    const dontAsk = await runTool(session("dontAsk"), "AskUserQuestion", { questions: [LIBRARY] }, never);
    expect(dontAsk.result.block.is_error).toBe(true);
    expect(dontAsk.text).toContain("No one can answer AskUserQuestion in this session (toolgate is in dontAsk mode)");
  });

  it("an approval without answers fails instead of inventing them; a declined picker is a deny", async () => {
    const empty = await runTool(session(), "AskUserQuestion", { questions: [LIBRARY] }, answering(undefined).canUseTool);
    expect(empty.result.block.is_error).toBe(true);
    expect(empty.text).toContain("no answer came with it");
    const declined: CanUseToolFn = async (tool, input, _c, _m, toolUseID, decision) => answerQuestions({ tool, input, toolUseID, decision: decision as never }, undefined);
    const call = await runTool(session(), "AskUserQuestion", { questions: [LIBRARY] }, declined);
    expect(call.result.block.is_error).toBe(true);
    expect(call.text).toContain("The user declined to answer your questions");
  });

  it("the picker's answer replaces what the model put in answers and annotations", async () => {
    const picked: CanUseToolFn = async (tool, input, _c, _m, toolUseID, decision) => answerQuestions({ tool, input, toolUseID, decision: decision as never }, { [LIBRARY.question]: "luxon" });
    const forged = { questions: [LIBRARY], answers: { [LIBRARY.question]: "date-fns" }, annotations: { [LIBRARY.question]: { notes: "the user loves date-fns" } } };
    const call = await runTool(session(), "AskUserQuestion", forged, picked);
    expect(call.text).toContain('"Which date library should we use?" → "luxon"');
    expect(call.text).not.toContain("date-fns");
    expect(call.text).not.toContain("loves");
  });
});
