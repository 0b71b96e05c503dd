import { Box, Text } from "ink";
import type { RenderOptions, ToolRenderer } from "../../ui/toolRenderer.js";
import { ResultGutter, ResultText, ToolRejected, contentText, displayPath, isTextTruncated, plural, renderError, str, tint } from "../../ui/components/index.js";

export interface ApplyPatchInput {
  input: string;
}

export interface PatchFileSummary {
  action: "add" | "update" | "delete";
  path: string;
  moveTo?: string;
  added: number;
  removed: number;
}

const FILE_HEADER = /^\*\*\* (Add|Update|Delete) File: (.*)$/;
const MOVE_HEADER = /^\*\*\* Move to: (.*)$/;

/**
 * The files a V4A patch touches and its +/- line counts, read leniently: the text may be cut anywhere while it
 * streams in (a half-written header is skipped until it is whole), and nothing here judges whether it applies.
 */
export function summarizePatch(text: string): PatchFileSummary[] {
  const files: PatchFileSummary[] = [];
  let current: PatchFileSummary | undefined;
  for (const rawLine of text.split("\n")) {
    const line = rawLine.replace(/\r$/, "");
    const header = FILE_HEADER.exec(line);
    if (header) {
      current = { action: header[1].toLowerCase() as PatchFileSummary["action"], path: header[2].trim(), added: 0, removed: 0 };
      files.push(current);
      continue;
    }
    if (line.startsWith("***")) {
      const move = MOVE_HEADER.exec(line);
      if (move && current) current.moveTo = move[1].trim();
      continue;
    }
    if (!current || current.action === "delete") continue;
    if (line.startsWith("+")) current.added++;
    else if (line.startsWith("-")) current.removed++;
  }
  return files.filter((f) => f.path !== "");
}

const VERB = { add: "Add", update: "Update", delete: "Delete" } as const;

function FileList({ files, cwd }: { files: readonly PatchFileSummary[]; cwd: string }) {
  if (files.length === 0) return <Text dimColor>(no files yet)</Text>;
  return (
    <Box flexDirection="column">
      {files.map((f, i) => (
        <Text key={i}>
          {`${VERB[f.action]} ${displayPath(f.path, cwd)}${f.moveTo ? ` → ${displayPath(f.moveTo, cwd)}` : ""} `}
          {f.action === "delete" ? null : (
            <Text>
              <Text color={tint("green")}>{`+${f.added}`}</Text> <Text color={tint("red")}>{`-${f.removed}`}</Text>
            </Text>
          )}
        </Text>
      ))}
    </Box>
  );
}

function summaryLine(input: Partial<ApplyPatchInput>, options: RenderOptions): string {
  const files = summarizePatch(str(input.input) ?? "");
  if (files.length === 0) return "";
  if (files.length === 1) return displayPath(files[0].path, options.cwd);
  const added = files.reduce((n, f) => n + f.added, 0);
  const removed = files.reduce((n, f) => n + f.removed, 0);
  return `${plural(files.length, "file")} · +${added} -${removed}`;
}

const RESULT_LINES = 4;

export const renderer: ToolRenderer<ApplyPatchInput> = {
  userFacingName: () => "Patch",
  renderToolUseMessage(input, options) {
    return <Text>{summaryLine(input, options)}</Text>;
  },
  renderPermissionPreview(input, options) {
    return <FileList files={summarizePatch(str(input.input) ?? "")} cwd={options.cwd} />;
  },
  renderToolResultMessage(result, input, options) {
    const files = summarizePatch(str(input?.input) ?? "");
    if (files.length === 0) return <ResultText text={contentText(result.content)} options={options} maxLines={RESULT_LINES} />;
    return (
      <ResultGutter>
        <FileList files={files} cwd={options.cwd} />
      </ResultGutter>
    );
  },
  renderToolUseRejectedMessage(input, options) {
    return (
      <ToolRejected what="patch" reason={options.reason}>
        <FileList files={summarizePatch(str(input.input) ?? "")} cwd={options.cwd} />
      </ToolRejected>
    );
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result, input) => summarizePatch(str(input?.input) ?? "").length === 0 && isTextTruncated(contentText(result.content), RESULT_LINES),
};
