import { Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { CollapsedText, ResultGutter, ToolRejected, contentText, isTextTruncated, num, plural, renderError, str } from "../../ui/components/index.js";

export interface WebSearchInput {
  query: string;
  allowed_domains?: string[];
  blocked_domains?: string[];
}

/** What the UI uses of WebSearch's output; every member optional so another shape still draws. */
export interface WebSearchOutputView {
  source?: string;
  hits?: unknown[];
  filteredOut?: number;
}

const RESULT_LINES = 6;

function domains(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((d): d is string => typeof d === "string" && d !== "") : [];
}

function summary(input: Partial<WebSearchInput>): string {
  const query = str(input.query);
  const allowed = domains(input.allowed_domains);
  const blocked = domains(input.blocked_domains);
  return [query === undefined ? "" : JSON.stringify(query), allowed.length ? `only ${allowed.join(", ")}` : "", blocked.length ? `not ${blocked.join(", ")}` : ""]
    .filter(Boolean)
    .join(" · ");
}

export const renderer: ToolRenderer<WebSearchInput, WebSearchOutputView> = {
  userFacingName: () => "Web Search",
  renderToolUseMessage(input) {
    return <Text>{summary(input)}</Text>;
  },
  renderToolResultMessage(result, _input, options) {
    const output = result.output;
    const hits = Array.isArray(output?.hits) ? output.hits.length : undefined;
    const filtered = num(output?.filteredOut);
    const source = str(output?.source);
    const text = contentText(result.content);
    return (
      <ResultGutter>
        {hits !== undefined ? (
          <Text>
            {`${plural(hits, "result")}${source ? ` from ${source}` : ""}`}
            {filtered ? <Text dimColor>{` (${filtered} filtered out)`}</Text> : null}
          </Text>
        ) : null}
        {text.trim() === "" ? <Text dimColor>No results</Text> : <CollapsedText text={text} expanded={options.expanded} maxLines={RESULT_LINES} dimColor={hits !== undefined} />}
      </ResultGutter>
    );
  },
  renderToolUseRejectedMessage(input, options) {
    return <ToolRejected what={`search ${summary(input)}`} reason={options.reason} />;
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result) => isTextTruncated(contentText(result.content), RESULT_LINES),
};
