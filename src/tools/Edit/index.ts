import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import { readSettingsSection } from "../../core/context.js";
import type { ToolUseContext } from "../../core/Tool.js";
import type { ToolResultBlockParam } from "../../core/messages.js";
import { buildStructuredPatch, type StructuredPatchHunk } from "../files/patch.js";
import { snippetAround, type Snippet } from "../files/snippet.js";
import { fileTarget } from "../files/toolPaths.js";
import { notifyAfterWrite, withAfterWriteNotes } from "../files/observers.js";
import type { MatchStrategy } from "./match.js";
import { createEditWriter, type EditFileRequest, type PreparedEdit } from "./editFile.js";
import { EDIT_DESCRIPTION, EDIT_PROMPT } from "./prompt.js";

export const EDIT_TOOL_NAME = "Edit";
/** originalFile is left out (null) above this many characters; structuredPatch always describes the change. */
export const ORIGINAL_FILE_MAX_CHARS = 1024 * 1024;

const inputSchema = z.strictObject({
  file_path: z.string().describe("The file to change: absolute, or relative to the working directory"),
  old_string: z.string().describe("The exact text to replace (empty: create the file with new_string)"),
  new_string: z.string().describe("The replacement text (must differ from old_string)"),
  replace_all: z.boolean().default(false).describe("Replace every occurrence of old_string instead of exactly one"),
});

export type EditInput = z.infer<typeof inputSchema>;

export interface EditOutput {
  /** The path as the model wrote it. */
  filePath: string;
  oldString: string;
  newString: string;
  /** The file before the edit (decoded); null for new files and files over ORIGINAL_FILE_MAX_CHARS. */
  originalFile: string | null;
  structuredPatch: StructuredPatchHunk[];
  replaceAll: boolean;
  strategy: MatchStrategy | "create";
  occurrences: number;
  /** For indentation_shift: how the file's indentation differed from old_string's. */
  shift?: string;
  /** The edited region of the new file, numbered like Read. */
  snippet: Snippet;
  /** The model is shown the snippet too (settings `edit.showEditedRegion`). */
  showRegion?: true;
  /** What file-write observers said (new diagnostics); absent when nothing. */
  afterWriteNotes?: string[];
}

/** How old_string was found, for the result text; nothing for an exact match or a creation. */
export function editOutcomeNote(strategy: MatchStrategy | "create", shift?: string): string {
  switch (strategy) {
    case "quote_normalized":
      return " (old_string matched once curly and straight quotes, Unicode dashes and spaces were treated as equal; the file's own characters were replaced and the new text follows the file's quote style)";
    case "trailing_whitespace":
      return " (old_string matched once whitespace at line ends was ignored)";
    case "indentation_shift":
      return ` (old_string matched with the file indented ${shift ?? "differently"}; new_string was re-indented the same way unless it already was)`;
    case "whitespace_normalized":
      return " (old_string matched once tabs and spaces, and runs of them inside lines, were treated as equal; new_string's indentation follows the file's)";
    case "escape_sequences":
      return " (old_string matched once escape sequences such as \\n, \\t and \\\" were read as the characters they stand for, or the other way round; new_string was converted the same way)";
    case "indentation_remapped":
      return " (old_string matched with each indentation level of the file differing from old_string's; new_string was re-indented level by level unless it already was)";
    default:
      return "";
  }
}

export function formatSnippet(snippet: Snippet): string {
  return snippet.omittedLines > 0 ? `${snippet.text}\n… (${snippet.omittedLines} more lines not shown)` : snippet.text;
}

function request(input: EditInput): EditFileRequest {
  return { toolName: "Edit", filePath: input.file_path, edits: [input] };
}

const writer = createEditWriter("edit", request);

/** What Edit and MultiEdit report about a written edit: the file before it, the hunks, the edited region now. */
export function editReport(edit: PreparedEdit): { originalFile: string | null; structuredPatch: StructuredPatchHunk[]; snippet: Snippet } {
  const first = edit.ranges[0] ?? { newStart: 0, newEnd: 0 };
  return {
    originalFile: edit.originalText !== undefined && edit.originalText.length <= ORIGINAL_FILE_MAX_CHARS ? edit.originalText : null,
    structuredPatch: buildStructuredPatch(edit.oldSource, edit.newSource, edit.ranges),
    snippet: snippetAround(edit.newSource, first.newStart, first.newEnd),
  };
}

function editOutput(input: EditInput, edit: PreparedEdit): EditOutput {
  const applied = edit.applied[0];
  const { originalFile, structuredPatch, snippet } = editReport(edit);
  const output: EditOutput = {
    filePath: input.file_path,
    oldString: input.old_string,
    newString: input.new_string,
    originalFile,
    structuredPatch,
    replaceAll: input.replace_all,
    strategy: applied.strategy,
    occurrences: applied.occurrences,
    snippet,
  };
  if (applied.shift) output.shift = applied.shift;
  return output;
}

/**
 * Settings `edit`: `showEditedRegion: true` puts the edited region in the model's result of Edit and
 * MultiEdit. Off by default, as in Claude Code: the model wrote the new text and needs no echo of it.
 */
export const EDIT_SETTINGS = { key: "edit", schema: z.looseObject({ showEditedRegion: z.boolean().optional() }) };

export const showsEditedRegion = (context: ToolUseContext): boolean => readSettingsSection(context, EDIT_SETTINGS)?.showEditedRegion === true;

/** The region after the result's first sentence, when the settings ask for it; else nothing. */
export const editedRegionText = (output: { showRegion?: true; snippet: Snippet }, heading: string): string => (output.showRegion ? `${heading}:\n${formatSnippet(output.snippet)}` : "");

export const EditTool = buildTool({
  settingsSection: EDIT_SETTINGS,
  name: EDIT_TOOL_NAME,
  searchHint: "modify change replace text in a file",
  maxResultSizeChars: 100_000,
  strict: true,
  inputSchema,
  description: () => EDIT_DESCRIPTION,
  prompt: () => EDIT_PROMPT,
  userFacingName: (input) => (input?.old_string === "" ? "Create" : "Update"),
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  ...fileTarget<EditInput>("file_path", "edit"),
  toAutoClassifierInput: (input) => `${input.file_path}: ${input.new_string}`,
  validateInput: (input, context) => writer.validateInput(input, context),
  // Synchronous from the re-read to the write: nothing else can run in between.
  async call(input, context, _canUseTool, parentMessage) {
    const edit = writer.commit(input, context, parentMessage);
    const output = editOutput(input, edit);
    if (showsEditedRegion(context)) output.showRegion = true;
    const notes = await notifyAfterWrite(context, edit.absPath);
    if (notes.length) output.afterWriteNotes = notes;
    return { data: output };
  },
  mapToolResultToToolResultBlockParam(output: EditOutput, toolUseID: string): ToolResultBlockParam {
    if (output.strategy === "create") {
      return { type: "tool_result", tool_use_id: toolUseID, content: withAfterWriteNotes(`Created ${output.filePath}.${editedRegionText(output, " It reads")}`, output.afterWriteNotes) };
    }
    const count = output.occurrences > 1 ? ` Replaced ${output.occurrences} occurrences.` : "";
    const text = `The file ${output.filePath} has been updated${editOutcomeNote(output.strategy, output.shift)}.${count}${editedRegionText(output, " The edited region now reads")}`;
    return { type: "tool_result", tool_use_id: toolUseID, content: withAfterWriteNotes(text, output.afterWriteNotes) };
  },
});
