import { Text } from "ink";
import type { RenderOptions, ToolRenderer } from "../../ui/toolRenderer.js";
import { CollapsedText, ResultGutter, SearchGroup, ToolRejected, displayPath, isTextTruncated, plural, renderError, str } from "../../ui/components/index.js";
import type { GlobInput, GlobOutput } from "./index.js";

function summarize(input: Partial<GlobInput>, options: RenderOptions): string {
  const pattern = str(input.pattern);
  const parts = [pattern === undefined ? "" : `pattern: ${JSON.stringify(pattern)}`];
  const dir = str(input.path);
  if (dir !== undefined) parts.push(`path: ${JSON.stringify(displayPath(dir, options.cwd))}`);
  return parts.filter(Boolean).join(", ");
}

function describe(output: GlobOutput | undefined): string {
  if (!output) return "Searched";
  const shown = output.truncated ? ` (first ${output.filenames?.length ?? 0} shown)` : "";
  const partial = output.partial === "timeout" ? " (timed out: partial)" : output.partial ? " (stopped early: partial)" : "";
  return `Found ${plural(output.numFiles, "file")}${shown}${partial}`;
}

const MATCH_LINES = 5;

export const renderer: ToolRenderer<GlobInput, GlobOutput> = {
  userFacingName: () => "Search",
  renderToolUseMessage(input, options) {
    return <Text>{summarize(input, options)}</Text>;
  },
  renderToolResultMessage(result, _input, options) {
    const files = (result.output?.filenames ?? []).join("\n");
    return (
      <ResultGutter>
        <Text>{describe(result.output)}</Text>
        {files ? <CollapsedText text={files} expanded={options.expanded} maxLines={MATCH_LINES} dimColor /> : null}
      </ResultGutter>
    );
  },
  renderToolUseRejectedMessage(input, options) {
    return <ToolRejected what={`search ${summarize(input, options)}`} reason={options.reason} />;
  },
  renderToolUseErrorMessage: renderError,
  renderGroupedToolUse(uses, options) {
    return uses.length < 2 ? null : <SearchGroup name="Search" uses={uses} options={options} summarize={summarize} describe={describe} />;
  },
  isResultTruncated: (result) => isTextTruncated((result.output?.filenames ?? []).join("\n"), MATCH_LINES),
};
