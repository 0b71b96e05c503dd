import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import { isForcedAsk } from "../../core/permissionOrder.js";
import type { ToolResultBlockParam } from "../../core/messages.js";
import type { PermissionResult, PermissionUpdate } from "../../core/permissionTypes.js";
import { FileToolError } from "../files/errors.js";
import { buildStructuredPatch } from "../files/patch.js";
import { notifyAfterWrite, notifyBeforeWrite } from "../files/observers.js";
import { resolveToolPath, writePermission } from "../files/toolPaths.js";
import { applyPlannedPatch } from "./apply.js";
import { describeTier, type HunkTier } from "./hunks.js";
import { parsePatch, patchPaths } from "./parse.js";
import { APPLY_PATCH_TOOL_NAME, planPatch, type PlannedOperation } from "./plan.js";
import { APPLY_PATCH_DESCRIPTION, APPLY_PATCH_PROMPT } from "./prompt.js";

export { APPLY_PATCH_TOOL_NAME };

const inputSchema = z.strictObject({
  input: z.string().describe("The whole patch, from *** Begin Patch to *** End Patch"),
});

export type ApplyPatchInput = z.infer<typeof inputSchema>;

export interface PatchedFile {
  kind: "add" | "update" | "delete";
  path: string;
  moveTo?: string;
  added: number;
  removed: number;
  /** update: how each hunk matched. */
  tiers: HunkTier[];
}

export interface ApplyPatchOutput {
  files: PatchedFile[];
  /** What file write observers (diagnostics, ...) had to say. */
  notes: string[];
}

/** Refusal codes for ValidationResult.errorCode (telemetry only); append only. */
const PLAN_ERROR_CODES = ["parse", "duplicate", "denied", "missing", "exists", "not_a_file", "not_read", "stale", "read_only", "no_match", "ambiguous"];
const errorCodeOf = (code: string) => PLAN_ERROR_CODES.indexOf(code) + 1 || PLAN_ERROR_CODES.length + 1;

function countLines(op: PlannedOperation): { added: number; removed: number } {
  if (op.kind === "delete") return { added: 0, removed: op.raw.length ? op.raw.toString("utf8").split("\n").length - (op.raw.toString("utf8").endsWith("\n") ? 1 : 0) : 0 };
  let added = 0;
  let removed = 0;
  for (const hunk of buildStructuredPatch(op.edit.oldSource, op.edit.newSource, op.edit.ranges)) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
    }
  }
  return { added, removed };
}

function writtenPath(op: PlannedOperation): string | undefined {
  if (op.kind === "delete") return undefined;
  return op.kind === "update" && op.moveTo ? op.moveTo.absPath : op.edit.absPath;
}

const STRICTNESS: Record<PermissionResult["behavior"], number> = { allow: 0, passthrough: 1, ask: 2, deny: 3 };

/**
 * One verdict for every path of the patch: a denied path denies the patch; otherwise an ask (or a path needing
 * approval) asks for the whole patch, naming every path, with the rules that would allow each.
 */
export function judgePatchPaths(paths: string[], verdictOf: (path: string) => PermissionResult): PermissionResult {
  const verdicts = paths.map((p) => ({ path: p, verdict: verdictOf(p) }));
  const all = `The patch changes ${paths.length} file${paths.length === 1 ? "" : "s"}: ${paths.join(", ")}.`;
  const denied = verdicts.find((v) => v.verdict.behavior === "deny");
  if (denied && denied.verdict.behavior === "deny") return { ...denied.verdict, message: `${denied.verdict.message} ${all} None was changed.` };
  const forced = verdicts.find((v) => isForcedAsk(v.verdict));
  if (forced && forced.verdict.behavior === "ask") return { ...forced.verdict, message: `${forced.verdict.message} ${all}` };
  const strictest = verdicts.reduce((a, b) => (STRICTNESS[b.verdict.behavior] > STRICTNESS[a.verdict.behavior] ? b : a));
  if (strictest.verdict.behavior === "allow") return strictest.verdict;
  const needing = verdicts.filter((v) => v.verdict.behavior !== "allow");
  const suggestions: PermissionUpdate[] = [];
  const seen = new Set<string>();
  for (const v of needing) {
    for (const s of (v.verdict.behavior === "ask" || v.verdict.behavior === "passthrough" ? v.verdict.suggestions : undefined) ?? []) {
      const key = JSON.stringify(s);
      if (!seen.has(key)) suggestions.push(s);
      seen.add(key);
    }
  }
  const reasons = needing.map((v) => ("message" in v.verdict ? v.verdict.message : v.path)).join(" ");
  return {
    behavior: strictest.verdict.behavior === "ask" ? "ask" : "passthrough",
    message: `${reasons} ${all}`,
    decisionReason: strictest.verdict.decisionReason,
    ...(suggestions.length ? { suggestions } : {}),
  } as PermissionResult;
}

export const ApplyPatchTool = buildTool({
  name: APPLY_PATCH_TOOL_NAME,
  searchHint: "patch diff apply several files add update move delete openai codex",
  maxResultSizeChars: 100_000,
  strict: true,
  inputSchema,
  description: () => APPLY_PATCH_DESCRIPTION,
  prompt: () => APPLY_PATCH_PROMPT,
  userFacingName: () => "Patch",
  describeInput(input) {
    const parsed = typeof input.input === "string" ? parsePatch(input.input) : undefined;
    return parsed?.ok ? patchPaths(parsed.operations).join(", ") : "patch";
  },
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  ruleFamily: "edit",
  // Every path the patch names (move targets too) must pass the Edit rules.
  async checkPermissions(input, context): Promise<PermissionResult> {
    const parsed = parsePatch(input.input);
    if (!parsed.ok) return { behavior: "deny", message: `The patch cannot be parsed, so its paths cannot be judged: ${parsed.message}`, decisionReason: { type: "tool", reason: "unparseable patch" } };
    return judgePatchPaths(patchPaths(parsed.operations), (p) => writePermission(resolveToolPath(p, context), context));
  },
  toAutoClassifierInput: (input) => input.input,
  async validateInput(input, context) {
    const plan = planPatch(input.input, context);
    if (!plan.ok) return { result: false, message: plan.message, errorCode: errorCodeOf(plan.code) };
    for (const op of plan.operations) {
      const target = writtenPath(op);
      if (target) await notifyBeforeWrite(context, target);
    }
    return { result: true };
  },
  // Planned again and written with no await in between, so nothing changes the files under the plan.
  async call(input, context, _canUseTool, parentMessage) {
    const plan = planPatch(input.input, context);
    if (!plan.ok) throw new FileToolError(plan.message, `apply_patch:${plan.code}`);
    const files: PatchedFile[] = plan.operations.map((op) => ({
      kind: op.kind,
      path: op.path,
      ...(op.kind === "update" && op.moveTo ? { moveTo: op.moveTo.path } : {}),
      ...countLines(op),
      tiers: op.kind === "update" ? op.tiers : [],
    }));
    applyPlannedPatch(plan.operations, context, parentMessage);
    const notes: string[] = [];
    for (const op of plan.operations) {
      const target = writtenPath(op);
      if (target) notes.push(...(await notifyAfterWrite(context, target)));
    }
    return { data: { files, notes } satisfies ApplyPatchOutput };
  },
  mapToolResultToToolResultBlockParam(output: ApplyPatchOutput, toolUseID: string): ToolResultBlockParam {
    const lines = output.files.map((f) => {
      const letter = f.kind === "add" ? "A" : f.kind === "delete" ? "D" : f.moveTo ? "R" : "M";
      const name = f.moveTo ? `${f.path} → ${f.moveTo}` : f.path;
      const loose = f.tiers.map((t, i) => (t === "exact" ? "" : `hunk ${i + 1} matched ${describeTier(t)}`)).filter(Boolean);
      return `${letter} ${name} (+${f.added} -${f.removed})${loose.length ? ` [${loose.join("; ")}]` : ""}`;
    });
    const text = `Applied the patch to ${output.files.length} file${output.files.length === 1 ? "" : "s"}:\n${lines.join("\n")}`;
    return { type: "tool_result", tool_use_id: toolUseID, content: output.notes.length ? `${text}\n\n${output.notes.join("\n\n")}` : text };
  },
});
