import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { tint } from "./color.js";
import { terminalSafe } from "./format.js";

export type ToolUseStatus = "streaming" | "queued" | "awaiting_permission" | "running" | "success" | "error" | "rejected";

const DOT_COLOR: Record<ToolUseStatus, string | undefined> = {
  streaming: undefined,
  queued: undefined,
  awaiting_permission: "yellow",
  running: "cyan",
  success: "green",
  error: "red",
  rejected: "red",
};

export interface ToolUseLineProps {
  name: string;
  /** The renderer's `renderToolUseMessage`. */
  summary?: ReactNode;
  status: ToolUseStatus;
}

/** `● Name (summary)`: the dot's colour says where the call stands (dim while it is not running yet). */
export function ToolUseLine({ name, summary, status }: ToolUseLineProps) {
  const color = DOT_COLOR[status];
  const hasSummary = summary !== undefined && summary !== null && summary !== "";
  return (
    <Box flexDirection="row">
      <Box flexShrink={0}>
        <Text color={color ? tint(color) : undefined} dimColor={color === undefined}>
          {"● "}
        </Text>
      </Box>
      <Box flexShrink={1}>
        <Text>
          <Text bold>{terminalSafe(name, "input")}</Text>
          {hasSummary ? <Text> (</Text> : null}
          {hasSummary ? summary : null}
          {hasSummary ? <Text>)</Text> : null}
        </Text>
      </Box>
    </Box>
  );
}

/**
 * The indented block under a tool use: `  ⎿  ` before the first line, the rest aligned with it. The gutter never
 * shrinks (Ink's Text does by default): a long line would take a column from it and run past the right edge.
 */
export function ResultGutter({ children }: { children: ReactNode }) {
  return (
    <Box flexDirection="row">
      <Box flexShrink={0}>
        <Text dimColor>{"  ⎿  "}</Text>
      </Box>
      <Box flexDirection="column" flexGrow={1} flexShrink={1}>
        {children}
      </Box>
    </Box>
  );
}

/** Columns left for a result's text after the gutter. */
export function resultColumns(columns: number): number {
  return Math.max(20, columns - 5);
}
