import fs from "node:fs";
import { AbortError } from "../../core/errors.js";

/** Files stat'ed between yields to the event loop, so progress, timers and abort stay responsive. */
const STAT_CHUNK = 2_000;

/** A file's mtime, or 0 (oldest) when it cannot be stat'ed. */
export function mtimeOf(file: string): number {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  } catch {
    return 0;
  }
}

/**
 * Absolute paths ordered by modification time, newest first; ties (and files that vanished, which count
 * as oldest) by path, so the order is deterministic and pagination is stable.
 * Synchronous stat in chunks: measured ~4x faster than thousands of concurrent fs.promises.stat calls.
 */
export async function sortNewestFirst(absPaths: readonly string[], signal?: AbortSignal): Promise<string[]> {
  const entries: TimedPath[] = [];
  for (let i = 0; i < absPaths.length; i += STAT_CHUNK) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw new AbortError();
    for (const p of absPaths.slice(i, i + STAT_CHUNK)) {
      entries.push({ path: p, mtimeMs: mtimeOf(p) });
    }
  }
  return orderNewestFirst(entries);
}

export interface TimedPath {
  path: string;
  mtimeMs: number;
}

/** The paths of entries whose mtimes are already known, in sortNewestFirst's order. */
export function orderNewestFirst(entries: TimedPath[]): string[] {
  entries.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return entries.map((e) => e.path);
}
