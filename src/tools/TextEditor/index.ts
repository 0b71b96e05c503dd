import fs from "node:fs";
import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import type { ToolUseContext, ValidationResult } from "../../core/Tool.js";
import type { AssistantMessage, ToolResultBlockParam } from "../../core/messages.js";
import type { PermissionResult } from "../../core/permissionTypes.js";
import { hashContent } from "../../core/fileStateCache.js";
import { checkpointMessageId, commitFileWrite } from "../files/commit.js";
import { FileToolError } from "../files/errors.js";
import { checkPathOnDisk, type FileOnDisk } from "../files/checkedFile.js";
import { statIfExists } from "../files/fileKind.js";
import { createFileWriter, refusalCodes, type Prepared, type Refusal } from "../files/fileWriter.js";
import { notifyAfterWrite, notifyBeforeWrite } from "../files/observers.js";
import { editDenial, fileTarget, readDenial, readPermission, resolveToolPath, writePermission } from "../files/toolPaths.js";
import { resolveWriteTarget } from "../../util/atomicWrite.js";
import { editOutcomeNote, editReport, formatSnippet } from "../Edit/index.js";
import type { AppliedEdit } from "../Edit/applyEdits.js";
import { editWriteOf, prepareFileEdit, prepareFileRewrite, type PreparedEdit } from "../Edit/editFile.js";
import { ReadTool, type ReadOutput } from "../Read/index.js";
import { listDirectory, MAX_LISTED_ENTRIES } from "./listing.js";
import { insertAfterLine } from "./insert.js";
import { TEXT_EDITOR_DESCRIPTION, TEXT_EDITOR_PROMPT, TEXT_EDITOR_TOOL_NAME } from "./prompt.js";
import { dropLastUndoStep, lastUndoStep, MAX_UNDO_FILE_BYTES, recordUndoStep } from "./undoLog.js";

export { TEXT_EDITOR_TOOL_NAME };

const inputSchema = z.strictObject({
  command: z.enum(["view", "create", "str_replace", "insert", "undo_edit"]).describe("The command to run"),
  path: z.string().describe("The file or directory: absolute, or relative to the working directory"),
  file_text: z.string().optional().describe("create: the content of the new file"),
  old_str: z.string().optional().describe("str_replace: the exact text to replace (must match one place)"),
  new_str: z.string().optional().describe("str_replace: the replacement (omitted: delete old_str); insert: the text to insert"),
  insert_line: z.number().int().min(0).optional().describe("insert: new_str goes after this line (0: at the top)"),
  insert_text: z.string().optional().describe("insert: another name for new_str"),
  view_range: z.array(z.number().int()).length(2).optional().describe("view: [first, last] line, 1-based; last -1 means to the end"),
});

export type TextEditorInput = z.infer<typeof inputSchema>;
type Command = TextEditorInput["command"];

export type TextEditorOutput =
  | { command: "view"; read: ReadOutput }
  | { command: "view_directory"; path: string; entries: string[]; truncated: boolean }
  | { command: "create" | "str_replace" | "insert"; path: string; edit: ReturnType<typeof editReport>; strategy: AppliedEdit["strategy"]; shift?: string; notes: string[] }
  | { command: "undo_edit"; path: string; deleted: boolean; notes: string[] };

/** Refusal codes of the text editor's own checks (the Edit machinery's refusals keep theirs); append only. */
const TEXT_EDITOR_ERROR_CODES = ["missing_parameter", "bad_parameter", "exists", "nothing_to_undo", "changed_since_edit", "denied", "not_a_file"] as const;
type TextEditorErrorCode = (typeof TEXT_EDITOR_ERROR_CODES)[number];
const refuse = refusalCodes(TEXT_EDITOR_ERROR_CODES);

const WRITING_COMMANDS: ReadonlySet<Command> = new Set(["create", "str_replace", "insert", "undo_edit"]);

/** The shared Edit machinery speaks of Edit's parameters; say the same in this tool's terms. */
export function inTextEditorTerms(message: string): string {
  return message
    .replace(
      /Without replace_all, Edit changes exactly one place\. Either add surrounding lines to old_string so that it matches only the place you mean, or set replace_all to true to change all \d+\./,
      "str_replace changes exactly one place: add surrounding lines to old_str so that it matches only the place you mean (or make one call per place).",
    )
    .replace(/\bold_string\b/g, "old_str")
    .replace(/\bnew_string\b/g, "new_str")
    .replace(/\bCall Read on it\b/g, "view it")
    .replace(/\bRead it again\b/g, "view it again")
    .replace(/\bwhat Read shows\b/g, "what view shows");
}

function insertText(input: TextEditorInput): string | undefined {
  return input.new_str ?? input.insert_text;
}

/** The parameters each command needs, checked before anything touches the file. */
function checkParameters(input: TextEditorInput): Refusal<TextEditorErrorCode> | undefined {
  const need = (name: string, why: string) => refuse("missing_parameter", `The ${input.command} command needs ${name}: ${why}.`);
  switch (input.command) {
    case "view": {
      const range = input.view_range;
      if (range && (range[0] < 1 || (range[1] !== -1 && range[1] < range[0]))) {
        return refuse("bad_parameter", `view_range [${range.join(", ")}] is not a range of lines: give [first, last] with first >= 1 and last >= first, or last = -1 for the end of the file.`);
      }
      return undefined;
    }
    case "create":
      if (input.file_text === undefined) return need("file_text", "the content of the new file");
      if (input.file_text === "") return refuse("bad_parameter", "file_text is empty. create writes a file with content; put the content in file_text.");
      return undefined;
    case "str_replace":
      if (input.old_str === undefined) return need("old_str", "the exact text to replace");
      if (input.old_str === "") return refuse("bad_parameter", "old_str is empty. str_replace needs the text to replace; to add text use insert, to make a new file use create.");
      return undefined;
    case "insert":
      if (input.insert_line === undefined) return need("insert_line", "the line after which to insert (0 for the top)");
      if (insertText(input) === undefined) return need("new_str", "the text to insert");
      if (input.new_str !== undefined && input.insert_text !== undefined && input.new_str !== input.insert_text) {
        return refuse("bad_parameter", "new_str and insert_text are both given and differ; send the text to insert once, in new_str.");
      }
      return undefined;
    case "undo_edit":
      return undefined;
  }
}

function asPrepared(result: ReturnType<typeof prepareFileEdit>): Prepared<PreparedEdit> {
  if (result.ok) return { ok: true, plan: result.edit };
  return { ...result, message: inTextEditorTerms(result.message) };
}

/** create, str_replace and insert: every check and the new bytes, from the file as it is now. */
function prepareWrite(input: TextEditorInput, context: ToolUseContext, file: FileOnDisk): Prepared<PreparedEdit> {
  const bad = checkParameters(input);
  if (bad) return bad;
  const request = { toolName: TEXT_EDITOR_TOOL_NAME, filePath: input.path };
  switch (input.command) {
    case "create": {
      const prepared = prepareFileEdit({ ...request, edits: [{ old_string: "", new_string: input.file_text! }] }, context, { file });
      if (!prepared.ok && prepared.code === "exists") {
        return refuse("exists", `${resolveToolPath(input.path, context)} already exists and is not empty; create only makes new files. To change it, view it and use str_replace or insert.`);
      }
      return asPrepared(prepared);
    }
    case "str_replace":
      return asPrepared(prepareFileEdit({ ...request, edits: [{ old_string: input.old_str!, new_string: input.new_str ?? "" }] }, context, { file }));
    case "insert":
      return asPrepared(prepareFileRewrite(request, context, insertAfterLine(input.insert_line!, insertText(input)!), "To make a new file, use create.", file));
    default:
      throw new Error(`${input.command} is not a writing command`);
  }
}

const writer = createFileWriter<TextEditorInput, PreparedEdit>({ label: "text_editor", filePath: (input) => input.path, prepare: prepareWrite, write: editWriteOf });

function realTarget(absPath: string): string {
  try {
    return resolveWriteTarget(absPath);
  } catch {
    return absPath;
  }
}

/** undo_edit: the step to revert, after checking that nobody changed the file since the write it reverts. */
function prepareUndo(input: TextEditorInput, context: ToolUseContext): { ok: true; target: string; before: Buffer | null } | Refusal<TextEditorErrorCode> {
  const absPath = resolveToolPath(input.path, context);
  const denied = editDenial(absPath, context);
  if (denied) return refuse("denied", `${denied} Do not try to change this file another way.`);
  const target = realTarget(absPath);
  const step = lastUndoStep(context.fileHistory, target);
  if (!step) {
    return refuse(
      "nothing_to_undo",
      `There is no edit of ${absPath} to undo: undo_edit reverts create, str_replace and insert calls of this tool in this session (files above ${MAX_UNDO_FILE_BYTES / 1024 ** 2} MiB are not kept). To change the file, use str_replace.`,
    );
  }
  const stat = statIfExists(target);
  if (stat && !stat.isFile()) return refuse("not_a_file", `${absPath} is no longer a regular file, so the edit cannot be undone.`);
  const current = stat ? hashContent(fs.readFileSync(target)) : undefined;
  if (current !== step.afterHash) {
    return refuse(
      "changed_since_edit",
      `${absPath} has changed since this tool's last edit of it (${stat ? "its content differs" : "it was deleted"}), so undoing that edit would lose the later change. view the file and fix it with str_replace instead.`,
    );
  }
  return { ok: true, target, before: step.before };
}

function undo(input: TextEditorInput, context: ToolUseContext, parentMessage: AssistantMessage): { deleted: boolean; absPath: string } {
  const prepared = prepareUndo(input, context);
  if (!prepared.ok) throw new FileToolError(prepared.message, `text_editor:${prepared.code}`);
  const absPath = resolveToolPath(input.path, context);
  if (prepared.before === null) {
    // The undone edit created the file: checkpoint it (so a rewind brings it back) and remove it.
    context.fileHistory.checkpoint(prepared.target, checkpointMessageId(parentMessage, context));
    fs.rmSync(prepared.target);
    context.readFileState.delete(absPath);
    context.readFileState.delete(prepared.target);
  } else {
    commitFileWrite({ context, parentMessage, absPath, bytes: prepared.before, coversWholeFile: false });
  }
  dropLastUndoStep(context.fileHistory, prepared.target);
  return { deleted: prepared.before === null, absPath };
}

function readInput(input: TextEditorInput) {
  const range = input.view_range;
  if (!range) return { file_path: input.path };
  return range[1] === -1 ? { file_path: input.path, offset: range[0] } : { file_path: input.path, offset: range[0], limit: range[1] - range[0] + 1 };
}

function isDirectory(absPath: string): boolean {
  return statIfExists(absPath)?.isDirectory() ?? false;
}

const viewTarget = fileTarget<TextEditorInput>("path", "read");

export const TextEditorTool = buildTool({
  name: TEXT_EDITOR_TOOL_NAME,
  searchHint: "text editor view create str_replace insert undo file anthropic",
  maxResultSizeChars: 100_000,
  strict: true,
  inputSchema,
  description: () => TEXT_EDITOR_DESCRIPTION,
  prompt: () => TEXT_EDITOR_PROMPT,
  userFacingName: (input) => (input?.command === "view" ? "View" : input?.command === "create" ? "Create" : input?.command === "undo_edit" ? "Undo" : "Update"),
  describeInput: (input) => `${input.command ?? "?"} ${input.path ?? ""}`.trim(),
  isReadOnly: (input) => input.command === "view",
  isConcurrencySafe: (input) => input.command === "view",
  ruleFamily: "edit",
  getPath: viewTarget.getPath,
  backfillObservableInput: viewTarget.backfillObservableInput,
  // Judged on the command actually given: view needs read access, every other command write access.
  async checkPermissions(input, context): Promise<PermissionResult> {
    const absPath = resolveToolPath(input.path, context);
    // Like fileTarget's check: the verdict carries the real path it judged, which the call opens and verifies.
    const checkedPath = checkPathOnDisk(absPath);
    const verdict = WRITING_COMMANDS.has(input.command) ? writePermission(absPath, context, checkedPath.realPath) : readPermission(absPath, context, checkedPath.realPath);
    return { ...verdict, checkedPath };
  },
  toAutoClassifierInput: (input) => `${input.command} ${input.path}${input.file_text ? `: ${input.file_text}` : ""}${insertText(input) ? `: ${insertText(input)}` : ""}`,
  async validateInput(input, context): Promise<ValidationResult> {
    const bad = checkParameters(input);
    if (bad) return { result: false, message: bad.message, errorCode: bad.errorCode };
    if (input.command === "view") {
      const absPath = resolveToolPath(input.path, context);
      if (isDirectory(absPath)) {
        const denied = readDenial(absPath, context);
        if (denied) return { result: false, message: denied, errorCode: 6 };
        if (input.view_range) return { result: false, message: `${absPath} is a directory; view_range only applies to files.`, errorCode: 2 };
        return { result: true };
      }
      const read = await ReadTool.validateInput!(readInput(input), context);
      return read.result ? read : { ...read, message: inTextEditorTerms(read.message) };
    }
    if (input.command === "undo_edit") {
      const prepared = prepareUndo(input, context);
      return prepared.ok ? { result: true } : { result: false, message: prepared.message, errorCode: prepared.errorCode };
    }
    const validated = await writer.validateInput(input, context);
    if (validated.result) await notifyBeforeWrite(context, resolveToolPath(input.path, context));
    return validated;
  },
  async call(input, context, canUseTool, parentMessage, onProgress) {
    const absPath = resolveToolPath(input.path, context);
    if (input.command === "view") {
      if (isDirectory(absPath)) {
        const listing = listDirectory(absPath, (p) => readDenial(p, context) === undefined);
        return { data: { command: "view_directory", path: input.path, ...listing } satisfies TextEditorOutput };
      }
      const read = await ReadTool.call(readInput(input), context, canUseTool, parentMessage, onProgress);
      return { data: { command: "view", read: read.data } satisfies TextEditorOutput };
    }
    if (input.command === "undo_edit") {
      const done = undo(input, context, parentMessage);
      const notes = done.deleted ? [] : await notifyAfterWrite(context, done.absPath);
      return { data: { command: "undo_edit", path: input.path, deleted: done.deleted, notes } satisfies TextEditorOutput };
    }
    // Synchronous from the re-read to the write, like Edit; the bytes before it are kept for undo_edit.
    const target = realTarget(absPath);
    const edit = writer.commit(input, context, parentMessage);
    recordUndoStep(context.fileHistory, target, { before: edit.creates ? null : (edit.raw ?? null), afterHash: hashContent(edit.newBytes) });
    const notes = await notifyAfterWrite(context, absPath);
    const applied = edit.applied[edit.applied.length - 1];
    const output: TextEditorOutput = { command: input.command, path: input.path, edit: editReport(edit), strategy: applied.strategy, notes };
    if (applied.shift) output.shift = applied.shift;
    return { data: output };
  },
  mapToolResultToToolResultBlockParam(output: TextEditorOutput, toolUseID: string): ToolResultBlockParam {
    const block = (content: string): ToolResultBlockParam => ({ type: "tool_result", tool_use_id: toolUseID, content });
    const withNotes = (text: string, notes: string[]) => (notes.length ? `${text}\n\n${notes.join("\n\n")}` : text);
    switch (output.command) {
      case "view": {
        const mapped = ReadTool.mapToolResultToToolResultBlockParam(output.read, toolUseID);
        return typeof mapped.content === "string" ? { ...mapped, content: inTextEditorTerms(mapped.content) } : mapped;
      }
      case "view_directory": {
        const more = output.truncated ? `\n[Stopped after ${MAX_LISTED_ENTRIES} entries; view a subdirectory to see more.]` : "";
        const body = output.entries.length ? output.entries.join("\n") : "(no entries besides hidden ones)";
        return block(`Files and directories in ${output.path}, two levels deep, hidden ones left out:\n${body}${more}`);
      }
      case "create":
        return block(withNotes(`Created ${output.path}:\n${formatSnippet(output.edit.snippet)}`, output.notes));
      case "str_replace":
      case "insert": {
        const how = output.command === "str_replace" ? inTextEditorTerms(editOutcomeNote(output.strategy, output.shift)) : "";
        return block(withNotes(`The file ${output.path} has been edited${how}. The edited region now reads:\n${formatSnippet(output.edit.snippet)}`, output.notes));
      }
      case "undo_edit":
        return block(
          withNotes(output.deleted ? `Undid the creation of ${output.path}: the file was removed.` : `Undid the last edit of ${output.path}; the file is as it was before that edit.`, output.notes),
        );
    }
  },
});
