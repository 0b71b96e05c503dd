import { structuredPatch, type StructuredPatchHunk } from "diff";
import { backLines, countNewlines, forwardLines, stringSource, type TextSource } from "./textSource.js";

export type { StructuredPatchHunk };

const PATCH_CONTEXT_LINES = 3;

/** A changed span: [oldStart, oldEnd) of the old text became [newStart, newEnd) of the new one. */
export interface ChangedRange {
  oldStart: number;
  oldEnd: number;
  newStart: number;
  newEnd: number;
}

interface Window {
  oldFrom: number;
  oldTo: number;
  newFrom: number;
  newTo: number;
}

/**
 * Unified-diff hunks (the `diff` package's structuredPatch, 3 lines of context) for an edit, computed on
 * windows around the changed ranges instead of the whole file, so a one-line edit of a 100 MB file costs a
 * few lines of diffing. Line numbers are those of the whole file. Ranges ascend and do not overlap.
 */
export function buildStructuredPatch(
  oldText: string | TextSource,
  newText: string | TextSource,
  ranges: readonly ChangedRange[],
  context = PATCH_CONTEXT_LINES,
): StructuredPatchHunk[] {
  if (ranges.length === 0) return [];
  const before = typeof oldText === "string" ? stringSource(oldText) : oldText;
  const after = typeof newText === "string" ? stringSource(newText) : newText;
  // One spare line each side, so a window edge never falls inside the diff's own context.
  const margin = context + 1;
  const windows: Window[] = [];
  for (const r of ranges) {
    const oldFrom = backLines(before, r.oldStart, margin);
    const oldTo = forwardLines(before, r.oldEnd, margin);
    const w = { oldFrom, oldTo, newFrom: r.newStart - (r.oldStart - oldFrom), newTo: r.newEnd + (oldTo - r.oldEnd) };
    const last = windows[windows.length - 1];
    if (last && w.oldFrom <= last.oldTo) {
      last.oldTo = w.oldTo;
      last.newTo = w.newTo;
    } else {
      windows.push(w);
    }
  }

  const hunks: StructuredPatchHunk[] = [];
  let oldLine = 0;
  let newLine = 0;
  let oldPos = before.start;
  let newPos = after.start;
  for (const w of windows) {
    oldLine += countNewlines(before, oldPos, w.oldFrom);
    newLine += countNewlines(after, newPos, w.newFrom);
    oldPos = w.oldFrom;
    newPos = w.newFrom;
    const patch = structuredPatch("", "", before.slice(w.oldFrom, w.oldTo), after.slice(w.newFrom, w.newTo), "", "", { context });
    for (const h of patch.hunks) hunks.push({ ...h, oldStart: h.oldStart + oldLine, newStart: h.newStart + newLine });
  }
  return hunks;
}

/** The one span that differs between two texts: everything between their common prefix and common suffix. */
export function diffRange(oldText: string, newText: string): ChangedRange[] {
  if (oldText === newText) return [];
  const max = Math.min(oldText.length, newText.length);
  let prefix = 0;
  while (prefix < max && oldText.charCodeAt(prefix) === newText.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (suffix < max - prefix && oldText.charCodeAt(oldText.length - 1 - suffix) === newText.charCodeAt(newText.length - 1 - suffix)) {
    suffix++;
  }
  return [{ oldStart: prefix, oldEnd: oldText.length - suffix, newStart: prefix, newEnd: newText.length - suffix }];
}
