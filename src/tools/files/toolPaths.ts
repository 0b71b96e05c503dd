import path from "node:path";
import type { ToolUseContext } from "../../core/Tool.js";
import type { PermissionResult } from "../../core/permissionTypes.js";
import { displayPath, expandPath } from "../../core/paths.js";
import { checkReadPermissionForPath, checkWritePermissionForPath } from "../../permissions/index.js";
import { checkPathOnDisk } from "./checkedFile.js";
import { suggestSimilarPath } from "./similarPath.js";

/** The absolute path a tool works on: `~` expanded, relative paths against the session's cwd. */
export function resolveToolPath(filePath: string, context: ToolUseContext): string {
  return expandPath(filePath, context.getCwd());
}

/**
 * The path hooks and permission checks see: absolute, resolved like the call will resolve it. Without a
 * context (getPath called outside the pipeline) a relative path is left relative rather than resolved against the wrong
 * directory; checkPermissions always resolves it with the session's cwd.
 */
export function observablePath(filePath: string, context?: ToolUseContext): string {
  if (context) return resolveToolPath(filePath, context);
  const trimmed = filePath.trim();
  if (trimmed === "~" || trimmed.startsWith("~/") || path.isAbsolute(trimmed)) return expandPath(trimmed, "/");
  return filePath;
}

/** The path as the user would like to read it in messages: relative to cwd when inside it. */
export function shownPath(absPath: string, context: ToolUseContext): string {
  return displayPath(absPath, context.getCwd());
}

/** The Read verdict on a path; `realPath`, when given, is the real path judged (else it is resolved). */
export function readPermission<Input = Record<string, unknown>>(absPath: string, context: ToolUseContext, realPath?: string): PermissionResult<Input> {
  return checkReadPermissionForPath(absPath, context.getAppState().toolPermissionContext, realPath) as PermissionResult<Input>;
}

/** The Edit verdict on a path; `realPath`, when given, is the real path judged (else it is resolved). */
export function writePermission<Input = Record<string, unknown>>(absPath: string, context: ToolUseContext, realPath?: string): PermissionResult<Input> {
  return checkWritePermissionForPath(absPath, context.getAppState().toolPermissionContext, realPath) as PermissionResult<Input>;
}

/** The deny message when a Read rule denies this path (or the given real path), else undefined. */
export function readDenial(absPath: string, context: ToolUseContext, realPath?: string): string | undefined {
  const result = readPermission(absPath, context, realPath);
  return result.behavior === "deny" ? result.message : undefined;
}

/** The deny message when an Edit rule denies this path (or the given real path), else undefined. */
export function editDenial(absPath: string, context: ToolUseContext, realPath?: string): string | undefined {
  const result = writePermission(absPath, context, realPath);
  return result.behavior === "deny" ? result.message : undefined;
}

/**
 * "File does not exist" for the model: the path as resolved, the cwd it was resolved against, and the
 * closest existing path. Only paths the session may read without asking are suggested, so a typo never
 * reveals names in directories the model has no access to.
 */
export function missingFileMessage(absPath: string, context: ToolUseContext, nextStep = ""): string {
  const cwd = context.getCwd();
  const suggestion = suggestSimilarPath(absPath, { cwd, isVisible: (p) => readPermission(p, context).behavior === "allow" });
  const parts = [`File does not exist: ${absPath}. The current working directory is ${cwd}.`];
  if (suggestion) parts.push(`Did you mean ${suggestion}?`);
  if (nextStep) parts.push(nextStep);
  return parts.join(" ");
}

/**
 * The members every single-file tool shares, from the input field naming its file: the absolute path hooks and
 * rules see, and the permission check of the rule family that judges it (`Read(...)` or `Edit(...)` rules).
 * The verdict carries the real path it judged (checkedPath), which the call then opens and verifies.
 */
export function fileTarget<Input extends Record<string, unknown>>(key: keyof Input & string, family: "read" | "edit") {
  const pathOf = (input: Input) => input[key] as string;
  return {
    ruleFamily: family,
    getPath: (input: Input, context?: ToolUseContext) => observablePath(pathOf(input), context),
    backfillObservableInput(input: Input, context: ToolUseContext) {
      (input as Record<string, unknown>)[key] = observablePath(pathOf(input), context);
    },
    async checkPermissions(input: Input, context: ToolUseContext): Promise<PermissionResult> {
      const absPath = resolveToolPath(pathOf(input), context);
      const checkedPath = checkPathOnDisk(absPath);
      const verdict = family === "read" ? readPermission(absPath, context, checkedPath.realPath) : writePermission(absPath, context, checkedPath.realPath);
      return { ...verdict, checkedPath };
    },
  };
}
