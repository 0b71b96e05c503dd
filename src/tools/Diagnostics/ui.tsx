import { Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { ResultText, contentText, displayPath, isTextTruncated, renderError, str } from "../../ui/components/index.js";

export interface DiagnosticsInput {
  file_path?: string;
}

const RESULT_LINES = 8;

export const renderer: ToolRenderer<DiagnosticsInput> = {
  userFacingName: () => "Diagnostics",
  renderToolUseMessage(input, options) {
    const filePath = str(input.file_path);
    return <Text>{filePath === undefined ? "open files" : displayPath(filePath, options.cwd)}</Text>;
  },
  renderToolResultMessage(result, _input, options) {
    return <ResultText text={contentText(result.content)} options={options} maxLines={RESULT_LINES} empty="No diagnostics" />;
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result) => isTextTruncated(contentText(result.content), RESULT_LINES),
};
