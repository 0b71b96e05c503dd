import type { AnyObject, AnyTool, HookPermissionDecision, ToolUseContext } from "../core/Tool.js";
import type { PermissionDecision, PermissionDecisionReason } from "../core/permissionTypes.js";
import { formatZodIssues, parseToolInput } from "../core/validation.js";
import { hasPermissionsToUseTool } from "./decide.js";
import { sourceLabel } from "./describe.js";
import { describeDecisionReason, describeSuggestion, howToAllow, subcommandLines } from "./explain.js";
import { getWorkingDirectories } from "./paths.js";
import { ruleToString } from "./rules.js";

/** Keys a bare string is tried as, in order: Bash's command first, then the usual single-path inputs. */
const BARE_STRING_KEYS = ["command", "file_path", "notebook_path", "path", "url", "pattern", "query"];

/**
 * A bare string (`toolgate permissions explain Bash 'npm test'`) is the command, or for other tools
 * the first of BARE_STRING_KEYS their schema accepts; a string holding a JSON object is that object.
 */
function normalizeExplainInput(tool: AnyTool, input: unknown): unknown {
  if (typeof input !== "string") return input;
  const trimmed = input.trim();
  if (trimmed.startsWith("{")) {
    try {
      return JSON.parse(trimmed);
    } catch {
      // not JSON after all: a command that starts with a brace
    }
  }
  for (const key of BARE_STRING_KEYS) {
    const candidate = { [key]: input };
    if (parseToolInput(tool.inputSchema, candidate).success) return candidate;
  }
  return { command: input };
}

/** The rule behind a decision, also when it was one part of a command that decided. */
function findDecidingRule(reason: PermissionDecisionReason | undefined): Extract<PermissionDecisionReason, { type: "rule" }> | undefined {
  if (reason?.type === "rule") return reason;
  if (reason?.type !== "subcommands" || reason.decidingPart === undefined) return undefined;
  const part = reason.parts.find((p) => p.command === reason.decidingPart);
  return part ? findDecidingRule(part.result.decisionReason) : undefined;
}

export interface PermissionExplanation {
  decision: PermissionDecision;
  text: string;
}

/**
 * What `toolgate permissions explain TOOL 'INPUT'` prints: the decision, the deciding rule with its
 * source and file, the matched part, the mode, the working directories and the suggestions.
 * The input goes through the same steps as in the pipeline (schema, backfill) before it is judged.
 */
export async function explainPermission(
  tool: AnyTool,
  input: unknown,
  context: ToolUseContext,
  options: { hookDecision?: HookPermissionDecision } = {},
): Promise<PermissionExplanation> {
  const ctx = context.getAppState().toolPermissionContext;
  const raw = normalizeExplainInput(tool, input);
  const parsed = parseToolInput(tool.inputSchema, raw);
  const lines = [`tool: ${tool.name}`, `input: ${JSON.stringify(raw)}`];
  let decision: PermissionDecision;
  if (!parsed.success) {
    decision = {
      behavior: "deny",
      message: formatZodIssues(tool.name, parsed.issues),
      decisionReason: { type: "other", reason: "the input does not match the tool's schema" },
    };
  } else {
    const observable = { ...(parsed.data as AnyObject) };
    tool.backfillObservableInput?.(observable, context);
    decision = await hasPermissionsToUseTool(tool, observable, context, { toolUseID: "explain", hookDecision: options.hookDecision });
  }
  lines.push(`decision: ${decision.behavior}`);
  if ("message" in decision && decision.message) lines.push(`message: ${decision.message}`);
  const reason = decision.decisionReason;
  lines.push(`reason: ${describeDecisionReason(reason)}`);
  const decidingRule = findDecidingRule(reason);
  if (decidingRule) {
    lines.push(`rule: ${ruleToString(decidingRule.rule)} (${decidingRule.rule.ruleBehavior})`);
    lines.push(`source: ${sourceLabel(decidingRule.rule.source)}${decidingRule.rule.file ? ` — ${decidingRule.rule.file}` : ""}`);
    if (decidingRule.matched !== undefined) lines.push(`matched: ${decidingRule.matched}`);
  }
  const parts = subcommandLines(reason, "  ");
  if (parts.length) lines.push("parts:", ...parts);
  lines.push(`mode: ${ctx.mode}`);
  const dirs = getWorkingDirectories(ctx).map((dir) => {
    const entry = ctx.additionalWorkingDirectories.find((d) => d.path === dir);
    return entry ? `${dir} (${entry.source === "cwd" ? "cwd" : sourceLabel(entry.source)}${entry.file ? ` — ${entry.file}` : ""})` : `${dir} (cwd)`;
  });
  lines.push("working directories:", ...dirs.map((d) => `  ${d}`));
  const suggestions = "suggestions" in decision ? (decision.suggestions ?? []) : [];
  if (suggestions.length) lines.push("suggestions:", ...suggestions.map((s) => `  - ${describeSuggestion(s)}`));
  if (decision.behavior !== "allow") {
    const hint = howToAllow(decision);
    if (hint) lines.push(hint);
  }
  return { decision, text: lines.join("\n") };
}
