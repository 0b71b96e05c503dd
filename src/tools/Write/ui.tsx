import { Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import {
  CollapsedText,
  FileChangeResult,
  ProposedChange,
  ResultGutter,
  ToolRejected,
  addedHunks,
  displayPath,
  isFileChangeTruncated,
  isTextTruncated,
  linesOf,
  plural,
  renderError,
  str,
} from "../../ui/components/index.js";
import type { WriteInput, WriteOutput } from "./index.js";

function target(input: Partial<WriteInput>, cwd: string): string {
  const filePath = str(input.file_path);
  return filePath === undefined ? "" : displayPath(filePath, cwd);
}

export const renderer: ToolRenderer<WriteInput, WriteOutput> = {
  userFacingName: () => "Write",
  renderToolUseMessage(input, options) {
    return <Text>{target(input, options.cwd)}</Text>;
  },
  renderPermissionPreview(input, options) {
    const content = str(input.content) ?? "";
    const title = (
      <Text>
        {target(input, options.cwd)}
        <Text dimColor>{` · ${plural(linesOf(content).length, "line")}, the whole new content`}</Text>
      </Text>
    );
    return <ProposedChange title={title} hunks={addedHunks(content)} options={options} lineNumbers />;
  },
  renderToolResultMessage(result, input, options) {
    const output = result.output;
    if (output?.type === "update") return <FileChangeResult hunks={output.structuredPatch} options={options} />;
    const content = output?.content ?? str(input.content) ?? "";
    return (
      <ResultGutter>
        <Text>{`Wrote ${plural(linesOf(content).length, "line")} to ${target(input, options.cwd)}`}</Text>
        <CollapsedText text={content} expanded={options.expanded} dimColor />
      </ResultGutter>
    );
  },
  renderToolUseRejectedMessage(input, options) {
    const content = str(input.content) ?? "";
    return (
      <ToolRejected what={`write ${target(input, options.cwd)}`} reason={options.reason}>
        <CollapsedText text={content} expanded={options.expanded} dimColor />
      </ToolRejected>
    );
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result, input) =>
    result.output?.type === "update" ? isFileChangeTruncated(result.output.structuredPatch) : isTextTruncated(result.output?.content ?? str(input?.content) ?? ""),
};
