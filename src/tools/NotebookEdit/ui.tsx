import { Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { CollapsedText, FileChangeResult, ProposedChange, ToolRejected, addedHunks, displayPath, isFileChangeTruncated, renderError, str } from "../../ui/components/index.js";
import type { NotebookEditInput, NotebookEditOutput } from "./index.js";

const VERB = { replace: "Replaced", insert: "Inserted", delete: "Deleted" } as const;

function summary(input: Partial<NotebookEditInput>, cwd: string): string {
  const notebook = str(input.notebook_path);
  const cell = str(input.cell_id);
  const mode = str(input.edit_mode);
  return [notebook === undefined ? "" : displayPath(notebook, cwd), cell, mode && mode !== "replace" ? mode : undefined].filter(Boolean).join(" · ");
}

export const renderer: ToolRenderer<NotebookEditInput, NotebookEditOutput> = {
  userFacingName: () => "Edit Notebook",
  renderToolUseMessage(input, options) {
    return <Text>{summary(input, options.cwd)}</Text>;
  },
  renderPermissionPreview(input, options) {
    const title = <Text>{`${str(input.edit_mode) ?? "replace"} ${str(input.cell_type) ?? ""} cell in ${summary(input, options.cwd)}`.replace(/ {2,}/g, " ")}</Text>;
    return <ProposedChange title={title} hunks={input.edit_mode === "delete" ? [] : addedHunks(str(input.new_source) ?? "")} options={options} />;
  },
  renderToolResultMessage(result, _input, options) {
    const output = result.output;
    const verb = output ? (VERB[output.editMode] ?? "Edited") : "Edited";
    const title = output ? `${verb} ${str(output.cellType) ?? ""} cell ${str(output.cellId) ?? ""}` : undefined;
    return <FileChangeResult hunks={output?.structuredPatch} options={options} title={title} />;
  },
  renderToolUseRejectedMessage(input, options) {
    return (
      <ToolRejected what={`${str(input.edit_mode) ?? "replace"} in ${summary(input, options.cwd)}`} reason={options.reason}>
        {input.edit_mode === "delete" ? null : <CollapsedText text={str(input.new_source) ?? ""} expanded={options.expanded} dimColor />}
      </ToolRejected>
    );
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result) => isFileChangeTruncated(result.output?.structuredPatch),
};
