import { Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { FileChangeResult, ProposedChange, RejectedChange, displayPath, isFileChangeTruncated, proposedHunks, renderError, str } from "../../ui/components/index.js";
import type { EditInput, EditOutput } from "./index.js";

function target(input: Partial<EditInput>, cwd: string): string {
  const filePath = str(input.file_path);
  return filePath === undefined ? "" : displayPath(filePath, cwd);
}

function Summary({ input, cwd }: { input: Partial<EditInput>; cwd: string }) {
  return (
    <Text>
      {target(input, cwd)}
      {input.replace_all === true ? <Text dimColor> · every occurrence</Text> : null}
    </Text>
  );
}

export const renderer: ToolRenderer<EditInput, EditOutput> = {
  userFacingName: (input) => (input.old_string === "" ? "Create" : "Update"),
  renderToolUseMessage(input, options) {
    return <Summary input={input} cwd={options.cwd} />;
  },
  renderPermissionPreview(input, options) {
    const hunks = proposedHunks(str(input.old_string) ?? "", str(input.new_string) ?? "");
    return <ProposedChange title={<Summary input={input} cwd={options.cwd} />} hunks={hunks} options={options} />;
  },
  renderToolResultMessage(result, input, options) {
    const output = result.output;
    const note = output && output.occurrences > 1 ? `(${output.occurrences} occurrences)` : undefined;
    const title = output?.strategy === "create" ? `Created ${target(input, options.cwd)}` : undefined;
    return <FileChangeResult hunks={output?.structuredPatch} options={options} title={title} note={note} />;
  },
  renderToolUseRejectedMessage(input, options) {
    const hunks = proposedHunks(str(input.old_string) ?? "", str(input.new_string) ?? "");
    return <RejectedChange what={`${input.old_string === "" ? "create" : "update"} ${target(input, options.cwd)}`} reason={options.reason} hunks={hunks} options={options} />;
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result) => isFileChangeTruncated(result.output?.structuredPatch),
};
