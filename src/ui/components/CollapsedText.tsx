import { Box, Text } from "ink";
import { tint } from "./color.js";
import { linesOf, terminalSafe } from "./format.js";

/** How many lines a long result shows until Ctrl+O expands it. */
export const COLLAPSED_LINES = 10;

export interface Collapsed {
  shown: string[];
  hiddenLines: number;
}

/** The first `maxLines` lines of a text and how many were left out (none when expanded). */
export function collapseLines(lines: readonly string[], maxLines: number, expanded: boolean): Collapsed {
  if (expanded || lines.length <= maxLines) return { shown: [...lines], hiddenLines: 0 };
  return { shown: lines.slice(0, maxLines), hiddenLines: lines.length - maxLines };
}

/** Whether a text is longer than its collapsed view. */
export function isTextTruncated(text: string, maxLines = COLLAPSED_LINES): boolean {
  return linesOf(terminalSafe(text, "output")).length > maxLines;
}

/** The note under a collapsed block. */
export function HiddenLinesNote({ count }: { count: number }) {
  if (count <= 0) return null;
  return <Text dimColor>{`… +${count} line${count === 1 ? "" : "s"} (ctrl+o to expand)`}</Text>;
}

export interface CollapsedTextProps {
  text: string;
  maxLines?: number;
  expanded?: boolean;
  color?: string;
  dimColor?: boolean;
}

/** A text cut to its first lines with a "+N lines" note, or whole when expanded. */
export function CollapsedText({ text, maxLines = COLLAPSED_LINES, expanded = false, color, dimColor }: CollapsedTextProps) {
  const { shown, hiddenLines } = collapseLines(linesOf(terminalSafe(text, "output")), maxLines, expanded);
  return (
    <Box flexDirection="column">
      {shown.length > 0 ? (
        <Text color={color ? tint(color) : undefined} dimColor={dimColor}>
          {shown.join("\n")}
        </Text>
      ) : null}
      <HiddenLinesNote count={hiddenLines} />
    </Box>
  );
}
