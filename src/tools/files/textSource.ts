/**
 * A text addressed by position, with LF-normalized slices: a JS string, or the raw bytes of a large UTF-8
 * file that is never decoded as a whole. Diffs and snippets around an edit only look at a few lines of it.
 */
export interface TextSource {
  /** First position of the text (after a byte-order mark). */
  readonly start: number;
  readonly length: number;
  /** Position of the first "\n" at or after `from`, or -1. */
  indexOfNewline(from: number): number;
  /** Position of the last "\n" before `before`, or -1. */
  lastIndexOfNewline(before: number): number;
  /** The text in [from, to), CRLF turned into LF. */
  slice(from: number, to: number): string;
}

export function stringSource(text: string): TextSource {
  return {
    start: 0,
    length: text.length,
    indexOfNewline: (from) => text.indexOf("\n", from),
    lastIndexOfNewline: (before) => (before <= 0 ? -1 : text.lastIndexOf("\n", before - 1)),
    slice: (from, to) => text.slice(from, to).replaceAll("\r\n", "\n"),
  };
}

export function utf8BytesSource(bytes: Buffer, bomBytes: number): TextSource {
  return {
    start: bomBytes,
    length: bytes.length,
    indexOfNewline: (from) => bytes.indexOf(0x0a, from),
    lastIndexOfNewline: (before) => (before <= 0 ? -1 : bytes.lastIndexOf(0x0a, before - 1)),
    slice: (from, to) => bytes.toString("utf8", from, to).replaceAll("\r\n", "\n"),
  };
}

/** Number of "\n" in [from, to). */
export function countNewlines(source: TextSource, from: number, to: number): number {
  let n = 0;
  for (let i = source.indexOfNewline(from); i !== -1 && i < to; i = source.indexOfNewline(i + 1)) n++;
  return n;
}

/** The 1-based line of each position, for ascending positions, in one pass. */
export function lineNumbersAt(source: TextSource, positions: readonly number[]): number[] {
  let line = 1;
  let from = source.start;
  return positions.map((position) => {
    line += countNewlines(source, from, position);
    from = position;
    return line;
  });
}

/** Start of the line `lines` lines above the line holding `index`. */
export function backLines(source: TextSource, index: number, lines: number): number {
  let pos = index;
  for (let k = 0; k <= lines; k++) {
    const nl = source.lastIndexOfNewline(pos);
    if (nl === -1 || nl < source.start) return source.start;
    pos = nl;
  }
  return pos + 1;
}

/** Just past the `lines`-th "\n" at or after `index` (or the end). */
export function forwardLines(source: TextSource, index: number, lines: number): number {
  let pos = index;
  for (let k = 0; k < lines; k++) {
    const nl = source.indexOfNewline(pos);
    if (nl === -1) return source.length;
    pos = nl + 1;
  }
  return pos;
}
