export type LineEnding = "LF" | "CRLF";

/**
 * A text with every CRLF turned into LF, plus where the CRs were, so positions found in the LF text map
 * back to the original exactly. Edits match in LF space (what Read shows) and splice into the original,
 * so lines the edit does not touch keep their own endings, even in a file that mixes CRLF and LF.
 */
export interface LfView {
  readonly original: string;
  readonly lf: string;
  /** Ascending LF-space indices of the "\n"s that were "\r\n" in the original. */
  readonly crlfAt: readonly number[];
  /** Number of "\n" not preceded by "\r" (only counted when there are CRLFs at all). */
  readonly loneLfs: number;
}

export function toLfView(original: string): LfView {
  const crlfAt: number[] = [];
  if (original.indexOf("\r\n") === -1) return { original, lf: original, crlfAt, loneLfs: 0 };
  let loneLfs = 0;
  for (let i = original.indexOf("\n"); i !== -1; i = original.indexOf("\n", i + 1)) {
    if (i > 0 && original.charCodeAt(i - 1) === 13) crlfAt.push(i - crlfAt.length - 1);
    else loneLfs++;
  }
  return { original, lf: original.replaceAll("\r\n", "\n"), crlfAt, loneLfs };
}

/** How many CRs were removed before LF-space index `i` (binary search). */
function crsBefore(view: LfView, i: number): number {
  let lo = 0;
  let hi = view.crlfAt.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (view.crlfAt[mid] < i) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The original index of LF-space index `i`. A range [s, e) maps to [toOriginalIndex(s), toOriginalIndex(e)):
 * a range that ends with a "\n" that was CRLF takes its CR along; one that stops before it leaves it.
 */
export function toOriginalIndex(view: LfView, i: number): number {
  return i + crsBefore(view, i);
}

/** The ending new lines get: CRLF when most lines end with CRLF, else LF. */
export function dominantLineEnding(view: LfView): LineEnding {
  return view.crlfAt.length > view.loneLfs ? "CRLF" : "LF";
}

export function normalizeToLf(text: string): string {
  return text.indexOf("\r\n") === -1 ? text : text.replaceAll("\r\n", "\n");
}

export function withLineEnding(lfText: string, ending: LineEnding): string {
  return ending === "CRLF" ? lfText.replaceAll("\n", "\r\n") : lfText;
}

/** Replace LF-space ranges of the view's original text, inserting each text with `ending`. Ranges ascend and do not overlap. */
export function spliceOriginal(
  view: LfView,
  replacements: ReadonlyArray<{ start: number; end: number; text: string }>,
  ending: LineEnding,
): string {
  // String concatenation builds a rope; nothing is copied until the result is encoded once.
  let out = "";
  let cursor = 0;
  for (const r of replacements) {
    const start = toOriginalIndex(view, r.start);
    out += view.original.slice(cursor, start) + withLineEnding(r.text, ending);
    cursor = toOriginalIndex(view, r.end);
  }
  return out + view.original.slice(cursor);
}
