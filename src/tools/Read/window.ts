import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { AbortError } from "../../core/errors.js";
import { bomLength, codeUnitBytes, lineDecoder, type TextEncoding } from "../shared/encoding.js";
import { truncatedLineMarker } from "../shared/readFormat.js";

/** Bytes read per step; memory stays at one chunk plus the lines shown, whatever the file's size. */
export const READ_CHUNK_BYTES = 1024 * 1024;

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
}

export interface LineWindow {
  /** The lines shown, without line breaks, long ones cut with a marker. */
  lines: string[];
  startLine: number;
  /** Lines in the whole file (a final line without a line break counts). */
  totalLines: number;
  truncatedLines: number;
  /** The window ended early because of maxOutputChars. */
  stoppedAtOutputCap: boolean;
  contentHash?: string;
  /** The file's bytes, when the whole file fit in the first chunk (so small files need no second read). */
  wholeFile?: Buffer;
}

async function readFull(handle: FileHandle, buffer: Buffer, position: number): Promise<number> {
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
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
export async function readLineWindow(handle: FileHandle, options: LineWindowOptions): Promise<LineWindow> {
  const { encoding, offset, limit, maxLineChars, maxOutputChars, signal } = options;
  const unit = codeUnitBytes(encoding);
  const newline = encoding === "utf16le" ? Buffer.from([0x0a, 0x00]) : encoding === "utf16be" ? Buffer.from([0x00, 0x0a]) : undefined;
  const chunkBytes = Math.max(2, (options.chunkBytes ?? READ_CHUNK_BYTES) & ~1);
  const chunk = Buffer.allocUnsafe(chunkBytes);
  const hasher = options.hash ? createHash("sha256") : undefined;
  const decode = lineDecoder(encoding);
  const lineByteCap = maxLineChars * 4 + 4;
  const end = offset + limit;

  const lines: string[] = [];
  let outputChars = 0;
  let truncatedLines = 0;
  let stoppedAtOutputCap = false;
  let windowDone = limit <= 0;
  let wholeFile: Buffer | undefined;

  let line = 1;
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

  for (let position = 0; ; ) {
    if (signal?.aborted) throw new AbortError("Read was cancelled.");
    const n = await readFull(handle, chunk, position);
    const view = chunk.subarray(0, n);
    if (position === 0 && n < chunk.length) wholeFile = Buffer.from(view);
    if (n === 0) break;
    hasher?.update(view);
    let i = position === 0 ? Math.min(bomLength(encoding), n) : 0;
    while (i < n) {
      const j = findNewline(view, i);
      const segmentEnd = j === -1 ? n : j;
      if (segmentEnd > i) {
        lineHasBytes = true;
        if (collecting() && collected < lineByteCap) {
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
    }
    position += n;
    if (n < chunk.length) break;
  }
  if (lineHasBytes) finishLine();
  const totalLines = lineHasBytes ? line : line - 1;
  return {
    lines,
    startLine: offset,
    totalLines,
    truncatedLines,
    stoppedAtOutputCap,
    contentHash: hasher?.digest("hex"),
    wholeFile,
  };
}
