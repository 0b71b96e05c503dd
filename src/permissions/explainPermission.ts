import type { AnyObject, AnyTool, HookPermissionDecision, ToolUseContext } from "../core/Tool.js";
import type { PermissionDecision, PermissionDecisionReason } from "../core/permissionTypes.js";
import { formatZodIssues, parseToolInput } from "../core/validation.js";
import { toolInputJSONSchema } from "../core/apiSchema.js";
import { hasPermissionsToUseTool } from "./decide.js";
import { sourceLabel } from "./describe.js";
import { describeDecisionReason, describeSuggestion, howToAllow, subcommandLines } from "./explain.js";
import { getWorkingDirectories } from "./paths.js";
import { ruleToString } from "./rules.js";

export type ExplainInput = { ok: true; input: unknown } | { ok: false; message: string };

/** The schema's required properties, and which of them take a string. */
function requiredFields(tool: AnyTool): { all: string[]; strings: string[] } {
  const schema = toolInputJSONSchema(tool) as { properties?: Record<string, { type?: unknown }>; required?: unknown };
  const all = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === "string") : [];
  return { all, strings: all.filter((key) => schema.properties?.[key]?.type === "string") };
}

/** `'{"file_path":"secrets/x","old_string":"…"}'`: the JSON form to paste, with the bare string in its likely place. */
function jsonExample(tool: AnyTool, text: string): string {
  const { all } = requiredFields(tool);
  const home = all.find((key) => key.endsWith("path")) ?? all[0];
  const example = Object.fromEntries(all.map((key) => [key, key === home ? text : "…"]));
  return `'${JSON.stringify(example).replace(/'/g, `'\\''`)}'`;
}

/**
 * What `toolgate permissions explain TOOL 'INPUT'` means by INPUT. Text starting with `{` is the input as a
 * JSON object and must parse (else it would be judged as something it is not). Any other text goes to the
 * tool's single required string field (`command` for Bash, `file_path` for Read, `pattern` for Glob and
 * Grep); a tool with several required fields (Edit) needs the JSON form, and the message shows it.
 */
export function parseExplainInput(tool: AnyTool, text: string): ExplainInput {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    try {
      return { ok: true, input: JSON.parse(trimmed) };
    } catch (err) {
      return {
        ok: false,
        message: `the input starts with "{" but is not valid JSON (${(err as Error).message}). Pass ${tool.name}'s input as a JSON object, e.g. ${jsonExample(tool, "…")}`,
      };
    }
  }
  const { all, strings } = requiredFields(tool);
  if (all.length === 1 && strings.length === 1) return { ok: true, input: { [strings[0]]: text } };
  const fields = all.length ? `the required fields ${all.join(", ")}` : "no single required text field";
  return {
    ok: false,
    message: `${tool.name} has ${fields}, so a bare string does not say which one it is. Pass the input as a JSON object, e.g. ${jsonExample(tool, text)}`,
  };
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
  const given = typeof input === "string" ? parseExplainInput(tool, input) : ({ ok: true, input } as const);
  const raw = given.ok ? given.input : input;
  const parsed = parseToolInput(tool.inputSchema, raw);
  const lines = [`tool: ${tool.name}`, `input: ${JSON.stringify(raw)}`];
  let decision: PermissionDecision;
  if (!given.ok) {
    decision = { behavior: "deny", message: given.message, decisionReason: { type: "other", reason: "the input could not be read" } };
  } else if (!parsed.success) {
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
