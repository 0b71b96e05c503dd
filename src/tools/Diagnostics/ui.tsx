import { Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { CollapsedText, ResultGutter, contentText, displayPath, isTextTruncated, plural, renderError, str, tint } from "../../ui/components/index.js";

export interface DiagnosticsInput {
  file_path?: string;
}

/** What the UI uses of Diagnostics' output (LSP severities: 1 error, 2 warning, 3 information). */
export interface DiagnosticsOutputView {
  files?: Array<{ diagnostics?: Array<{ severity?: number }> }>;
}

const RESULT_LINES = 8;

/** "2 errors, 1 warning in 3 files", or undefined when the output has no file list. */
function counts(output: DiagnosticsOutputView | undefined): { text: string; errors: number } | undefined {
  if (!Array.isArray(output?.files)) return undefined;
  let errors = 0;
  let warnings = 0;
  let other = 0;
  for (const file of output.files) {
    for (const d of Array.isArray(file?.diagnostics) ? file.diagnostics : []) {
      const severity = d?.severity ?? 1;
      if (severity === 1) errors++;
      else if (severity === 2) warnings++;
      else other++;
    }
  }
  const parts = [plural(errors, "error"), plural(warnings, "warning"), ...(other ? [`${other} other`] : [])];
  return { text: `${parts.join(", ")} in ${plural(output.files.length, "file")}`, errors };
}

export const renderer: ToolRenderer<DiagnosticsInput, DiagnosticsOutputView> = {
  userFacingName: () => "Diagnostics",
  renderToolUseMessage(input, options) {
    const filePath = str(input.file_path);
    return <Text>{filePath === undefined ? "open files" : displayPath(filePath, options.cwd)}</Text>;
  },
  renderToolResultMessage(result, _input, options) {
    const summary = counts(result.output);
    const text = contentText(result.content);
    return (
      <ResultGutter>
        {summary ? <Text color={summary.errors > 0 ? tint("red") : undefined}>{summary.text}</Text> : null}
        {text.trim() === "" ? <Text dimColor>No diagnostics</Text> : <CollapsedText text={text} expanded={options.expanded} maxLines={RESULT_LINES} dimColor={summary !== undefined} />}
      </ResultGutter>
    );
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result) => isTextTruncated(contentText(result.content), RESULT_LINES),
};
