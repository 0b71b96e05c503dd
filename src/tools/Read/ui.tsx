import { Box, Text } from "ink";
import type { GroupedUse, RenderOptions, RenderedResult, ToolRenderer } from "../../ui/toolRenderer.js";
import { ResultGutter, ToolRejected, ToolUseLine, displayPath, formatBytes, groupStatus, num, plural, renderError, statusOf, str, tint } from "../../ui/components/index.js";
import type { ReadInput, ReadOutput } from "./index.js";

/** "lines 10-29" / "from line 10" / "last 100 lines" / "pages 2-3": the window asked for, if any. */
function windowOf(input: Partial<ReadInput>): string | undefined {
  const pages = str(input.pages);
  if (pages) return `pages ${pages}`;
  const offset = num(input.offset);
  const limit = num(input.limit);
  if (offset !== undefined && offset < 0) return `last ${-offset} lines${limit !== undefined ? `, ${limit} shown` : ""}`;
  if (offset !== undefined && limit !== undefined) return `lines ${offset}-${offset + limit - 1}`;
  if (offset !== undefined) return `from line ${offset}`;
  if (limit !== undefined) return `first ${plural(limit, "line")}`;
  return undefined;
}

function summary(input: Partial<ReadInput>, cwd: string): string {
  const filePath = str(input.file_path);
  const window = windowOf(input);
  return [filePath === undefined ? "" : displayPath(filePath, cwd), window].filter(Boolean).join(" · ");
}

/** What was read, in a few words. */
function describe(output: ReadOutput | undefined): string {
  switch (output?.type) {
    case "text": {
      const { file } = output;
      if (file.numLines === 0) return "Read an empty range";
      const range = file.numLines === file.totalLines && !file.countedFromEnd ? "" : ` (${file.startLine}-${file.startLine + file.numLines - 1} of ${file.countedFromEnd ? "≥" : ""}${file.totalLines})`;
      return `Read ${plural(file.numLines, "line")}${range}`;
    }
    case "unchanged":
      return "Unchanged since the last read";
    case "image": {
      const size = output.file.width && output.file.height ? `${output.file.width}×${output.file.height}, ` : "";
      return `Read image (${size}${formatBytes(output.file.originalSize)})`;
    }
    case "notebook":
      return `Read ${plural(output.file.shownCells, "cell")}${output.file.shownCells < output.file.cellCount ? ` of ${output.file.cellCount}` : ""}`;
    case "pdf":
      return `Read ${output.file.first === output.file.last ? `page ${output.file.first}` : `pages ${output.file.first}-${output.file.last}`}${output.file.totalPages ? ` of ${output.file.totalPages}` : ""}`;
    default:
      return "Read";
  }
}

function GroupedReads({ uses, options }: { uses: readonly GroupedUse<ReadInput, ReadOutput>[]; options: RenderOptions }) {
  const statuses = uses.map((u) => statusOf(u.result));
  return (
    <Box flexDirection="column">
      <ToolUseLine name="Read" summary={<Text>{plural(uses.length, "file")}</Text>} status={groupStatus(statuses)} />
      {uses.map((use, i) => (
        <ResultGutter key={use.toolUseID}>
          <Text>
            <Text>{summary(use.input, options.cwd) || "…"}</Text>
            <Text dimColor color={statuses[i] === "error" || statuses[i] === "rejected" ? tint("red") : undefined}>
              {` · ${statuses[i] === "running" ? "reading…" : statuses[i] === "success" ? describe(use.result?.output) : statuses[i] === "rejected" ? "rejected" : "failed"}`}
            </Text>
          </Text>
        </ResultGutter>
      ))}
    </Box>
  );
}

export const renderer: ToolRenderer<ReadInput, ReadOutput> = {
  userFacingName: () => "Read",
  renderToolUseMessage(input, options) {
    return <Text>{summary(input, options.cwd)}</Text>;
  },
  renderToolResultMessage(result: RenderedResult<ReadOutput>) {
    return (
      <ResultGutter>
        <Text>{describe(result.output)}</Text>
      </ResultGutter>
    );
  },
  renderToolUseRejectedMessage(input, options) {
    return <ToolRejected what={`read ${summary(input, options.cwd)}`} reason={options.reason} />;
  },
  renderToolUseErrorMessage: renderError,
  renderGroupedToolUse(uses, options) {
    return uses.length < 2 ? null : <GroupedReads uses={uses} options={options} />;
  },
  isResultTruncated: () => false,
};
