/**
 * Applying a list of edits (Edit's one, MultiEdit's several) to a file's content in memory, in order, all
 * or nothing. Matching happens in LF space; the result is spliced into the original text so untouched lines
 * keep their own line endings and inserted lines get the file's dominant one.
 */
import { dominantLineEnding, normalizeToLf, spliceOriginal, toLfView, type LineEnding } from "../files/lineEndings.js";
import type { ChangedRange } from "../files/patch.js";
import { diagnoseNoMatch, formatAmbiguousMessage, formatNoMatchMessage } from "./diagnose.js";
import { lineNumbersAt, utf8BytesSource } from "../files/textSource.js";
import { applyReplacements, findReplacements, MAX_REPORTED_LINES, type MatchStrategy, type Replacement } from "./match.js";

export interface EditSpec {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

export interface AppliedEdit {
  /** How old_string was found; "create" for an empty old_string that created the file. */
  strategy: MatchStrategy | "create";
  occurrences: number;
  /** indentation_shift only: how the file's indentation differed. */
  shift?: string;
}

export interface EditFailure {
  ok: false;
  /** 0-based index of the edit that failed. */
  index: number;
  code: "no_match" | "ambiguous";
  message: string;
}

export interface TextEditSuccess {
  ok: true;
  /** The new content with the file's line endings. */
  text: string;
  oldLf: string;
  newLf: string;
  applied: AppliedEdit[];
  /** Changed spans in LF coordinates (one per replacement for a single edit, one overall span for several). */
  ranges: ChangedRange[];
}

/** Changed spans of ascending replacements, in old and new coordinates. */
export function rangesOf(replacements: readonly Replacement[]): ChangedRange[] {
  let delta = 0;
  return replacements.map((r) => {
    const range = { oldStart: r.start, oldEnd: r.end, newStart: r.start + delta, newEnd: r.start + delta + r.text.length };
    delta += r.text.length - (r.end - r.start);
    return range;
  });
}

export function applyEditsToText(original: string, edits: readonly EditSpec[], shownPath: string): TextEditSuccess | EditFailure {
  const first = toLfView(original);
  const lineEnding = dominantLineEnding(first);
  let view = first;
  let lf = first.lf;
  let prefix = Number.POSITIVE_INFINITY;
  let suffix = Number.POSITIVE_INFINITY;
  let ranges: ChangedRange[] = [];
  const applied: AppliedEdit[] = [];

  for (const [index, edit] of edits.entries()) {
    const oldString = normalizeToLf(edit.old_string);
    const newString = normalizeToLf(edit.new_string);
    const outcome = findReplacements(lf, oldString, newString, edit.replace_all ?? false);
    if (outcome.kind === "ambiguous") return { ok: false, index, code: "ambiguous", message: formatAmbiguousMessage(shownPath, outcome) };
    if (outcome.kind === "not_found") {
      return { ok: false, index, code: "no_match", message: formatNoMatchMessage(shownPath, diagnoseNoMatch(lf, oldString, newString)) };
    }
    const reps = outcome.replacements;
    prefix = Math.min(prefix, reps[0].start);
    suffix = Math.min(suffix, lf.length - reps[reps.length - 1].end);
    if (edits.length === 1) ranges = rangesOf(reps);
    applied.push(outcome.shift === undefined ? { strategy: outcome.strategy, occurrences: reps.length } : { strategy: outcome.strategy, occurrences: reps.length, shift: outcome.shift });
    const nextOriginal = spliceOriginal(view, reps, lineEnding);
    lf = applyReplacements(lf, reps);
    view = toLfView(nextOriginal);
  }
  if (edits.length > 1) ranges = [{ oldStart: prefix, oldEnd: first.lf.length - suffix, newStart: prefix, newEnd: lf.length - suffix }];
  return { ok: true, text: view.original, oldLf: first.lf, newLf: lf, applied, ranges };
}

export interface ByteEditSuccess {
  ok: true;
  bytes: Buffer;
  applied: AppliedEdit[];
  /** Changed spans in byte positions. */
  ranges: ChangedRange[];
}

function findAllBytes(haystack: Buffer, needle: Buffer, from: number): number[] {
  const positions: number[] = [];
  for (let i = haystack.indexOf(needle, from); i !== -1; i = haystack.indexOf(needle, i + needle.length)) positions.push(i);
  return positions;
}

function dominantEndingOfBytes(bytes: Buffer): LineEnding {
  let crlf = 0;
  let lf = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) {
    if (i > 0 && bytes[i - 1] === 0x0d) crlf++;
    else lf++;
  }
  return crlf > lf ? "CRLF" : "LF";
}

/** Byte-level deletion rule, as absorbLineBreak in match.ts: removing whole lines removes their line break. */
function absorbLineBreakBytes(bytes: Buffer, start: number, end: number, bodyStart: number): [number, number] {
  const atLineStart = start === bodyStart || bytes[start - 1] === 0x0a;
  if (!atLineStart) return [start, end];
  if (bytes[end] === 0x0a) return [start, end + 1];
  if (bytes[end] === 0x0d && bytes[end + 1] === 0x0a) return [start, end + 2];
  if (end === bytes.length && start > bodyStart) return [bytes[start - 2] === 0x0d ? start - 2 : start - 1, end];
  return [start, end];
}

export interface ByteEditOptions {
  /**
   * Used as a fast path before decoding: instead of refusing, give up whenever only the decoded text can
   * decide (no exact match, which a looser strategy might fix; line breaks in old_string in a file with CRLF,
   * whose exact LF-space matches the bytes cannot all show). Otherwise the file is too large to decode and
   * `sizeNote` explains why matching is exact only.
   */
  fallback?: boolean;
  sizeNote?: string;
}

/** The byte path cannot decide; the caller decodes the file and uses the full cascade. */
export interface NeedsText {
  ok: false;
  needsText: true;
}

/**
 * Exact matching on the raw bytes of a UTF-8 file, never decoded as a whole: old_string is searched as
 * written and, without `fallback`, also with CRLF line breaks. Used for files too large to decode (exact
 * matching only; the error says so) and, with `fallback`, as the fast path for the common exact edit of a
 * large file.
 */
export function applyEditsToUtf8Bytes(raw: Buffer, bomBytes: number, edits: readonly EditSpec[], shownPath: string, options: ByteEditOptions = {}): ByteEditSuccess | EditFailure | NeedsText {
  const needsText: NeedsText = { ok: false, needsText: true };
  let bytes = raw;
  let fileEnding: LineEnding | undefined;
  const hasCrlf = raw.includes("\r\n");
  const applied: AppliedEdit[] = [];
  let ranges: ChangedRange[] = [];
  let prefix = Number.POSITIVE_INFINITY;
  let suffix = Number.POSITIVE_INFINITY;
  for (const [index, edit] of edits.entries()) {
    const oldLf = normalizeToLf(edit.old_string);
    const newLf = normalizeToLf(edit.new_string);
    const multiline = oldLf.includes("\n");
    if (options.fallback && (oldLf.includes("\r") || (multiline && hasCrlf))) return needsText;
    const variants: Array<{ needle: Buffer; ending: LineEnding | undefined }> = [{ needle: Buffer.from(oldLf, "utf8"), ending: multiline ? "LF" : undefined }];
    if (multiline && !options.fallback) variants.push({ needle: Buffer.from(oldLf.replaceAll("\n", "\r\n"), "utf8"), ending: "CRLF" });
    let positions: number[] = [];
    let chosen = variants[0];
    for (const variant of variants) {
      positions = findAllBytes(bytes, variant.needle, bomBytes);
      chosen = variant;
      if (positions.length) break;
    }
    if (positions.length === 0) {
      if (options.fallback) return needsText;
      return {
        ok: false,
        index,
        code: "no_match",
        message: formatNoMatchMessage(shownPath, {}, { exactOnly: `${options.sizeNote ?? ""} Only exact matching is available at this size (no quote, whitespace or indentation tolerance), and old_string does not occur exactly. Use Grep with -n to find the exact text, Read that window, and copy it precisely.`.trim() }),
      };
    }
    if (positions.length > 1 && !edit.replace_all) {
      const lines = lineNumbersAt(utf8BytesSource(bytes, bomBytes), positions.slice(0, MAX_REPORTED_LINES));
      return { ok: false, index, code: "ambiguous", message: formatAmbiguousMessage(shownPath, { kind: "ambiguous", strategy: "exact", count: positions.length, lines }) };
    }
    const ending = chosen.ending ?? (newLf.includes("\n") && hasCrlf ? (fileEnding ??= dominantEndingOfBytes(raw)) : "LF");
    const insert = Buffer.from(ending === "CRLF" ? newLf.replaceAll("\n", "\r\n") : newLf, "utf8");
    const parts: Buffer[] = [];
    const editRanges: ChangedRange[] = [];
    let cursor = 0;
    let delta = 0;
    for (const position of positions) {
      let [start, end] = [position, position + chosen.needle.length];
      if (insert.length === 0 && !oldLf.endsWith("\n")) [start, end] = absorbLineBreakBytes(bytes, start, end, bomBytes);
      parts.push(bytes.subarray(cursor, start), insert);
      editRanges.push({ oldStart: start, oldEnd: end, newStart: start + delta, newEnd: start + delta + insert.length });
      delta += insert.length - (end - start);
      cursor = end;
    }
    parts.push(bytes.subarray(cursor));
    prefix = Math.min(prefix, editRanges[0].oldStart);
    suffix = Math.min(suffix, bytes.length - editRanges[editRanges.length - 1].oldEnd);
    if (edits.length === 1) ranges = editRanges;
    bytes = Buffer.concat(parts);
    applied.push({ strategy: "exact", occurrences: positions.length });
  }
  if (edits.length > 1) ranges = [{ oldStart: prefix, oldEnd: raw.length - suffix, newStart: prefix, newEnd: bytes.length - suffix }];
  return { ok: true, bytes, applied, ranges };
}

