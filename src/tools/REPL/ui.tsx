import { Box, Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { ResultText, ToolRejected, contentText, isTextTruncated, oneLine, renderError, str, terminalSafe } from "../../ui/components/index.js";
import type { ReplInput, ReplOutput } from "./index.js";

/** Lines of code the permission dialog shows at least before it cuts a long cell. */
const CODE_PREVIEW_LINES = 20;
/** Lines of a result shown until Ctrl+O. */
const RESULT_LINES = 10;

const code = (input: Partial<ReplInput>) => terminalSafe(str(input.code) ?? "", "input");

export const renderer: ToolRenderer<ReplInput, ReplOutput> = {
  userFacingName: () => "REPL",
  renderToolUseMessage(input, options) {
    const text = code(input);
    return <Text>{options.expanded || options.verbose ? text : oneLine(text, Math.max(20, options.columns - 12))}</Text>;
  },
  renderPermissionPreview(input, options) {
    // the code is what is approved: shown whole, only a very long cell is cut, and says so
    const lines = code(input).split("\n");
    const limit = options.expanded ? lines.length : Math.max(options.maxLines, CODE_PREVIEW_LINES);
    return (
      <Box flexDirection="column">
        <Text>{lines.slice(0, limit).join("\n")}</Text>
        {lines.length > limit ? <Text dimColor>{`… +${lines.length - limit} more lines of this code (ctrl+o to show all)`}</Text> : null}
        <Text dimColor>Python, in the session's persistent interpreter</Text>
      </Box>
    );
  },
  renderToolResultMessage(result, _input, options) {
    return <ResultText text={contentText(result.content)} options={options} maxLines={RESULT_LINES} />;
  },
  renderToolUseRejectedMessage(input, options) {
    return <ToolRejected what={oneLine(code(input), Math.max(20, options.columns - 20))} reason={options.reason} />;
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result) => isTextTruncated(contentText(result.content), RESULT_LINES),
};
