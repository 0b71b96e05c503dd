import fs from "node:fs";
import fsp from "node:fs/promises";

/** The part of a FileHandle that Read uses; small files are served from memory behind the same shape. */
export interface ReadSource {
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
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

/** Open a file for Read: small regular files come back in memory, everything else as a streaming handle. */
export async function openReadSource(absPath: string): Promise<ReadSource> {
  const fd = fs.openSync(absPath, READ_FLAGS);
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isFile() && stat.size <= IN_MEMORY_READ_MAX_BYTES) return memorySource(fs.readFileSync(fd), stat);
  } finally {
    fs.closeSync(fd);
  }
  return fsp.open(absPath, READ_FLAGS);
}
