import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { structuredPatch, type StructuredPatchHunk } from "diff";
import type { PreviewOptions, RenderOptions } from "../toolRenderer.js";
import { Diff, describeDiffStats, diffStats, isDiffTruncated } from "./Diff.js";
import { ToolRejected } from "./ToolMessages.js";
import { ResultGutter } from "./ToolUseLine.js";
import { linesOf } from "./format.js";

/** A write's result: what changed in words, then the diff. */
export function FileChangeResult({
  hunks,
  options,
  title,
  note,
}: {
  hunks: readonly StructuredPatchHunk[] | undefined;
  options: Pick<RenderOptions, "expanded">;
  /** Default: the added and removed line counts. */
  title?: string;
  /** Appended to the title, e.g. "(3 occurrences)". */
  note?: string;
}) {
  const patch = Array.isArray(hunks) ? hunks : [];
  return (
    <ResultGutter>
      <Text>
        {title ?? describeDiffStats(diffStats(patch))}
        {note ? <Text dimColor>{` ${note}`}</Text> : null}
      </Text>
      {patch.length > 0 ? <Diff hunks={patch} expanded={options.expanded} /> : null}
    </ResultGutter>
  );
}

export function isFileChangeTruncated(hunks: readonly StructuredPatchHunk[] | undefined): boolean {
  return isDiffTruncated(Array.isArray(hunks) ? hunks : []);
}

/** The change a refused edit proposed: old text → new text, without file line numbers (they are unknown). */
export function proposedHunks(oldText: string, newText: string): StructuredPatchHunk[] {
  try {
    return structuredPatch("a", "b", oldText.endsWith("\n") ? oldText : `${oldText}\n`, newText.endsWith("\n") ? newText : `${newText}\n`, "", "", { context: 3 }).hunks;
  } catch {
    return [];
  }
}

/** A whole text as one hunk of added lines, numbered from 1: what a write puts in the file. */
export function addedHunks(text: string): StructuredPatchHunk[] {
  const lines = linesOf(text);
  return lines.length ? [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: lines.length, lines: lines.map((line) => `+${line}`) }] : [];
}

/** A change before it is made (the permission dialog): what it is for, then its lines as a diff. */
export function ProposedChange({
  title,
  hunks,
  options,
  lineNumbers = false,
}: {
  title: ReactNode;
  hunks: readonly StructuredPatchHunk[];
  options: Pick<PreviewOptions, "expanded" | "maxLines">;
  /** On for a whole new text, whose lines are numbered from 1. */
  lineNumbers?: boolean;
}) {
  return (
    <Box flexDirection="column">
      {title}
      {hunks.length > 0 ? <Diff hunks={hunks} expanded={options.expanded} maxLines={options.maxLines} lineNumbers={lineNumbers} /> : null}
    </Box>
  );
}

/** A refused write: what it was for and the change it proposed. */
export function RejectedChange({ what, reason, hunks, options }: { what: string; reason?: string; hunks: readonly StructuredPatchHunk[]; options: Pick<RenderOptions, "expanded"> }) {
  return (
    <ToolRejected what={what} reason={reason}>
      {hunks.length > 0 ? <Diff hunks={hunks} expanded={options.expanded} lineNumbers={false} /> : null}
    </ToolRejected>
  );
}
