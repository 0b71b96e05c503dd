import { Text } from "ink";
import type { StructuredPatchHunk } from "diff";
import type { RenderOptions, ToolRenderer } from "../../ui/toolRenderer.js";
import {
  CollapsedText,
  FileChangeResult,
  ProposedChange,
  RejectedChange,
  ResultText,
  ToolRejected,
  addedHunks,
  contentText,
  displayPath,
  isFileChangeTruncated,
  isTextTruncated,
  num,
  proposedHunks,
  renderError,
  str,
} from "../../ui/components/index.js";

/** Anthropic's text editor tool (`str_replace_based_edit_tool`). */
export interface TextEditorInput {
  command: "view" | "create" | "str_replace" | "insert" | "undo_edit";
  path: string;
  file_text?: string;
  old_str?: string;
  new_str?: string;
  insert_line?: number;
  view_range?: number[];
}

const RESULT_LINES = 6;

function summary(input: Partial<TextEditorInput>, options: RenderOptions): string {
  const filePath = str(input.path);
  const parts = [str(input.command) ?? "", filePath === undefined ? "" : displayPath(filePath, options.cwd)];
  const range = Array.isArray(input.view_range) ? input.view_range.filter((n) => typeof n === "number") : [];
  if (input.command === "view" && range.length > 0) parts.push(`lines ${range.join("-")}`);
  const line = num(input.insert_line);
  if (input.command === "insert" && line !== undefined) parts.push(`after line ${line}`);
  return parts.filter(Boolean).join(" ");
}

/** A diff when the output carries one (the edit commands share Edit's machinery). */
function patchOf(output: unknown): StructuredPatchHunk[] | undefined {
  const patch = (output as { structuredPatch?: unknown } | undefined)?.structuredPatch;
  return Array.isArray(patch) ? (patch as StructuredPatchHunk[]) : undefined;
}

export const renderer: ToolRenderer<TextEditorInput> = {
  userFacingName: (input) => (input?.command === "view" ? "Read" : input?.command === "create" ? "Create" : input?.command === "undo_edit" ? "Undo" : "Update"),
  renderToolUseMessage(input, options) {
    return <Text>{summary(input, options)}</Text>;
  },
  renderPermissionPreview(input, options) {
    const hunks =
      input.command === "str_replace"
        ? proposedHunks(str(input.old_str) ?? "", str(input.new_str) ?? "")
        : addedHunks((input.command === "create" ? str(input.file_text) : input.command === "insert" ? str(input.new_str) : undefined) ?? "");
    return <ProposedChange title={<Text>{summary(input, options)}</Text>} hunks={hunks} options={options} lineNumbers={input.command === "create"} />;
  },
  renderToolResultMessage(result, input, options) {
    const patch = patchOf(result.output);
    if (patch && input?.command !== "view") return <FileChangeResult hunks={patch} options={options} />;
    if (input?.command === "view") {
      const lines = contentText(result.content).split("\n").length;
      return <ResultText text={`Read ${lines} line${lines === 1 ? "" : "s"}`} options={options} />;
    }
    return <ResultText text={contentText(result.content)} options={options} maxLines={RESULT_LINES} />;
  },
  renderToolUseRejectedMessage(input, options) {
    const what = summary(input, options);
    if (input.command === "str_replace") {
      return <RejectedChange what={what} reason={options.reason} hunks={proposedHunks(str(input.old_str) ?? "", str(input.new_str) ?? "")} options={options} />;
    }
    const text = input.command === "create" ? str(input.file_text) : input.command === "insert" ? str(input.new_str) : undefined;
    return (
      <ToolRejected what={what} reason={options.reason}>
        {text ? <CollapsedText text={text} expanded={options.expanded} dimColor /> : null}
      </ToolRejected>
    );
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result, input) => {
    const patch = patchOf(result.output);
    if (input?.command === "view") return false;
    return patch ? isFileChangeTruncated(patch) : isTextTruncated(contentText(result.content), RESULT_LINES);
  },
};
