import { Box, Text } from "ink";
import type { StructuredPatchHunk } from "diff";
import { tint } from "./color.js";
import { HiddenLinesNote } from "./CollapsedText.js";
import { terminalSafe } from "./format.js";

/** How many diff lines show until Ctrl+O expands the diff. */
export const COLLAPSED_DIFF_LINES = 20;

export interface DiffStats {
  added: number;
  removed: number;
}

export function diffStats(hunks: readonly StructuredPatchHunk[] | undefined): DiffStats {
  let added = 0;
  let removed = 0;
  for (const hunk of hunks ?? []) {
    for (const line of hunk.lines ?? []) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
    }
  }
  return { added, removed };
}

/** "Added 2 lines, removed 1 line" (what the edit did, in words). */
export function describeDiffStats({ added, removed }: DiffStats): string {
  const lines = (n: number) => `${n} line${n === 1 ? "" : "s"}`;
  if (added === 0 && removed === 0) return "No changes";
  if (removed === 0) return `Added ${lines(added)}`;
  if (added === 0) return `Removed ${lines(removed)}`;
  return `Added ${lines(added)}, removed ${lines(removed)}`;
}

interface DiffRow {
  kind: "add" | "remove" | "context" | "separator" | "note";
  lineNumber?: number;
  text: string;
}

function rowsOf(hunks: readonly StructuredPatchHunk[]): DiffRow[] {
  const rows: DiffRow[] = [];
  hunks.forEach((hunk, index) => {
    if (index > 0) rows.push({ kind: "separator", text: "…" });
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const line of hunk.lines ?? []) {
      const marker = line[0];
      const text = terminalSafe(line.slice(1), "output");
      if (marker === "+") rows.push({ kind: "add", lineNumber: newLine++, text });
      else if (marker === "-") rows.push({ kind: "remove", lineNumber: oldLine++, text });
      else if (marker === "\\") rows.push({ kind: "note", text: terminalSafe(line, "output") });
      else {
        rows.push({ kind: "context", lineNumber: newLine, text });
        oldLine++;
        newLine++;
      }
    }
  });
  return rows;
}

export interface DiffProps {
  hunks: readonly StructuredPatchHunk[];
  expanded?: boolean;
  /** Diff lines shown while collapsed. */
  maxLines?: number;
  /** Off for a diff of snippets whose place in the file is unknown (a rejected edit). */
  lineNumbers?: boolean;
}

/**
 * A unified diff: line numbers, `+` lines green, `-` lines red, hunks separated by `…`. Each row is its gutter
 * (number and sign, never shrunk) beside its text, so a long line wraps under its own text, not under the numbers.
 * That is a few nodes per row: a diff of thousands of rows drawn whole took about half again as long here as one
 * Text of spans did, and a collapsed diff shows 20 rows.
 */
export function Diff({ hunks, expanded = false, maxLines = COLLAPSED_DIFF_LINES, lineNumbers = true }: DiffProps) {
  const rows = rowsOf(hunks);
  const shown = expanded ? rows : rows.slice(0, maxLines);
  const width = Math.max(...rows.map((r) => String(r.lineNumber ?? "").length), 1);
  const pad = lineNumbers ? "".padStart(width + 1) : "";
  return (
    <Box flexDirection="column">
      {shown.map((row, i) => {
        if (row.kind === "separator" || row.kind === "note") {
          return (
            <Text key={i} dimColor>
              {`${pad}${row.text}`}
            </Text>
          );
        }
        const gutter = lineNumbers ? `${String(row.lineNumber ?? "").padStart(width)} ` : "";
        const sign = row.kind === "add" ? "+" : row.kind === "remove" ? "-" : " ";
        const color = row.kind === "add" ? tint("green") : row.kind === "remove" ? tint("red") : undefined;
        return (
          <Box key={i} flexDirection="row">
            <Box flexShrink={0}>
              <Text color={color} dimColor={row.kind === "context"}>{`${gutter}${sign} `}</Text>
            </Box>
            <Text color={color} dimColor={row.kind === "context"}>
              {row.text}
            </Text>
          </Box>
        );
      })}
      <HiddenLinesNote count={rows.length - shown.length} />
    </Box>
  );
}

/** Whether the collapsed diff leaves lines out. */
export function isDiffTruncated(hunks: readonly StructuredPatchHunk[] | undefined, maxLines = COLLAPSED_DIFF_LINES): boolean {
  return rowsOf(hunks ?? []).length > maxLines;
}
