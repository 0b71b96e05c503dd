import { Text } from "ink";
import type { RenderOptions, ToolRenderer } from "./toolRenderer.js";
import { ArgumentList, ResultText, ToolRejected, compactJson, contentText, isTextTruncated, renderError } from "./components/index.js";

/** Lines of a result shown until Ctrl+O. */
const RESULT_LINES = 6;

/** `key: value, …` on one line, cut to the width; safe for any partial or odd input. */
export function summarizeArguments(input: unknown, options: Pick<RenderOptions, "columns" | "verbose">): string {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return input === undefined ? "" : compactJson(input, 80);
  const max = options.verbose ? 2000 : Math.max(30, options.columns - 20);
  const perValue = Math.max(20, Math.floor(max / 2));
  const line = Object.entries(input as Record<string, unknown>)
    .map(([key, value]) => `${key}: ${compactJson(value, perValue)}`)
    .join(", ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Any tool without a renderer of its own: its arguments on one line (one per row when asked about), the result's first lines. */
export const genericRenderer: ToolRenderer = {
  renderToolUseMessage(input, options) {
    return <Text>{summarizeArguments(input, options)}</Text>;
  },
  renderPermissionPreview(input, options) {
    return <ArgumentList input={input} maxLines={options.maxLines} expanded={options.expanded} />;
  },
  renderToolResultMessage(result, _input, options) {
    return <ResultText text={contentText(result.content)} options={options} maxLines={RESULT_LINES} />;
  },
  renderToolUseRejectedMessage(_input, options) {
    return <ToolRejected reason={options.reason} />;
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result) => isTextTruncated(contentText(result.content), RESULT_LINES),
};
