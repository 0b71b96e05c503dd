import { Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { ResultText, ToolRejected, contentText, isTextTruncated, renderError, str } from "../../ui/components/index.js";

export interface WebSearchInput {
  query: string;
  allowed_domains?: string[];
  blocked_domains?: string[];
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

export const renderer: ToolRenderer<WebSearchInput> = {
  userFacingName: () => "Web Search",
  renderToolUseMessage(input) {
    return <Text>{summary(input)}</Text>;
  },
  renderToolResultMessage(result, _input, options) {
    return <ResultText text={contentText(result.content)} options={options} maxLines={RESULT_LINES} empty="No results" />;
  },
  renderToolUseRejectedMessage(input, options) {
    return <ToolRejected what={`search ${summary(input)}`} reason={options.reason} />;
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result) => isTextTruncated(contentText(result.content), RESULT_LINES),
};
