import { AbortError } from "../../core/errors.js";
import { bomLength, codeUnitBytes, type TextEncoding } from "../files/encoding.js";
import { readFull, type ReadSource } from "./source.js";

const FIRST_BLOCK_BYTES = 64 * 1024;
const MAX_BLOCK_BYTES = 4 * 1024 * 1024;

/** Where a line counted from the end of a file starts, found without reading the file from its start. */
export interface LineFromEnd {
  /** Byte where the line starts. */
  byte: number;
  /** Lines from that line to the end of the file, itself included: `back`, or fewer when the file is shorter. */
  linesToEnd: number;
  /** The file's line count, when the scan reached its start (so it counted every line). */
  totalLines?: number;
}

/**
 * Find the start of the line `back` lines before the end (back = 1: the last line) by reading the file
 * backward in growing blocks and counting newlines, so the cost depends on how far back, not on the
 * file's size. A final newline ends the last line rather than starting an empty one, as in a forward count.
 */
export async function findLineFromEnd(
  handle: ReadSource,
  size: number,
  encoding: TextEncoding,
  back: number,
  signal?: AbortSignal,
  firstBlockBytes = FIRST_BLOCK_BYTES,
): Promise<LineFromEnd> {
  const unit = codeUnitBytes(encoding);
  const start = Math.min(bomLength(encoding), size);
  // UTF-16 newlines sit at even positions; an odd trailing byte is not part of any code unit.
  let end = unit === 2 ? size & ~1 : size;
  if (end <= start) return { byte: start, linesToEnd: 0, totalLines: 0 };


  let found = 0;
  // Even block sizes keep every block's start aligned to UTF-16 code units (start and end are even there).
  let blockBytes = Math.max(2, firstBlockBytes & ~1);
  let buffer = Buffer.allocUnsafe(Math.min(blockBytes, end - start));
  for (let pos = end; pos > start; ) {
    if (signal?.aborted) throw new AbortError("Read was cancelled.");
    const from = Math.max(start, pos - blockBytes);
    if (buffer.length < pos - from) buffer = Buffer.allocUnsafe(pos - from);
    const block = buffer.subarray(0, await readFull(handle, buffer.subarray(0, pos - from), from));
    let i = lastNewline(block, block.length, from, encoding);
    // The newline that ends the last line does not start another one.
    if (pos === end && i !== -1 && i === block.length - unit) i = lastNewline(block, i, from, encoding);
    for (; i !== -1; i = lastNewline(block, i, from, encoding)) {
      if (++found === back) return { byte: from + i + unit, linesToEnd: back };
    }
    pos = from;
    blockBytes = Math.min(MAX_BLOCK_BYTES, blockBytes * 2);
  }
  return { byte: start, linesToEnd: found + 1, totalLines: found + 1 };
}

/**
 * Index in `block` of the last newline that starts before `before`, or -1. `blockStart` is the block's file
 * position (for UTF-16 alignment). A plain loop over the bytes: Buffer#lastIndexOf costs several µs per call
 * until it is optimised, which made a first read of a 2000-line tail take tens of ms.
 */
function lastNewline(block: Buffer, before: number, blockStart: number, encoding: TextEncoding): number {
  if (encoding === "utf16le" || encoding === "utf16be") {
    const [first, second] = encoding === "utf16le" ? [0x0a, 0x00] : [0x00, 0x0a];
    const last = (blockStart + before - 1) % 2 === 0 ? before - 1 : before - 2;
    for (let i = last; i >= 0; i -= 2) {
      if (block[i] === first && block[i + 1] === second) return i;
    }
    return -1;
  }
  for (let i = before - 1; i >= 0; i--) if (block[i] === 0x0a) return i;
  return -1;
}
