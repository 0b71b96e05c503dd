import { Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { FileChangeResult, ProposedChange, RejectedChange, displayPath, isFileChangeTruncated, plural, proposedHunks, renderError, str } from "../../ui/components/index.js";
import type { MultiEditInput, MultiEditOutput } from "./index.js";

function target(input: Partial<MultiEditInput>, cwd: string): string {
  const filePath = str(input.file_path);
  return filePath === undefined ? "" : displayPath(filePath, cwd);
}

/** The edits that arrived whole enough to show (a streamed array may end in a partial one). */
function editsOf(input: Partial<MultiEditInput>): Array<{ old_string: string; new_string: string }> {
  if (!Array.isArray(input.edits)) return [];
  return input.edits.flatMap((e) => (e && typeof e === "object" ? [{ old_string: str(e.old_string) ?? "", new_string: str(e.new_string) ?? "" }] : []));
}

export const renderer: ToolRenderer<MultiEditInput, MultiEditOutput> = {
  userFacingName: () => "Update",
  renderToolUseMessage(input, options) {
    const edits = editsOf(input);
    return (
      <Text>
        {target(input, options.cwd)}
        {edits.length > 0 ? <Text dimColor>{` · ${plural(edits.length, "edit")}`}</Text> : null}
      </Text>
    );
  },
  renderPermissionPreview(input, options) {
    const hunks = editsOf(input).flatMap((e) => proposedHunks(e.old_string, e.new_string));
    return <ProposedChange title={renderer.renderToolUseMessage(input, options)} hunks={hunks} options={options} />;
  },
  renderToolResultMessage(result, _input, options) {
    return <FileChangeResult hunks={result.output?.structuredPatch} options={options} />;
  },
  renderToolUseRejectedMessage(input, options) {
    const hunks = editsOf(input).flatMap((e) => proposedHunks(e.old_string, e.new_string));
    return <RejectedChange what={`update ${target(input, options.cwd)}`} reason={options.reason} hunks={hunks} options={options} />;
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result) => isFileChangeTruncated(result.output?.structuredPatch),
};
