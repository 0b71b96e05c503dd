import { createHash } from "node:crypto";
import { readFull, type ReadSource } from "./source.js";
import { AbortError } from "../../core/errors.js";
import { bomLength, codeUnitBytes, lineDecoder, newlineSplitsDecodedText, type TextEncoding } from "../files/encoding.js";
import { truncatedLineMarker } from "../files/readFormat.js";

/** Bytes read per step; memory stays at two chunks plus the lines shown, whatever the file's size. */
export const READ_CHUNK_BYTES = 4 * 1024 * 1024;

export interface LineWindowOptions {
  encoding: TextEncoding;
  /** 1-based first line to show. */
  offset: number;
  limit: number;
  maxLineChars: number;
  /** Stop adding lines once the shown text would exceed this (at least one line is always shown). */
  maxOutputChars: number;
  /** Hash the whole file's bytes (sha256) while passing through it. */
  hash: boolean;
  signal?: AbortSignal;
  chunkBytes?: number;
  /** Return the file's bytes as `wholeFile` when the file is at most this large (default 0: never). */
  keepWholeFileBytes?: number;
  /**
   * An index built by an earlier full pass over this same version of the file: reading starts at the last
   * checkpoint before the window and stops after it, and the total comes from the index (no hashing).
   */
  index?: LineIndex;
}

/** Where lines start in a file (one checkpoint per chunk), its line count and hash: enough to jump to any window. */
export interface LineIndex {
  totalLines: number;
  contentHash?: string;
  /** Ascending; `byte` is where line `line` starts. */
  checkpoints: Array<{ line: number; byte: number }>;
}

export interface LineWindow {
  /** The lines shown, without line breaks, long ones cut with a marker. */
  lines: string[];
  /** Lines in the whole file (a final line without a line break counts). */
  totalLines: number;
  truncatedLines: number;
  /** The window ended early because of maxOutputChars. */
  stoppedAtOutputCap: boolean;
  contentHash?: string;
  /** The file's bytes, when it is no larger than keepWholeFileBytes (so small files need no second read). */
  wholeFile?: Buffer;
  /** Built when the pass read the whole file from its start. */
  index?: LineIndex;
}

/** Cut to `max` UTF-16 units without splitting a surrogate pair. */
function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * Stream a file once, front to back, keeping only the lines of the window: lines are split on newline bytes
 * (0x0A, or the aligned 2-byte newline of UTF-16), each kept line holds at most a few KB before it is
 * decoded and cut, and every other line is only counted. Hashing happens in the same pass.
 */
export async function readLineWindow(handle: ReadSource, options: LineWindowOptions): Promise<LineWindow> {
  const { encoding, offset, limit, maxLineChars, maxOutputChars, signal } = options;
  const unit = codeUnitBytes(encoding);
  const newline = encoding === "utf16le" ? Buffer.from([0x0a, 0x00]) : encoding === "utf16be" ? Buffer.from([0x00, 0x0a]) : undefined;
  const chunkBytes = Math.max(2, (options.chunkBytes ?? READ_CHUNK_BYTES) & ~1);
  const hasher = options.hash && !options.index ? createHash("sha256") : undefined;
  const decode = lineDecoder(encoding);
  const lineByteCap = maxLineChars * 4 + 4;
  const end = offset + limit;

  const resume = options.index ? [...options.index.checkpoints].reverse().find((c) => c.line <= offset) : undefined;
  const checkpoints: LineIndex["checkpoints"] = [];
  let checkpointedAt = -1;

  const lines: string[] = [];
  let outputChars = 0;
  let truncatedLines = 0;
  let stoppedAtOutputCap = false;
  let windowDone = limit <= 0;
  let wholeFile: Buffer | undefined;

  let line = resume?.line ?? 1;
  let lineHasBytes = false;
  let parts: Buffer[] = [];
  let collected = 0;
  let lineBytes = 0;

  const collecting = () => !windowDone && line >= offset && line < end;

  /** Add the current line's text (decoded from its first bytes, `complete` when that is all of them) to the window. */
  const keepLine = (decoded: string, complete: boolean) => {
    let text = decoded;
    if (complete && text.endsWith("\r")) text = text.slice(0, -1);
    if (!complete || text.length > maxLineChars) {
      text = cutChars(text, maxLineChars) + truncatedLineMarker(lineBytes);
      truncatedLines++;
    }
    const cost = text.length + String(line).length + 2;
    if (lines.length > 0 && outputChars + cost > maxOutputChars) {
      windowDone = true;
      stoppedAtOutputCap = true;
    } else {
      lines.push(text);
      outputChars += cost;
      if (line + 1 >= end) windowDone = true;
    }
  };

  const finishLine = () => {
    if (collecting()) keepLine(decode(Buffer.concat(parts, collected)), lineBytes === collected);
    parts = [];
    collected = 0;
    lineBytes = 0;
  };

  const bulk = newlineSplitsDecodedText(encoding);
  /** At most this many bytes are decoded at once: more than a full window can show. */
  const bulkBytes = maxOutputChars * 4 + lineByteCap;

  /**
   * The lines that start at `from` and end inside this chunk, decoded in one call and split at "\n":
   * finding each line with Buffer#indexOf, copying and decoding it alone cost several µs per line until
   * optimised, which dominated a first read of a few thousand short lines. Returns where it stopped, or -1
   * to leave the chunk to the line-by-line path (no line ends in reach, or a line too long to show whole,
   * whose byte length the marker needs).
   */
  const keepWholeLines = (view: Buffer, from: number, chunkStart: number): number => {
    // Sized by the lines still wanted (at ~128 bytes each) so a short window does not decode a whole chunk.
    const span = Math.min(bulkBytes, Math.max(4096, (end - line) * 128));
    const lastEnd = lastNewlineBefore(view, Math.min(view.length, from + span));
    if (lastEnd < from) return -1;
    const texts = decode(view.subarray(from, lastEnd)).split("\n");
    if (texts.some((text) => text.length > maxLineChars)) return -1;
    lineStarts(chunkStart, from);
    for (const text of texts) {
      if (collecting()) keepLine(text, true);
      line++;
    }
    lineBytes = 0;
    lineHasBytes = false;
    return lastEnd + unit;
  };

  /** Start of the last newline that ends at or before `limit`, or -1. */
  const lastNewlineBefore = (view: Buffer, limit: number): number => {
    if (!newline) return limit > 0 ? view.lastIndexOf(0x0a, limit - 1) : -1;
    for (let j = view.lastIndexOf(newline, limit - 2); j !== -1; j = j > 0 ? view.lastIndexOf(newline, j - 1) : -1) if (j % 2 === 0) return j;
    return -1;
  };

  const findNewline = (view: Buffer, from: number): number => {
    if (!newline) return view.indexOf(0x0a, from);
    for (let j = view.indexOf(newline, from); j !== -1; j = view.indexOf(newline, j + 1)) if (j % 2 === 0) return j;
    return -1;
  };

  /** A line starts at byte `at` of the chunk at `chunkStart`: the first such line of each chunk is a checkpoint. */
  const lineStarts = (chunkStart: number, at: number) => {
    if (checkpointedAt === chunkStart || checkpoints[checkpoints.length - 1]?.byte === chunkStart + at) return;
    checkpointedAt = chunkStart;
    checkpoints.push({ line, byte: chunkStart + at });
  };

  /** Lines outside the window are only counted: a tight loop over the newlines, until the window starts. */
  const skipLines = (view: Buffer, from: number, chunkStart: number): number => {
    const stopAt = windowDone ? Number.POSITIVE_INFINITY : offset;
    let i = from;
    for (let j = findNewline(view, i); j !== -1; j = findNewline(view, i)) {
      line++;
      lineHasBytes = false;
      lineBytes = 0;
      i = j + unit;
      lineStarts(chunkStart, i);
      if (line >= stopAt) return i;
    }
    if (i < view.length) lineHasBytes = true;
    return view.length;
  };

  // A file already in memory is one chunk, scanned in place: no read buffers and no copies.
  const inMemory = handle.bytes;
  // Two buffers: the next chunk is read while this one is scanned. The second is made only when a next chunk
  // exists: a 4 MiB allocation took milliseconds on a first read.
  const buffers = inMemory ? [] : [Buffer.allocUnsafe(chunkBytes)];
  const fromStart = resume === undefined;
  const startByte = resume?.byte ?? 0;
  if (fromStart) checkpoints.push({ line: 1, byte: bomLength(encoding) });
  const skipAll = options.index && offset > options.index.totalLines;
  let pending: Promise<number> | undefined = skipAll
    ? undefined
    : inMemory
      ? Promise.resolve(Math.max(0, inMemory.length - startByte))
      : readFull(handle, buffers[0], startByte);
  let stoppedEarly = false;
  for (let position = startByte, turn = 0; pending; turn ^= 1) {
    if (signal?.aborted) {
      await pending;
      throw new AbortError("Read was cancelled.");
    }
    const n = await pending;
    pending = undefined;
    const view = inMemory ? inMemory.subarray(startByte, startByte + n) : buffers[turn].subarray(0, n);
    if (position === 0 && (inMemory !== undefined || n < chunkBytes) && n <= (options.keepWholeFileBytes ?? 0)) wholeFile = inMemory ?? Buffer.from(view);
    if (n === 0) break;
    if (!inMemory && n === chunkBytes) pending = readFull(handle, (buffers[turn ^ 1] ??= Buffer.allocUnsafe(chunkBytes)), position + n);
    hasher?.update(view);
    let i = position === 0 ? Math.min(bomLength(encoding), n) : 0;
    while (i < n) {
      if (!collecting()) {
        if (windowDone && !fromStart) {
          stoppedEarly = true;
          break;
        }
        i = skipLines(view, i, position);
        continue;
      }
      if (bulk && collected === 0 && lineBytes === 0) {
        const next = keepWholeLines(view, i, position);
        if (next !== -1) {
          i = next;
          continue;
        }
      }
      const j = findNewline(view, i);
      const segmentEnd = j === -1 ? n : j;
      if (segmentEnd > i) {
        lineHasBytes = true;
        if (collected < lineByteCap) {
          const take = Math.min(segmentEnd - i, lineByteCap - collected);
          // A reused read buffer is overwritten by the next chunk; bytes in memory stay.
          parts.push(inMemory ? view.subarray(i, i + take) : Buffer.from(view.subarray(i, i + take)));
          collected += take;
        }
        lineBytes += segmentEnd - i;
      }
      if (j === -1) break;
      finishLine();
      line++;
      lineHasBytes = false;
      i = j + unit;
      lineStarts(position, i);
    }
    position += n;
    if (stoppedEarly) {
      if (pending) await pending;
      break;
    }
  }
  if (options.index) {
    if (!stoppedEarly && lineHasBytes) finishLine();
    return { lines, totalLines: options.index.totalLines, truncatedLines, stoppedAtOutputCap, contentHash: options.index.contentHash };
  }
  if (lineHasBytes) finishLine();
  const totalLines = lineHasBytes ? line : line - 1;
  const contentHash = hasher?.digest("hex");
  return {
    lines,
    totalLines,
    truncatedLines,
    stoppedAtOutputCap,
    contentHash,
    wholeFile,
    index: { totalLines, contentHash, checkpoints },
  };
}
