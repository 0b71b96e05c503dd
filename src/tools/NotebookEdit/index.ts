import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import type { ToolUseContext } from "../../core/Tool.js";
import type { ToolResultBlockParam } from "../../core/messages.js";
import type { FileState } from "../../core/fileStateCache.js";
import { readOnlyReason } from "../files/commit.js";
import { createFileWriter, refusalCodes, type Prepared } from "../files/fileWriter.js";
import { decodeText, sniffEncoding, tryEncodeText } from "../files/encoding.js";
import type { FileOnDisk } from "../files/checkedFile.js";
import { describeSpecialFile, isNotebookPath } from "../files/fileKind.js";
import { checkStaleness, lookupFileState, staleFileMessage } from "../files/fileState.js";
import { normalizeToLf } from "../files/lineEndings.js";
import { cellDisplayId, findCellIndex, notebookLanguage, parseNotebook } from "../files/notebook.js";
import { buildStructuredPatch, diffRange, type StructuredPatchHunk } from "../files/patch.js";
import { editDenial, fileTarget, missingFileMessage, resolveToolPath } from "../files/toolPaths.js";
import { notifyAfterWrite, withAfterWriteNotes } from "../files/observers.js";
import { applyCellEdit, detectJsonLayout, renderEditedNotebook, type EditMode } from "./notebookEdit.js";
import { NOTEBOOK_EDIT_DESCRIPTION, NOTEBOOK_EDIT_PROMPT } from "./prompt.js";

export const NOTEBOOK_EDIT_TOOL_NAME = "NotebookEdit";

const inputSchema = z.strictObject({
  notebook_path: z.string().describe("The .ipynb file: absolute, or relative to the working directory"),
  cell_id: z.string().optional().describe('The cell to replace or delete, or to insert after: its id as Read shows it, or "cell-N" (0-based)'),
  new_source: z.string().describe("The cell's new source (ignored for delete)"),
  cell_type: z.enum(["code", "markdown"]).optional().describe("The cell type; required for insert, optional for replace (changes the type)"),
  edit_mode: z.enum(["replace", "insert", "delete"]).default("replace").describe("replace (default), insert or delete"),
});

export type NotebookEditInput = z.infer<typeof inputSchema>;

export interface NotebookEditOutput {
  notebookPath: string;
  editMode: EditMode;
  /** The cell replaced, deleted or newly inserted. */
  cellId: string;
  cellType: string;
  newSource: string;
  language: string;
  structuredPatch: StructuredPatchHunk[];
  /** What file-write observers said; absent when nothing. */
  afterWriteNotes?: string[];
}

interface PreparedNotebookEdit {
  absPath: string;
  state: FileState;
  /** The notebook's bytes when the edit was planned. */
  raw: Buffer;
  bytes: Buffer;
  text: string;
  originalText: string;
  cellId: string;
  cellType: string;
  language: string;
}

/** Refusal codes, numbered from 1 in this order for ValidationResult.errorCode; append only. */
const NOTEBOOK_EDIT_ERROR_CODES = [
  "denied",
  "not_notebook",
  "missing",
  "not_a_file",
  "not_read",
  "stale",
  "read_only",
  "invalid",
  "cell_not_found",
  "cell_id_required",
  "cell_type_required",
  "unrepresentable",
] as const;
const fail = refusalCodes(NOTEBOOK_EDIT_ERROR_CODES);

type PrepareResult = Prepared<PreparedNotebookEdit, (typeof NOTEBOOK_EDIT_ERROR_CODES)[number]>;

function listCells(ids: string[]): string {
  const shown = ids.slice(0, 20).join(", ");
  return ids.length > 20 ? `${shown}, … (${ids.length} cells)` : shown;
}

function prepareNotebookEdit(input: NotebookEditInput, context: ToolUseContext, file: FileOnDisk): PrepareResult {
  const absPath = resolveToolPath(input.notebook_path, context);
  const denied = editDenial(absPath, context, file.realPath);
  if (denied) return fail("denied", `${denied} Do not try to change this file another way.`);
  if (!isNotebookPath(absPath)) return fail("not_notebook", `${absPath} is not a Jupyter notebook (.ipynb). Use Edit for other files.`);
  const stat = file.stat();
  if (!stat) return fail("missing", missingFileMessage(absPath, context, "To create a notebook, use Write with the notebook's JSON."));
  if (!stat.isFile()) return fail("not_a_file", `${absPath} is ${describeSpecialFile(stat)}, not a notebook file.`);

  const state = lookupFileState(context, absPath);
  if (!state || state.isPartialView) {
    return fail("not_read", `${absPath} has not been read in this session. Read the notebook first (it shows each cell's id), then retry.`);
  }
  const { raw } = file.read();
  const current = { mtimeMs: stat.mtimeMs, size: raw.length };
  if (checkStaleness(state, current, () => raw).stale) return fail("stale", staleFileMessage(absPath, state, current, "the notebook edit"));
  const readOnly = readOnlyReason(file.path, stat);
  if (readOnly) return fail("read_only", `${absPath} cannot be edited: ${readOnly}.`);

  const sniff = sniffEncoding(raw, true);
  if (sniff.kind !== "text") return fail("invalid", `${absPath} is not a text file, so it is not a valid notebook.`);
  const originalText = decodeText(raw, sniff.encoding);
  const parsed = parseNotebook(originalText);
  if (!parsed.ok) return fail("invalid", `${absPath} cannot be edited as a notebook: ${parsed.error}. Repair it with Edit or Write first.`);
  const notebook = parsed.notebook;
  const ids = notebook.cells.map((cell, i) => cellDisplayId(cell, i));

  const mode = input.edit_mode;
  let index = -1;
  if (input.cell_id !== undefined) {
    index = findCellIndex(notebook, input.cell_id);
    if (index === -1) {
      const known = ids.length ? ` Its cells are: ${listCells(ids)} (cell-0 … cell-${ids.length - 1} also work, by position).` : " It has no cells.";
      return fail("cell_not_found", `No cell with id ${JSON.stringify(input.cell_id)} in ${absPath}.${known}`);
    }
  } else if (mode !== "insert") {
    return fail("cell_id_required", `cell_id is required to ${mode} a cell. Read the notebook to see the cell ids.`);
  }
  if (mode === "insert" && !input.cell_type) {
    return fail("cell_type_required", `cell_type ("code" or "markdown") is required to insert a cell.`);
  }

  const before = notebook.cells.length;
  const layout = detectJsonLayout(originalText);
  const edit = { mode, index, newSource: input.new_source, cellType: input.cell_type };
  const result = applyCellEdit(notebook, edit);
  const text = renderEditedNotebook(originalText, before, notebook, edit, layout);
  const encoded = tryEncodeText(text, sniff.encoding);
  if (!encoded.ok) return fail("unrepresentable", encoded.message);
  return { ok: true, plan: { absPath, state, raw, bytes: encoded.bytes, text, originalText, cellId: result.cellId, cellType: result.cellType, language: notebookLanguage(notebook) } };
}

const writer = createFileWriter<NotebookEditInput, PreparedNotebookEdit>({
  label: "notebookedit",
  filePath: (input) => input.notebook_path,
  prepare: prepareNotebookEdit,
  write: (edit) => ({
    absPath: edit.absPath,
    bytes: edit.bytes,
    text: edit.text,
    createParents: false,
    coversWholeFile: edit.state.coversWholeFile ?? false,
    basis: { raw: edit.raw, state: edit.state },
  }),
});

export const NotebookEditTool = buildTool({
  name: NOTEBOOK_EDIT_TOOL_NAME,
  // Rarely needed: announced by name only until ToolSearch loads it.
  shouldDefer: true,
  searchHint: "jupyter ipynb notebook cell edit insert delete",
  maxResultSizeChars: 100_000,
  strict: true,
  inputSchema,
  description: () => NOTEBOOK_EDIT_DESCRIPTION,
  prompt: () => NOTEBOOK_EDIT_PROMPT,
  userFacingName: () => "Edit Notebook",
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  ...fileTarget<NotebookEditInput>("notebook_path", "edit"),
  toAutoClassifierInput: (input) => `${input.notebook_path} ${input.edit_mode}: ${input.new_source}`,
  validateInput: (input, context) => writer.validateInput(input, context),
  // Synchronous from the re-read to the write.
  async call(input, context, _canUseTool, parentMessage) {
    const edit = writer.commit(input, context, parentMessage);
    const oldLf = normalizeToLf(edit.originalText);
    const newLf = normalizeToLf(edit.text);
    const output: NotebookEditOutput = {
      notebookPath: input.notebook_path,
      editMode: input.edit_mode,
      cellId: edit.cellId,
      cellType: edit.cellType,
      newSource: input.new_source,
      language: edit.language,
      structuredPatch: buildStructuredPatch(oldLf, newLf, diffRange(oldLf, newLf)),
    };
    const notes = await notifyAfterWrite(context, edit.absPath);
    if (notes.length) output.afterWriteNotes = notes;
    return { data: output };
  },
  mapToolResultToToolResultBlockParam(output: NotebookEditOutput, toolUseID: string): ToolResultBlockParam {
    const where = output.notebookPath;
    const text =
      output.editMode === "delete"
        ? `Deleted cell ${output.cellId} from ${where}.`
        : output.editMode === "insert"
          ? `Inserted a new ${output.cellType} cell with id ${output.cellId} into ${where}.`
          : `Replaced the source of ${output.cellType} cell ${output.cellId} in ${where}${output.cellType === "code" ? "; its outputs were cleared" : ""}.`;
    return { type: "tool_result", tool_use_id: toolUseID, content: withAfterWriteNotes(text, output.afterWriteNotes) };
  },
});
