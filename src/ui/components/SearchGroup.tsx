import { Box, Text } from "ink";
import type { GroupedUse, RenderOptions, ToolRenderer } from "../toolRenderer.js";
import { CollapsedText, isTextTruncated } from "./CollapsedText.js";
import { tint } from "./color.js";
import { plural } from "./format.js";
import { ToolRejected, groupStatus, renderError, statusOf } from "./ToolMessages.js";
import { ResultGutter, ToolUseLine } from "./ToolUseLine.js";

/** Parallel searches as one block: "Search 3 patterns", then each one's summary and count. */
export function SearchGroup<Input, Output>({
  name,
  uses,
  options,
  summarize,
  describe,
}: {
  name: string;
  uses: readonly GroupedUse<Input, Output>[];
  options: RenderOptions;
  summarize: (input: Partial<Input>, options: RenderOptions) => string;
  describe: (output: Output | undefined) => string;
}) {
  const statuses = uses.map((u) => statusOf(u.result));
  return (
    <Box flexDirection="column">
      <ToolUseLine name={name} summary={<Text>{plural(uses.length, "pattern")}</Text>} status={groupStatus(statuses)} />
      {uses.map((use, i) => {
        const status = statuses[i];
        const failed = status === "error" || status === "rejected";
        const outcome = status === "running" ? "searching…" : status === "success" ? describe(use.result?.output) : status === "rejected" ? "rejected" : "failed";
        return (
          <ResultGutter key={use.toolUseID}>
            <Text>
              {summarize(use.input, options) || "…"}
              <Text dimColor={!failed} color={failed ? tint("red") : undefined}>{` · ${outcome}`}</Text>
            </Text>
          </ResultGutter>
        );
      })}
    </Box>
  );
}

const MATCH_LINES = 5;

/** The renderer Glob and Grep share: the search on one line, a count, the first matches; parallel ones grouped. */
export function searchRenderer<Input, Output>(parts: {
  summarize: (input: Partial<Input>, options: RenderOptions) => string;
  describe: (output: Output | undefined) => string;
  /** The matches as lines (file names, or matching lines). */
  matches: (output: Output | undefined) => string;
}): ToolRenderer<Input, Output> {
  const { summarize, describe, matches } = parts;
  return {
    userFacingName: () => "Search",
    renderToolUseMessage(input, options) {
      return <Text>{summarize(input, options)}</Text>;
    },
    renderToolResultMessage(result, _input, options) {
      const lines = matches(result.output);
      return (
        <ResultGutter>
          <Text>{describe(result.output)}</Text>
          {lines ? <CollapsedText text={lines} expanded={options.expanded} maxLines={MATCH_LINES} dimColor /> : null}
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
    isResultTruncated: (result) => isTextTruncated(matches(result.output), MATCH_LINES),
  };
}
