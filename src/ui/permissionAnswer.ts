/**
 * The permission dialog's choices, made from what the engine suggested, and what choosing one does: the
 * verdict for the call, and for "don't ask again" the suggested rule remembered in the scope picked.
 */
import path from "node:path";
import type { AnyObject, AnyTool, ToolUseContext } from "../core/Tool.js";
import type { PermissionAskDecision, PermissionDecision, PermissionMode, PermissionUpdate, PermissionUpdateDestination } from "../core/permissionTypes.js";
import { applyPermissionUpdate, ruleToString, settingsFileForDestination } from "../permissions/index.js";
import { EXIT_PLAN_MODE_TOOL_NAME } from "../tools/ExitPlanMode/prompt.js";
import { ASK_USER_QUESTION_TOOL_NAME } from "../tools/AskUserQuestion/prompt.js";
import type { AskUserQuestionInput } from "../tools/AskUserQuestion/index.js";
import { modeInWords, scopeInWords, updatesInWords } from "./permissionWording.js";

export interface PermissionRequest {
  tool: AnyTool;
  input: AnyObject;
  toolUseID: string;
  decision: PermissionAskDecision;
  /** Why auto mode's classifier did not allow it, when it was asked first. */
  classifierNote?: string;
}

/** `label` says all a choice does; `short`, where it has one, the scope and the rule only (for a short screen). */
export type PermissionChoice =
  | { kind: "once"; label: string }
  | { kind: "always"; label: string; short: string; destination: PermissionUpdateDestination; updates: PermissionUpdate[]; file?: string }
  | { kind: "mode"; label: string; short: string; mode: PermissionMode }
  | { kind: "deny"; label: string };

/** The scopes offered, narrowest first: the session, this project (not committed), the user (every project). */
const OFFERED: readonly PermissionUpdateDestination[] = ["session", "localSettings", "userSettings"];
/** The scope first in a short label, so a label cut at the screen's edge still says where the rule goes. */
const SHORT_SCOPES: Record<PermissionUpdateDestination, string> = {
  session: "this session",
  localSettings: "this project, for you",
  projectSettings: "this project, for everyone",
  userSettings: "any project (user settings)",
};

function describeUpdates(updates: readonly PermissionUpdate[]): string {
  return updates
    .map((u) => (u.type === "addRules" ? u.rules.map((r) => ruleToString(r)).join(", ") : u.type === "addDirectories" ? `the directory ${u.directories.join(", ")}` : ""))
    .filter(Boolean)
    .join(" and ");
}

/** A settings file as the user would write it: relative inside the project, `~/…` under the home directory. */
function shortPath(file: string, cwd: string): string {
  if (file.startsWith(cwd + path.sep)) return path.relative(cwd, file);
  const home = process.env.HOME;
  return home && file.startsWith(home + path.sep) ? `~${file.slice(home.length)}` : file;
}

/** Where a settings file is, after the scope: `(.toolgate/settings.local.json)`, `(your user settings, ~/…)`. */
function fileNote(destination: PermissionUpdateDestination, file: string | undefined, cwd: string): string {
  if (!file) return "";
  return destination === "userSettings" ? ` (your user settings, ${shortPath(file, cwd)})` : ` (${shortPath(file, cwd)})`;
}

/**
 * The choices for an ask: yes once; for each offered scope with a suggestion, yes and remember exactly that
 * suggestion there, its label naming the rule, what it covers, the scope and the file; a suggested mode; no.
 */
export function permissionChoices(decision: PermissionAskDecision, where: { cwd: string; home: string }, toolName?: string): PermissionChoice[] {
  if (toolName === EXIT_PLAN_MODE_TOOL_NAME) return PLAN_CHOICES;
  if (toolName === ASK_USER_QUESTION_TOOL_NAME) return QUESTION_CHOICES;
  const suggestions = decision.suggestions ?? [];
  const choices: PermissionChoice[] = [{ kind: "once", label: "Yes, just this once" }];
  for (const destination of OFFERED) {
    const updates = suggestions.filter((s) => s.destination === destination && s.type !== "setMode");
    if (updates.length === 0) continue;
    const file = destination === "session" ? undefined : settingsFileForDestination(destination, where.cwd, where.home);
    const rules = updates.some((u) => u.type === "addRules");
    const phrase = (what: string) => `Yes, and ${rules ? `don't ask again for ${what}` : what} ${scopeInWords(destination)}`;
    choices.push({
      kind: "always",
      destination,
      updates,
      ...(file ? { file } : {}),
      label: `${phrase(updatesInWords(updates, destination))}${fileNote(destination, file, where.cwd)}`,
      short: `Yes, ${SHORT_SCOPES[destination]}: ${rules ? `don't ask again for ${updatesInWords(updates, destination, { brief: true })}` : updatesInWords(updates, destination)}`,
    });
  }
  for (const s of suggestions) {
    if (s.type === "setMode") choices.push({ kind: "mode", mode: s.mode, label: `Yes, and ${modeInWords(s.mode)}`, short: `Yes, and switch this session to ${s.mode} mode` });
  }
  choices.push({ kind: "deny", label: "No, and tell the model what to do instead" });
  return choices;
}

/** A plan is approved (leaving plan mode), approved with edits accepted, or sent back with feedback. */
const PLAN_CHOICES: PermissionChoice[] = [
  { kind: "once", label: "Yes, leave plan mode and start (edits still ask)" },
  { kind: "mode", mode: "acceptEdits", label: "Yes, and accept file edits without asking", short: "Yes, and accept edits" },
  { kind: "deny", label: "No, keep planning: tell the model what to change" },
];

/** The picker answers (the answers go into the input) or declines. */
const QUESTION_CHOICES: PermissionChoice[] = [
  { kind: "once", label: "Answer" },
  { kind: "deny", label: "Decline to answer" },
];

/** The questions of an AskUserQuestion call (validated by the pipeline before it asks); undefined for any other call. */
export function questionsOf(request: PermissionRequest): AskUserQuestionInput["questions"] | undefined {
  if (request.tool.name !== ASK_USER_QUESTION_TOOL_NAME) return undefined;
  const questions = (request.input as Partial<AskUserQuestionInput>).questions;
  return Array.isArray(questions) ? questions : undefined;
}

/** The picker's answers become the call's input; no answers (Esc, an interrupt) is a deny the model can act on. */
export function answerQuestions(request: PermissionRequest, answers: Record<string, string> | undefined): PermissionDecision {
  // Only the questions and the person's answers: nothing the model put beside them passes for the user's word.
  if (answers) return { behavior: "allow", updatedInput: { questions: request.input.questions, answers }, decisionReason: { type: "other", reason: "answered by the user" } };
  return {
    behavior: "deny",
    message: "The user declined to answer your questions. Do not ask them again: go on with your own judgement, or ask in plain text if you cannot continue without an answer.",
    decisionReason: { type: "other", reason: "declined by the user" },
  };
}

function planRejection(feedback: string | undefined): string {
  return feedback
    ? `The user did not approve the plan and is keeping the session in plan mode. Their feedback: ${feedback}\nRevise the plan accordingly (read-only tools only), then call ExitPlanMode again.`
    : "The user did not approve the plan and is keeping the session in plan mode. Ask them what to change, or revise the plan, then call ExitPlanMode again.";
}

export interface AnswerOutcome {
  decision: PermissionDecision;
  /** For the user: where the rule was saved, or why it could not be. */
  notice?: { level: "info" | "warning"; text: string };
}

/** The verdict for a choice; "always" and "mode" also change the session (and for files the settings file). */
export function answerPermission(request: PermissionRequest, choice: PermissionChoice, context: ToolUseContext, feedback?: string): AnswerOutcome {
  const allow: PermissionDecision = { behavior: "allow", updatedInput: request.input, decisionReason: { type: "other", reason: "allowed by the user" } };
  switch (choice.kind) {
    case "once":
      return { decision: allow };
    case "deny": {
      const said = feedback?.trim();
      return {
        decision: {
          behavior: "deny",
          message: request.tool.name === EXIT_PLAN_MODE_TOOL_NAME
            ? planRejection(said || undefined)
            : said
            ? `The user denied this ${request.tool.name} call and said: ${said}`
            : `The user denied this ${request.tool.name} call. Do not retry it unchanged; ask the user what to do if unsure.`,
          decisionReason: { type: "other", reason: "denied by the user" },
        },
      };
    }
    case "mode":
      context.setAppState((prev) => ({ ...prev, toolPermissionContext: { ...prev.toolPermissionContext, mode: choice.mode } }));
      return { decision: allow, notice: { level: "info", text: `permission mode: ${choice.mode}` } };
    case "always": {
      const saved: string[] = [];
      try {
        for (const update of choice.updates) {
          const outcome = applyPermissionUpdate(update, { cwd: context.getAppState().toolPermissionContext.cwd, home: context.paths.home, getAppState: context.getAppState, setAppState: context.setAppState });
          if (outcome.file && !saved.includes(outcome.file)) saved.push(outcome.file);
        }
      } catch (err) {
        // The call was approved either way; only remembering it failed, and the user must know.
        return { decision: allow, notice: { level: "warning", text: `allowed once, but the rule could not be saved: ${err instanceof Error ? err.message : String(err)}` } };
      }
      const rules = describeUpdates(choice.updates);
      return { decision: allow, notice: { level: "info", text: saved.length ? `saved ${rules} to ${saved.join(", ")}` : `allowed ${rules} for this session` } };
    }
  }
}
