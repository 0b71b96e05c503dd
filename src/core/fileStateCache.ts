import { createHash } from "node:crypto";
import path from "node:path";

/** What the session knows about a file it has read or written. */
export interface FileState {
  /**
   * sha256 of the file's raw bytes (the whole file, also for windowed reads). Empty when the file was too
   * large to hash while reading (over 1 GiB); staleness then falls back to mtime and size alone.
   */
  contentHash: string;
  /** Decoded content, kept only for small files; large files are tracked by hash alone. */
  content?: string;
  mtimeMs: number;
  size: number;
  /** The window shown, for partial reads (1-based line offset; negative counts from the end, -1 being the last line). */
  offset?: number;
  limit?: number;
  /** True when the model saw only an automatic partial view, which does not count as a read for editing. */
  isPartialView?: boolean;
  /**
   * True when the model has seen every line: a Read whose window covered the whole file, or the file as a
   * tool itself wrote it. Overwriting an existing file with Write requires it; Edit does not.
   */
  coversWholeFile?: boolean;
  /** When the entry was recorded (ms since epoch). */
  timestamp: number;
}

export interface FileStateCache {
  get(filePath: string): FileState | undefined;
  /** Like get, without counting as a use (the LRU order stays). */
  peek(filePath: string): FileState | undefined;
  set(filePath: string, state: FileState): void;
  has(filePath: string): boolean;
  delete(filePath: string): boolean;
  keys(): string[];
  readonly size: number;
  /** Total characters of cached content. */
  readonly contentChars: number;
  clear(): void;
  /** An independent copy (subagents that must not share read state). */
  clone(): FileStateCache;
}

export const FILE_STATE_MAX_ENTRIES = 100;
export const FILE_STATE_MAX_CONTENT_CHARS = 25 * 1024 * 1024;
/** Content above this many chars is not kept in the cache; its hash is. */
export const FILE_STATE_MAX_ENTRY_CONTENT_CHARS = 1024 * 1024;

export function hashContent(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** An LRU of path → FileState bounded by entry count and by the total characters of cached content. */
export function createFileStateCache(
  maxEntries = FILE_STATE_MAX_ENTRIES,
  maxContentChars = FILE_STATE_MAX_CONTENT_CHARS,
): FileStateCache {
  const entries = new Map<string, FileState>();
  let contentChars = 0;

  const key = (filePath: string) => path.normalize(filePath);
  const weight = (state: FileState) => state.content?.length ?? 0;

  const remove = (k: string) => {
    const old = entries.get(k);
    if (!old) return false;
    contentChars -= weight(old);
    entries.delete(k);
    return true;
  };

  const evict = () => {
    while (entries.size > maxEntries || (contentChars > maxContentChars && entries.size > 1)) {
      const oldest = entries.keys().next().value as string;
      remove(oldest);
    }
  };

  const cache: FileStateCache = {
    get(filePath) {
      const k = key(filePath);
      const state = entries.get(k);
      if (state) {
        entries.delete(k);
        entries.set(k, state);
      }
      return state;
    },
    peek: (filePath) => entries.get(key(filePath)),
    set(filePath, state) {
      const k = key(filePath);
      remove(k);
      const stored =
        state.content !== undefined && state.content.length > FILE_STATE_MAX_ENTRY_CONTENT_CHARS
          ? { ...state, content: undefined }
          : state;
      entries.set(k, stored);
      contentChars += weight(stored);
      evict();
    },
    has: (filePath) => entries.has(key(filePath)),
    delete: (filePath) => remove(key(filePath)),
    keys: () => [...entries.keys()],
    get size() {
      return entries.size;
    },
    get contentChars() {
      return contentChars;
    },
    clear() {
      entries.clear();
      contentChars = 0;
    },
    clone() {
      const copy = createFileStateCache(maxEntries, maxContentChars);
      for (const [k, v] of entries) copy.set(k, { ...v });
      return copy;
    },
  };
  return cache;
}

/**
 * A cache that records instead of changing `base`: reads see its own writes over `base` (without touching base's
 * LRU order); `commit()` replays every read and write on `base`, in order, and from then on it passes through.
 * A speculative call gets one, so a discarded run leaves no trace (no file counts as read that the model never
 * saw).
 */
export interface FileStateOverlay extends FileStateCache {
  commit(): void;
}

export function createFileStateOverlay(base: FileStateCache): FileStateOverlay {
  const written = new Map<string, FileState | undefined>();
  const log: Array<{ op: "get" } | { op: "set"; state: FileState } | { op: "delete" }> = [];
  const paths: string[] = [];
  let committed = false;
  const key = (filePath: string) => path.normalize(filePath);
  const record = (filePath: string, entry: (typeof log)[number]) => {
    paths.push(filePath);
    log.push(entry);
  };
  const look = (filePath: string): FileState | undefined => {
    const k = key(filePath);
    return written.has(k) ? written.get(k) : base.peek(k);
  };
  const overlay: FileStateOverlay = {
    get(filePath) {
      if (committed) return base.get(filePath);
      record(filePath, { op: "get" });
      return look(filePath);
    },
    peek: (filePath) => (committed ? base.peek(filePath) : look(filePath)),
    set(filePath, state) {
      if (committed) return base.set(filePath, state);
      record(filePath, { op: "set", state });
      written.set(key(filePath), state);
    },
    has: (filePath) => (committed ? base.has(filePath) : look(filePath) !== undefined),
    delete(filePath) {
      if (committed) return base.delete(filePath);
      const had = look(filePath) !== undefined;
      record(filePath, { op: "delete" });
      written.set(key(filePath), undefined);
      return had;
    },
    keys: () => (committed ? base.keys() : [...new Set([...base.keys(), ...written.keys()])].filter((k) => look(k) !== undefined)),
    get size() {
      return overlay.keys().length;
    },
    get contentChars() {
      return base.contentChars;
    },
    clear() {
      for (const k of overlay.keys()) overlay.delete(k);
    },
    clone() {
      const copy = base.clone();
      for (const [k, state] of written) {
        if (state) copy.set(k, { ...state });
        else copy.delete(k);
      }
      return copy;
    },
    commit() {
      if (committed) return;
      committed = true;
      log.forEach((entry, i) => {
        if (entry.op === "get") base.get(paths[i]);
        else if (entry.op === "set") base.set(paths[i], entry.state);
        else base.delete(paths[i]);
      });
    },
  };
  return overlay;
}
