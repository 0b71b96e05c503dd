import { createHash } from "node:crypto";
import { readFull, type ReadSource } from "./source.js";
import { AbortError } from "../../core/errors.js";
import { bomLength, codeUnitBytes, lineDecoder, type TextEncoding } from "../shared/encoding.js";
import { truncatedLineMarker } from "../shared/readFormat.js";

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

  const finishLine = () => {
    if (collecting()) {
      let text = decode(Buffer.concat(parts, collected));
      const complete = lineBytes === collected;
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
    }
    parts = [];
    collected = 0;
    lineBytes = 0;
  };

  const findNewline = (view: Buffer, from: number): number => {
    if (!newline) return view.indexOf(0x0a, from);
    for (let j = view.indexOf(newline, from); j !== -1; j = view.indexOf(newline, j + 1)) if (j % 2 === 0) return j;
    return -1;
  };

  /** A line starts at byte `at` of the chunk at `chunkStart`: the first such line of each chunk is a checkpoint. */
  const lineStarts = (chunkStart: number, at: number) => {
    if (checkpointedAt === chunkStart) return;
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

  // Two buffers: the next chunk is read while this one is scanned.
  const buffers = [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)];
  const fromStart = resume === undefined;
  const startByte = resume?.byte ?? 0;
  if (fromStart) checkpoints.push({ line: 1, byte: bomLength(encoding) });
  let pending: Promise<number> | undefined = options.index && offset > options.index.totalLines ? undefined : readFull(handle, buffers[0], startByte);
  let stoppedEarly = false;
  for (let position = startByte, turn = 0; pending; turn ^= 1) {
    if (signal?.aborted) {
      await pending;
      throw new AbortError("Read was cancelled.");
    }
    const n = await pending;
    pending = undefined;
    const view = buffers[turn].subarray(0, n);
    if (position === 0 && n < chunkBytes && n <= (options.keepWholeFileBytes ?? 0)) wholeFile = Buffer.from(view);
    if (n === 0) break;
    if (n === chunkBytes) pending = readFull(handle, buffers[turn ^ 1], position + n);
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
      const j = findNewline(view, i);
      const segmentEnd = j === -1 ? n : j;
      if (segmentEnd > i) {
        lineHasBytes = true;
        if (collected < lineByteCap) {
          const take = Math.min(segmentEnd - i, lineByteCap - collected);
          parts.push(Buffer.from(view.subarray(i, i + take)));
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
