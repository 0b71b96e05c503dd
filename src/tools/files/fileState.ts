import fs from "node:fs";
import type { ToolUseContext } from "../../core/Tool.js";
import { hashContent, type FileState } from "../../core/fileStateCache.js";
import { formatBytes } from "./fileKind.js";

/** Files above this are not hashed by Read (and cannot be edited): their state is mtime and size only. */
export const MAX_HASHED_BYTES = 1024 ** 3;
/** Files up to this size are always compared by hash, so even a same-size change within the mtime granularity is caught. */
export const ALWAYS_HASH_BYTES = 16 * 1024 * 1024;

/**
 * Whether an unchanged mtime and size is taken to mean unchanged content without looking at the bytes:
 * only above ALWAYS_HASH_BYTES, where hashing would cost a full read. Staleness checks and Read's
 * "unchanged since last read" note share the rule.
 */
export function unchangedByStat(state: { mtimeMs: number; size: number }, stat: { mtimeMs: number; size: number }): boolean {
  return stat.mtimeMs === state.mtimeMs && stat.size === state.size && stat.size > ALWAYS_HASH_BYTES;
}

function realPathOf(absPath: string): string | undefined {
  try {
    // The libc realpath: one call, where the JS one lstats every component of the path.
    return fs.realpathSync.native(absPath);
  } catch {
    return undefined;
  }
}

/** What the session recorded for this path, under the path as written or its real path (a read through a symlink counts). */
export function lookupFileState(context: ToolUseContext, absPath: string): FileState | undefined {
  const direct = context.readFileState.get(absPath);
  if (direct) return direct;
  const real = realPathOf(absPath);
  return real && real !== absPath ? context.readFileState.get(real) : undefined;
}

/** Records the state under the path and its real path (`realPath` when the caller verified which file it read). */
export function recordFileState(context: ToolUseContext, absPath: string, state: FileState, realPath?: string): void {
  context.readFileState.set(absPath, state);
  const real = realPath ?? realPathOf(absPath);
  if (real && real !== absPath) context.readFileState.set(real, state);
}

export type Staleness =
  | { stale: false; /** mtime or size differed but the bytes are the same (a formatter's touch). */ touched: boolean }
  | { stale: true };

/**
 * Has the file changed since the session recorded `state`? Small files are always compared by content hash;
 * larger ones by mtime and size first, then by hash when those differ, so an mtime-only touch is not a change.
 * A file recorded without a hash (over 1 GiB) is stale as soon as its mtime or size moves.
 */
export function checkStaleness(state: FileState, stat: { mtimeMs: number; size: number }, readBytes: () => Buffer): Staleness {
  if (unchangedByStat(state, stat)) return { stale: false, touched: false };
  const sameStat = stat.mtimeMs === state.mtimeMs && stat.size === state.size;
  if (!state.contentHash) return sameStat ? { stale: false, touched: false } : { stale: true };
  if (stat.size !== state.size) return { stale: true };
  return hashContent(readBytes()) === state.contentHash ? { stale: false, touched: !sameStat } : { stale: true };
}

function clock(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

export function staleFileMessage(shownPath: string, state: FileState, stat: { mtimeMs: number; size: number }, action: string): string {
  const sizeNote = stat.size === state.size ? `its size is unchanged (${formatBytes(stat.size)})` : `it went from ${formatBytes(state.size)} to ${formatBytes(stat.size)}`;
  return (
    `${shownPath} has changed since you last read it (read at ${clock(state.timestamp)}, modified at ${clock(stat.mtimeMs)}; ${sizeNote}). ` +
    `The user, a formatter or another program changed it, so ${action} was refused to avoid overwriting those changes. ` +
    `Read the file again to see its current content, then retry.`
  );
}
