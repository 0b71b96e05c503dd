import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import type { ToolResultBlockParam } from "../../core/messages.js";
import type { StructuredPatchHunk } from "../files/patch.js";
import type { Snippet } from "../files/snippet.js";
import { fileTarget } from "../files/toolPaths.js";
import { notifyAfterWrite, withAfterWriteNotes } from "../files/observers.js";
import type { AppliedEdit } from "../Edit/applyEdits.js";
import { createEditWriter, type EditFileRequest } from "../Edit/editFile.js";
import { editedRegionText, editOutcomeNote, editReport, showsEditedRegion } from "../Edit/index.js";
import { MULTI_EDIT_DESCRIPTION, MULTI_EDIT_PROMPT } from "./prompt.js";

export const MULTI_EDIT_TOOL_NAME = "MultiEdit";

const editSchema = z.strictObject({
  old_string: z.string().describe("The exact text to replace (empty only in the first edit, to create the file)"),
  new_string: z.string().describe("The replacement text"),
  replace_all: z.boolean().default(false).describe("Replace every occurrence instead of exactly one"),
});

const inputSchema = z.strictObject({
  file_path: z.string().describe("The file to change: absolute, or relative to the working directory"),
  edits: z.array(editSchema).min(1).describe("Edits applied in order, all or nothing"),
});

export type MultiEditInput = z.infer<typeof inputSchema>;

export interface MultiEditOutput {
  filePath: string;
  edits: Array<MultiEditInput["edits"][number] & AppliedEdit>;
  /** The file before the edits; null for new files and files over ORIGINAL_FILE_MAX_CHARS. */
  originalFile: string | null;
  structuredPatch: StructuredPatchHunk[];
  snippet: Snippet;
  /** The model is shown the snippet too (settings `edit.showEditedRegion`). */
  showRegion?: true;
  /** What file-write observers said (new diagnostics); absent when nothing. */
  afterWriteNotes?: string[];
}

function request(input: MultiEditInput): EditFileRequest {
  return { toolName: "MultiEdit", filePath: input.file_path, edits: input.edits, numbered: true };
}

const writer = createEditWriter("multiedit", request);

export const MultiEditTool = buildTool({
  name: MULTI_EDIT_TOOL_NAME,
  searchHint: "several edits replacements in one file atomically",
  maxResultSizeChars: 100_000,
  strict: true,
  inputSchema,
  description: () => MULTI_EDIT_DESCRIPTION,
  prompt: () => MULTI_EDIT_PROMPT,
  userFacingName: () => "Update",
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  ...fileTarget<MultiEditInput>("file_path", "edit"),
  toAutoClassifierInput: (input) => `${input.file_path}: ${input.edits.map((e) => e.new_string).join("\n")}`,
  validateInput: (input, context) => writer.validateInput(input, context),
  // Synchronous from the re-read to the write, like Edit.
  async call(input, context, _canUseTool, parentMessage) {
    const edit = writer.commit(input, context, parentMessage);
    const output: MultiEditOutput = {
      filePath: input.file_path,
      edits: input.edits.map((e, i) => ({ ...e, ...edit.applied[i] })),
      ...editReport(edit),
    };
    if (showsEditedRegion(context)) output.showRegion = true;
    const afterWrite = await notifyAfterWrite(context, edit.absPath);
    if (afterWrite.length) output.afterWriteNotes = afterWrite;
    return { data: output };
  },
  mapToolResultToToolResultBlockParam(output: MultiEditOutput, toolUseID: string): ToolResultBlockParam {
    const notes = output.edits
      .map((e, i) => {
        const note = editOutcomeNote(e.strategy, e.shift);
        const count = e.occurrences > 1 ? ` (${e.occurrences} occurrences)` : "";
        return note || count ? `- edit ${i + 1}${count}${note}` : "";
      })
      .filter(Boolean);
    const n = output.edits.length;
    const created = output.edits[0]?.strategy === "create";
    const plural = (k: number) => `${k} edit${k === 1 ? "" : "s"}`;
    const head = created ? `Created ${output.filePath} and applied ${plural(n - 1)} to it.` : `Applied ${plural(n)} to ${output.filePath}.`;
    const body = notes.length ? `${head}\n${notes.join("\n")}` : head;
    return { type: "tool_result", tool_use_id: toolUseID, content: withAfterWriteNotes(`${body}${editedRegionText(output, "\nThe changed region now reads")}`, output.afterWriteNotes) };
  },
});
