/**
 * Snapshots of the working directories around a call that may write anywhere in them (Bash, a REPL), so
 * rewind and `toolgate diff` cover what it did. An in-process stat cache (path → size, mtime, ctime, inode,
 * mode, content hash) with content-addressed blobs under the session's data directory: a file is read and
 * hashed only when its stat changed, so a call that changes nothing costs two stat passes over the tree.
 * The walk honours .gitignore files (nested ones too) and .git/info/exclude, and never enters version-control
 * folders, node_modules or toolgate's own home. Files too large to keep are tracked by stat only and reported.
 */
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import ignore, { type Ignore } from "ignore";
import { ensurePrivateDirSync, PRIVATE_FILE_MODE } from "../util/privateFiles.js";
import { SAFETY_DIRECTORY_NAMES, SAFETY_FILE_NAMES } from "./safetyPaths.js";

/** A file's content before a call: the blob holding its bytes and its permission bits; null: it did not exist. */
export type SavedContent = { blobPath: string; mode: number } | null;

export interface WorkspaceChanges {
  /** Files the call created, modified or deleted, with their content before it. */
  changed: Array<{ filePath: string; before: SavedContent }>;
  /** Files the call changed whose previous content was not kept, with the reason. */
  uncovered: Array<{ filePath: string; reason: string }>;
}

export interface WorkspaceSnapshotLimits {
  /** Files larger than this are not kept. */
  maxFileBytes: number;
  /** Binary files (a NUL in the first 8000 bytes) larger than this are not kept. */
  maxBinaryBytes: number;
  /**
   * Working directories with more files than this are not tracked at all (a session started in a home
   * directory would otherwise walk and copy all of it before every writing command).
   */
  maxFiles: number;
  /** Nor once the copies kept would pass this many bytes. */
  maxStoredBytes: number;
}

export const DEFAULT_SNAPSHOT_LIMITS: WorkspaceSnapshotLimits = { maxFileBytes: 5 * 1024 * 1024, maxBinaryBytes: 1024 * 1024, maxFiles: 50_000, maxStoredBytes: 1024 * 1024 * 1024 };

/** Thrown once the working directories are too large to track; every later call says so without walking. */
export class WorkspaceTooLargeError extends Error {}

export interface WorkspaceSnapshots {
  /** Bring the cache and the blob store up to date with the files under `roots` now (before a call). */
  snapshot(roots: readonly string[]): void;
  /** After the call: what changed under `roots` since the last snapshot; the cache then holds the files as they are. */
  changesSince(roots: readonly string[]): WorkspaceChanges;
}

interface Entry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
  /** The content hash (the blob's name); absent when the content was not kept. */
  hash?: string;
  /** Why the content was not kept. */
  skipped?: string;
  /** Its timestamps were too close to when it was read to trust: compare the content next time. */
  racy: boolean;
  /** The last walk that saw it. */
  seen: number;
}

const NEVER_ENTERED = new Set([".git", ".hg", ".svn", ".jj", ".bzr", "node_modules"]);
const BINARY_PROBE_BYTES = 8000;
/**
 * While a sandboxed process lives (a background command), bwrap keeps an empty file in the project as the mount
 * point of each missing safety path (the REPL's are empty directories, which hold no file to snapshot). They are
 * not the user's files: a snapshot that kept them would have rewind delete them, and deleting a mount point from
 * the host unprotects that path inside.
 */
const PLACEHOLDER_NAMES = new Set([...SAFETY_FILE_NAMES, ...SAFETY_DIRECTORY_NAMES]);
/** File timestamps come from a coarse clock (a jiffy, up to 10 ms): a write this close to a read may not move them. */
const RACY_WINDOW_MS = 50;

interface IgnoreLayer {
  base: string;
  matcher: Ignore;
}

function mib(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function statChanged(entry: Entry, stat: fs.Stats): boolean {
  return entry.size !== stat.size || entry.mtimeMs !== stat.mtimeMs || entry.ctimeMs !== stat.ctimeMs || entry.ino !== stat.ino || entry.mode !== (stat.mode & 0o7777);
}

/**
 * `storeDir` holds the blobs (created on first need, 0700, blobs 0600); `excluded` are directories never
 * walked (toolgate's home when it lies inside a project).
 */
export function createWorkspaceSnapshots(storeDir: string, excluded: readonly string[] = [], limits: WorkspaceSnapshotLimits = DEFAULT_SNAPSHOT_LIMITS): WorkspaceSnapshots {
  const objectsDir = path.join(storeDir, "objects");
  const cache = new Map<string, Entry>();
  const gitignores = new Map<string, { mtimeMs: number; size: number; matcher: Ignore }>();
  let excludedDirs = new Set<string>();
  let storeReady = false;
  let storedBytes = 0;
  /** Set once a limit of the whole store was passed: tracking is off for the rest of the session. */
  let givenUp: string | undefined;
  /** Ignore verdicts by path, valid while no .gitignore changed (matching is most of a pass's cost otherwise). */
  let verdicts = new Map<string, boolean>();
  /** Counts walks; an entry not stamped with the current one was not seen by it. */
  let pass = 0;

  const blobPath = (hash: string) => path.join(objectsDir, hash);

  function giveUp(why: string): never {
    givenUp = `Bash changes are not tracked in this session: ${why}`;
    cache.clear();
    throw new WorkspaceTooLargeError(givenUp);
  }

  function storeBlob(hash: string, bytes: Buffer): void {
    const target = blobPath(hash);
    if (fs.existsSync(target)) return;
    if (!storeReady) {
      ensurePrivateDirSync(objectsDir);
      storeReady = true;
    }
    storedBytes += bytes.length;
    if (storedBytes > limits.maxStoredBytes) giveUp(`the copies kept would pass ${mib(limits.maxStoredBytes)}`);
    const temp = `${target}.${process.pid}.tmp`;
    fs.writeFileSync(temp, bytes, { mode: PRIVATE_FILE_MODE });
    fs.renameSync(temp, target);
  }

  /** Read the file, keep its content if it is not too large, and make its cache entry. */
  function capture(filePath: string, stat: fs.Stats, startedMs: number): Entry {
    const entry: Entry = {
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      ctimeMs: stat.ctimeMs,
      ino: stat.ino,
      mode: stat.mode & 0o7777,
      racy: Math.max(stat.mtimeMs, stat.ctimeMs) >= startedMs - RACY_WINDOW_MS,
      seen: pass,
    };
    if (stat.size > limits.maxFileBytes) {
      entry.skipped = `larger than ${mib(limits.maxFileBytes)} (${mib(stat.size)})`;
      return entry;
    }
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(filePath);
    } catch (err) {
      entry.skipped = `unreadable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
      return entry;
    }
    if (bytes.length > limits.maxBinaryBytes && bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) {
      entry.skipped = `a binary file larger than ${mib(limits.maxBinaryBytes)} (${mib(bytes.length)})`;
      return entry;
    }
    entry.hash = createHash("sha1").update(bytes).digest("hex");
    storeBlob(entry.hash, bytes);
    return entry;
  }

  function gitignoreAt(dir: string, name = ".gitignore"): Ignore | undefined {
    const file = `${dir}/${name}`;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      return undefined;
    }
    const known = gitignores.get(file);
    if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size) return known.matcher;
    verdicts = new Map();
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      return undefined;
    }
    const matcher = ignore().add(text);
    gitignores.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, matcher });
    return matcher;
  }

  /** The deepest .gitignore that has a say decides, as in git (a nested `!x` re-includes). */
  function isIgnored(layers: readonly IgnoreLayer[], absPath: string, isDir: boolean): boolean {
    if (!layers.length) return false;
    const known = verdicts.get(absPath);
    if (known !== undefined) return known;
    const ignored = matchIgnored(layers, absPath, isDir);
    verdicts.set(absPath, ignored);
    return ignored;
  }

  function matchIgnored(layers: readonly IgnoreLayer[], absPath: string, isDir: boolean): boolean {
    for (let i = layers.length - 1; i >= 0; i--) {
      const { base, matcher } = layers[i];
      const relative = absPath.slice(base.length + 1) + (isDir ? "/" : "");
      const verdict = matcher.test(relative);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }

  /** Every regular file under the roots that is not ignored, with its lstat. Symlinks are not followed or tracked. */
  function walk(roots: readonly string[], visit: (filePath: string, stat: fs.Stats) => void): void {
    if (givenUp) throw new WorkspaceTooLargeError(givenUp);
    let files = 0;
    const counted = (filePath: string, stat: fs.Stats) => {
      if (++files > limits.maxFiles) giveUp(`the working directories hold more than ${limits.maxFiles.toLocaleString("en-US")} files that are not ignored`);
      visit(filePath, stat);
    };
    // Walked paths are real paths: compare them with both forms of each excluded directory.
    excludedDirs = new Set(
      [storeDir, ...excluded].flatMap((dir) => {
        try {
          return [path.resolve(dir), fs.realpathSync(dir)];
        } catch {
          return [path.resolve(dir)];
        }
      }),
    );
    const realRoots: string[] = [];
    for (const root of roots) {
      try {
        realRoots.push(fs.realpathSync(root));
      } catch {
        // a working directory that is gone has nothing to snapshot
      }
    }
    const distinct = realRoots.filter((root, i) => !realRoots.some((other, j) => j !== i && (root.startsWith(`${other}/`) || (root === other && j < i))));
    for (const root of distinct) {
      const layers: IgnoreLayer[] = [];
      const exclude = gitignoreAt(root, ".git/info/exclude");
      if (exclude) layers.push({ base: root, matcher: exclude });
      walkDir(root, layers, counted);
    }
  }

  function walkDir(dir: string, parentLayers: IgnoreLayer[], visit: (filePath: string, stat: fs.Stats) => void): void {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    let layers = parentLayers;
    if (entries.some((e) => e.name === ".gitignore")) {
      const matcher = gitignoreAt(dir);
      if (matcher) layers = [...parentLayers, { base: dir, matcher }];
    }
    for (const entry of entries) {
      const child = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (NEVER_ENTERED.has(entry.name) || excludedDirs.has(child) || isIgnored(layers, child, true)) continue;
        walkDir(child, layers, visit);
      } else if (entry.isFile()) {
        if (isIgnored(layers, child, false)) continue;
        const stat = fs.lstatSync(child, { throwIfNoEntry: false });
        if (stat?.size === 0 && PLACEHOLDER_NAMES.has(entry.name)) continue;
        if (stat?.isFile()) visit(child, stat);
      }
    }
  }

  return {
    snapshot(roots) {
      const startedMs = Date.now();
      const current = ++pass;
      walk(roots, (filePath, stat) => {
        const entry = cache.get(filePath);
        if (entry && !entry.racy && !statChanged(entry, stat)) {
          entry.seen = current;
          return;
        }
        cache.set(filePath, capture(filePath, stat, startedMs));
      });
      for (const [filePath, entry] of cache) if (entry.seen !== current) cache.delete(filePath);
    },

    changesSince(roots) {
      const startedMs = Date.now();
      const changes: WorkspaceChanges = { changed: [], uncovered: [] };
      const current = ++pass;
      const before = (entry: Entry): SavedContent => ({ blobPath: blobPath(entry.hash!), mode: entry.mode });
      walk(roots, (filePath, stat) => {
        const entry = cache.get(filePath);
        if (entry && !entry.racy && !statChanged(entry, stat)) {
          entry.seen = current;
          return;
        }
        const fresh = capture(filePath, stat, startedMs);
        cache.set(filePath, fresh);
        if (!entry) {
          changes.changed.push({ filePath, before: null });
          return;
        }
        const same = entry.hash !== undefined && entry.hash === fresh.hash && entry.mode === fresh.mode;
        if (same) return;
        if (entry.hash !== undefined) changes.changed.push({ filePath, before: before(entry) });
        else if (!fresh.skipped || statChanged(entry, stat)) changes.uncovered.push({ filePath, reason: entry.skipped ?? "not kept" });
      });
      for (const [filePath, entry] of cache) {
        if (entry.seen === current) continue;
        cache.delete(filePath);
        if (entry.hash !== undefined) changes.changed.push({ filePath, before: before(entry) });
        else changes.uncovered.push({ filePath, reason: entry.skipped ?? "not kept" });
      }
      return changes;
    },
  };
}
