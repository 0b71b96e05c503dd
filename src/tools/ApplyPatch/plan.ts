/**
 * A patch planned against the files as they are now, synchronously, before anything is written: each operation
 * passes the same checks as Edit and Write (rules, read before change, unchanged since, writable, encodable)
 * and has its new bytes. One refusal refuses the whole patch.
 */
import fs from "node:fs";
import type { ToolUseContext } from "../../core/Tool.js";
import type { FileState } from "../../core/fileStateCache.js";
import { readOnlyReason } from "../files/commit.js";
import { blockedDevicePath, describeSpecialFile } from "../files/fileKind.js";
import { checkStaleness, lookupFileState, staleFileMessage } from "../files/fileState.js";
import { editDenial, missingFileMessage, resolveToolPath } from "../files/toolPaths.js";
import { prepareFileCreate, prepareFileRewrite, type PreparedEdit } from "../Edit/editFile.js";
import { resolveWriteTarget } from "../../util/atomicWrite.js";
import { applyHunks, type HunkTier } from "./hunks.js";
import { parsePatch, type PatchOperation } from "./parse.js";

export const APPLY_PATCH_TOOL_NAME = "apply_patch";

export type PlannedOperation =
  | { kind: "add"; path: string; edit: PreparedEdit }
  | { kind: "update"; path: string; edit: PreparedEdit; tiers: HunkTier[]; moveTo?: { path: string; absPath: string } }
  | { kind: "delete"; path: string; absPath: string; raw: Buffer; state: FileState };

export interface PlanFailure {
  ok: false;
  code: string;
  message: string;
}

export type PatchPlan = { ok: true; operations: PlannedOperation[] } | PlanFailure;

const refused = (code: string, message: string): PlanFailure => ({ ok: false, code, message });

function lstatIfExists(absPath: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(absPath);
  } catch {
    return undefined;
  }
}

function planDelete(op: Extract<PatchOperation, { kind: "delete" }>, context: ToolUseContext): PlannedOperation | PlanFailure {
  const absPath = resolveToolPath(op.path, context);
  const denied = editDenial(absPath, context);
  if (denied) return refused("denied", `${denied} Do not try to change this file another way.`);
  const stat = lstatIfExists(absPath);
  if (!stat) return refused("missing", missingFileMessage(absPath, context, "Delete File needs an existing file."));
  if (stat.isSymbolicLink()) return refused("not_a_file", `${absPath} is a symbolic link; apply_patch deletes regular files only (remove the link with Bash if that is what you want).`);
  if (!stat.isFile()) return refused("not_a_file", `${absPath} is ${describeSpecialFile(stat)}; apply_patch deletes regular files only.`);
  const state = lookupFileState(context, absPath);
  if (!state || state.isPartialView) return refused("not_read", `${absPath} must be read before it is deleted, and it has not been read in this session. Read it, then send the patch again.`);
  const raw = fs.readFileSync(absPath);
  const current = { mtimeMs: stat.mtimeMs, size: raw.length };
  if (checkStaleness(state, current, () => raw).stale) return refused("stale", staleFileMessage(absPath, state, current, "deleting it"));
  const readOnly = readOnlyReason(absPath, stat);
  if (readOnly) return refused("read_only", `${absPath} cannot be deleted: ${readOnly}.`);
  return { kind: "delete", path: op.path, absPath, raw, state };
}

function planMoveTarget(path: string, context: ToolUseContext): { ok: true; absPath: string } | PlanFailure {
  const absPath = resolveToolPath(path, context);
  const denied = editDenial(absPath, context);
  if (denied) return refused("denied", `${denied} Do not try to change this file another way.`);
  const blocked = blockedDevicePath(absPath);
  if (blocked) return refused("not_a_file", `${blocked}; apply_patch only writes regular files.`);
  if (lstatIfExists(absPath)) return refused("exists", `Move to ${absPath}: that path already exists. Move a file only to a new path (delete or update the existing file separately).`);
  return { ok: true, absPath };
}

function sameFile(a: string, b: string): boolean {
  try {
    return resolveWriteTarget(a) === resolveWriteTarget(b);
  } catch {
    return a === b;
  }
}

/** Parse the patch and plan every operation against the files as they are now. */
export function planPatch(patch: string, context: ToolUseContext): PatchPlan {
  const parsed = parsePatch(patch);
  if (!parsed.ok) return refused("parse", `${parsed.message} Nothing was changed.`);
  const planned: PlannedOperation[] = [];
  const seen: string[] = [];
  const request = (path: string) => ({ toolName: APPLY_PATCH_TOOL_NAME, filePath: path });
  for (const [index, op] of parsed.operations.entries()) {
    const which = `Operation ${index + 1} of ${parsed.operations.length} (${op.kind} ${op.path}) failed: `;
    const untouched = " Nothing was changed: the patch applies all at once or not at all. Fix that part and send the whole patch again.";
    const fail = (p: { code: string; message: string }): PlanFailure => refused(p.code, `${which}${p.message}${untouched}`);
    for (const path of op.kind === "update" && op.moveTo ? [op.path, op.moveTo] : [op.path]) {
      const absPath = resolveToolPath(path, context);
      if (seen.some((s) => sameFile(s, absPath))) return fail({ code: "duplicate", message: `${absPath} appears more than once in the patch; put all changes to one file in one operation.` });
      seen.push(absPath);
    }
    if (op.kind === "delete") {
      const result = planDelete(op, context);
      if ("ok" in result) return fail(result);
      planned.push(result);
    } else if (op.kind === "add") {
      const prepared = prepareFileCreate(request(op.path), context, op.content);
      if (!prepared.ok) {
        const message = prepared.code === "exists" ? `${resolveToolPath(op.path, context)} already exists and is not empty; use "*** Update File:" to change it.` : prepared.message;
        return fail({ code: prepared.code, message });
      }
      planned.push({ kind: "add", path: op.path, edit: prepared.edit });
    } else {
      let tiers: HunkTier[] = [];
      const prepared = prepareFileRewrite(
        request(op.path),
        context,
        (lf) => {
          const result = applyHunks(lf, op.hunks, op.path);
          if (!result.ok) return result;
          tiers = result.tiers;
          return { ok: true, replacements: result.replacements };
        },
        'To create a file, use "*** Add File:".',
      );
      if (!prepared.ok) return fail(prepared);
      const entry: PlannedOperation = { kind: "update", path: op.path, edit: prepared.edit, tiers };
      if (op.moveTo) {
        const target = planMoveTarget(op.moveTo, context);
        if (!target.ok) return fail(target);
        entry.moveTo = { path: op.moveTo, absPath: target.absPath };
      }
      planned.push(entry);
    }
  }
  return { ok: true, operations: planned };
}
