import fs from "node:fs";
import { openVerifiedFile } from "../../util/verifiedPath.js";

/** The part of a FileHandle that Read uses; small files are served from memory behind the same shape. */
export interface ReadSource {
  /** The file's size when it was opened, if known: reads stop there instead of asking for more to find the end. */
  readonly size?: number;
  /** The whole file, when it was read into memory at open: scanned in place, with no copy into read buffers. */
  readonly bytes?: Buffer;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  readFile(): Promise<Buffer>;
  stat(): Promise<fs.Stats>;
  close(): Promise<void>;
}

/**
 * Files up to this size are read with one synchronous call. Each asynchronous fs call costs a thread-pool
 * round trip (tens of µs here, more under load); a Read made about a dozen of them, which dominated small reads.
 */
const IN_MEMORY_READ_MAX_BYTES = 1024 * 1024;

const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK;

function memorySource(bytes: Buffer, stat: fs.Stats): ReadSource {
  return {
    size: bytes.length,
    bytes,
    async read(buffer, offset, length, position) {
      if (position >= bytes.length) return { bytesRead: 0 };
      return { bytesRead: bytes.copy(buffer, offset, position, Math.min(bytes.length, position + length)) };
    },
    readFile: async () => bytes,
    stat: async () => stat,
    close: async () => undefined,
  };
}

/** Fill `buffer` from `position` on, stopping early only at the end of the file; returns the bytes read. */
export async function readFull(handle: ReadSource, buffer: Buffer, position: number): Promise<number> {
  const wanted = handle.size === undefined ? buffer.length : Math.max(0, Math.min(buffer.length, handle.size - position));
  let filled = 0;
  while (filled < wanted) {
    const { bytesRead } = await handle.read(buffer, filled, wanted - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

/** Reads up to this size are made synchronously: less than a thread-pool round trip, and they block only briefly. */
const SYNC_READ_MAX_BYTES = 64 * 1024;

/**
 * Larger files are read through the descriptor opened to stat them, with positioned reads: opening again and
 * an asynchronous stat and close cost three more round trips per Read. Big chunks go to the thread pool, so
 * the next one is read while this one is scanned.
 */
function descriptorSource(fd: number, stat: fs.Stats): ReadSource {
  return {
    size: stat.isFile() ? stat.size : undefined,
    read: (buffer, offset, length, position) =>
      length <= SYNC_READ_MAX_BYTES
        ? new Promise((resolve) => resolve({ bytesRead: fs.readSync(fd, buffer, offset, length, position) }))
        : new Promise((resolve, reject) => fs.read(fd, buffer, offset, length, position, (err, bytesRead) => (err ? reject(err) : resolve({ bytesRead })))),
    // Nothing has moved the descriptor's own position (all reads are positioned), so this reads from the start.
    readFile: () => new Promise((resolve, reject) => fs.readFile(fd, (err, bytes) => (err ? reject(err) : resolve(bytes)))),
    stat: async () => stat,
    close: async () => fs.closeSync(fd),
  };
}

/**
 * Open a file for Read: small regular files come back in memory, everything else as a streaming source.
 * `realPath` is the real path the permission check judged; the descriptor is verified to be that file (and,
 * with `identity`, the very file the check saw), else PathChangedError and nothing is read.
 */
export async function openReadSource(realPath: string, identity?: string): Promise<ReadSource> {
  const fd = openVerifiedFile(realPath, READ_FLAGS, identity);
  let keepOpen = false;
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isFile() && stat.size <= IN_MEMORY_READ_MAX_BYTES) return memorySource(fs.readFileSync(fd), stat);
    keepOpen = true;
    return descriptorSource(fd, stat);
  } finally {
    if (!keepOpen) fs.closeSync(fd);
  }
}
