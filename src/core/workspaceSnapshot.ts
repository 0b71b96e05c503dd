/**
 * Snapshots of the working directories around a call that may write anywhere in them (Bash, a REPL), so
 * rewind and `toolgate diff` cover what it did. An in-process stat cache (path → size, mtime, ctime, inode,
 * mode, content hash) with content-addressed blobs under the session's data directory: a file is read and
 * hashed only when its stat changed. On Linux the working directories are also watched (inotify, see
 * directoryWatcher.ts): once a first walk has filled the cache, a pass looks only at the paths the change
 * notices named since the last one, so a call that changes nothing costs two barriers instead of two stat
 * passes over the tree; a pass walks again whenever the notices cannot be trusted. The walk honours .gitignore files (nested ones too) and .git/info/exclude, and never enters version-control
 * folders, node_modules or toolgate's own home. Files too large to keep are tracked by stat only and reported.
 */
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import ignore, { type Ignore } from "ignore";
import { ensurePrivateDirSync, PRIVATE_FILE_MODE } from "../util/privateFiles.js";
import { SAFETY_DIRECTORY_NAMES, SAFETY_FILE_NAMES } from "./safetyPaths.js";
import { createDirectoryWatcher, type DirectoryWatcher } from "./directoryWatcher.js";
import { lstatIfExists } from "../util/statIfExists.js";

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
  snapshot(roots: readonly string[]): Promise<void>;
  /** After the call: what changed under `roots` since the last snapshot; the cache then holds the files as they are. */
  changesSince(roots: readonly string[]): Promise<WorkspaceChanges>;
  /** How the last pass looked at the files: a walk of the tree (and why), or only the paths change notices named. */
  readonly lastPass: { kind: "walk" | "notices"; why?: string } | undefined;
  /** Stop watching the working directories. */
  close(): void;
}

export interface WorkspaceSnapshotOptions {
  /**
   * Watch the working directories (inotify) so a pass looks only at what changed; off, every pass walks the
   * tree. Default: on Linux, unless TOOLGATE_UNDO_WATCH=0.
   */
  watch?: boolean;
  /** Past this many change notices between two passes, a pass walks (default: a quarter of the kernel's queue). */
  burstLimit?: number;
}

interface Entry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** Hard links to it: a write through another name is a notice for that name only. */
  links: number;
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
/** A walk gives the event loop a turn after this many directories. */
const YIELD_EVERY_DIRS = 16;
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

/** What a watched directory's children are judged by. */
interface WatchedDir {
  /** The ignore layers that apply to the directory's entries (its own .gitignore included). */
  layers: IgnoreLayer[];
}

/** What a pass does with each file it finds, and with each cached file it finds gone. */
interface PassVisitor {
  visit(filePath: string, stat: fs.Stats): void;
  gone(filePath: string, entry: Entry): void;
}

function watchByDefault(): boolean {
  return process.platform === "linux" && process.env.TOOLGATE_UNDO_WATCH !== "0";
}

/**
 * `storeDir` holds the blobs (created on first need, 0700, blobs 0600); `excluded` are directories never
 * walked (toolgate's home when it lies inside a project).
 */
export function createWorkspaceSnapshots(
  storeDir: string,
  excluded: readonly string[] = [],
  limits: WorkspaceSnapshotLimits = DEFAULT_SNAPSHOT_LIMITS,
  options: WorkspaceSnapshotOptions = {},
): WorkspaceSnapshots {
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
  /** Counts passes; an entry not stamped with the current one was not seen by it. */
  let pass = 0;
  let walkedDirs = 0;
  let watching = options.watch ?? watchByDefault();
  let watcher: DirectoryWatcher<WatchedDir> | undefined;
  /** The roots the watches were set up for (real paths), and each root's .git/info/exclude then. */
  let watchedRoots: { key: string; excludes: Array<Ignore | undefined> } | undefined;
  let lastPass: WorkspaceSnapshots["lastPass"];
  /** Passes run one at a time: each waits for the change notices, and two interleaved would share one cache. */
  let queue: Promise<unknown> = Promise.resolve();

  const blobPath = (hash: string) => path.join(objectsDir, hash);

  function giveUp(why: string): never {
    givenUp = `Bash changes are not tracked in this session: ${why}`;
    cache.clear();
    watcher?.close();
    watcher = undefined;
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
  function capture(filePath: string, stat: fs.Stats, startedMs: number, seen: number): Entry {
    const entry: Entry = {
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      ctimeMs: stat.ctimeMs,
      ino: stat.ino,
      links: stat.nlink,
      mode: stat.mode & 0o7777,
      racy: Math.max(stat.mtimeMs, stat.ctimeMs) >= startedMs - RACY_WINDOW_MS,
      seen,
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

  /** The working directories as distinct real paths (one inside another is walked once, as part of it). */
  function distinctRoots(roots: readonly string[]): string[] {
    const realRoots: string[] = [];
    for (const root of roots) {
      try {
        realRoots.push(fs.realpathSync(root));
      } catch {
        // a working directory that is gone has nothing to snapshot
      }
    }
    return realRoots.filter((root, i) => !realRoots.some((other, j) => j !== i && (root.startsWith(`${other}/`) || (root === other && j < i))));
  }

  function refreshExcludedDirs(): void {
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
  }

  function skippedDir(name: string, dirPath: string, layers: readonly IgnoreLayer[]): boolean {
    return NEVER_ENTERED.has(name) || excludedDirs.has(dirPath) || isIgnored(layers, dirPath, true);
  }

  /** Counts the files a pass holds against the limit. */
  function checkFileCount(count: number): void {
    if (count > limits.maxFiles) giveUp(`the working directories hold more than ${limits.maxFiles.toLocaleString("en-US")} files that are not ignored`);
  }

  /**
   * Every regular file under the roots that is not ignored, with its lstat (symlinks are not followed or
   * tracked); with a watcher, every directory entered is watched and no other.
   */
  async function walkAll(roots: readonly string[], visitor: PassVisitor, current: number): Promise<void> {
    let files = 0;
    const counted = (filePath: string, stat: fs.Stats) => {
      checkFileCount(++files);
      visitor.visit(filePath, stat);
    };
    // Watches start afresh with each walk: one kept by path may be on a directory deleted since (a watch ends
    // with its directory), and notices from before the walk are covered by it.
    if (watching && !watcher?.broken) {
      watcher?.close();
      watcher = createDirectoryWatcher<WatchedDir>(path.join(storeDir, "watch"), options.burstLimit);
    }
    const register = watcher ? (dir: string, layers: IgnoreLayer[]) => void watcher!.add(dir, { layers }) : undefined;
    const distinct = distinctRoots(roots);
    const excludes: Array<Ignore | undefined> = [];
    for (const root of distinct) {
      const layers: IgnoreLayer[] = [];
      const exclude = gitignoreAt(root, ".git/info/exclude");
      excludes.push(exclude);
      if (exclude) layers.push({ base: root, matcher: exclude });
      await walkDir(root, layers, counted, register);
    }
    for (const [filePath, entry] of cache) if (entry.seen !== current) visitor.gone(filePath, entry);
    if (!watcher) return;
    watchedRoots = watcher.broken ? undefined : { key: distinct.join("\0"), excludes };
  }

  async function walkDir(dir: string, parentLayers: IgnoreLayer[], visit: (filePath: string, stat: fs.Stats) => void, register?: (dir: string, layers: IgnoreLayer[]) => void): Promise<void> {
    // A walk reads every file the first time: it lets the event loop run (the UI, MCP, output) between directories.
    if (++walkedDirs % YIELD_EVERY_DIRS === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    // Watched before its entries are read: a file created after the read has a notice.
    register?.(dir, parentLayers);
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
    if (layers !== parentLayers) register?.(dir, layers);
    for (const entry of entries) {
      const child = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (skippedDir(entry.name, child, layers)) continue;
        await walkDir(child, layers, visit, register);
      } else if (entry.isFile()) {
        if (isIgnored(layers, child, false)) continue;
        const stat = lstatIfExists(child);
        if (stat?.size === 0 && PLACEHOLDER_NAMES.has(entry.name)) continue;
        if (stat?.isFile()) visit(child, stat);
      }
    }
  }

  /**
   * Look only at the paths named by change notices since the last pass. Undefined when done; otherwise why
   * the tree must be walked instead.
   */
  async function fromNotices(roots: readonly string[], visitor: PassVisitor, current: number): Promise<string | undefined> {
    if (!watching) return "change notices are off";
    if (!watcher || !watchedRoots) return watcher?.broken ? `change notices are off (${watcher.broken})` : "the first pass";
    const distinct = distinctRoots(roots);
    if (distinct.join("\0") !== watchedRoots.key) return "the working directories changed";
    if (!(await watcher.settle())) return `change notices are off (${watcher.broken ?? "unknown"})`;
    const { paths, untrusted } = watcher.take();
    if (untrusted) return untrusted;
    const rootSet = new Set(distinct);
    for (const dirty of paths) {
      if (rootSet.has(dirty)) return "a working directory itself was changed";
      if (path.basename(dirty) === ".gitignore") return "a .gitignore changed";
    }
    for (let i = 0; i < distinct.length; i++) if (gitignoreAt(distinct[i], ".git/info/exclude") !== watchedRoots.excludes[i]) return ".git/info/exclude changed";
    refreshExcludedDirs();
    // Directories gone or replaced: every cached file under one that this pass did not see again is gone.
    const sweep = new Set<string>();
    const register = (dir: string, layers: IgnoreLayer[]) => watcher!.add(dir, { layers });
    // Inodes with more than one name seen this pass: a new link is a notice for the new name only.
    const linked = new Set<number>();
    const visit = (filePath: string, stat: fs.Stats) => {
      if (stat.nlink > 1) linked.add(stat.ino);
      visitor.visit(filePath, stat);
    };
    for (const dirty of [...paths].sort()) {
      const parent = watcher.get(path.dirname(dirty));
      const stat = lstatIfExists(dirty);
      const wasDir = watcher.get(dirty) !== undefined;
      if (!parent || !stat) {
        // Gone, or in a directory no longer watched (its own notice, from its parent, covers it).
        if (!stat) {
          watcher.removeUnder(dirty);
          sweep.add(dirty);
        }
        continue;
      }
      const name = path.basename(dirty);
      if (stat.isDirectory()) {
        sweep.add(dirty);
        if (wasDir) watcher.removeUnder(dirty);
        if (!skippedDir(name, dirty, parent.layers)) await walkDir(dirty, parent.layers, visit, register);
      } else {
        if (wasDir) {
          watcher.removeUnder(dirty);
          sweep.add(dirty);
        }
        if (stat.isFile() && !isIgnored(parent.layers, dirty, false) && !(stat.size === 0 && PLACEHOLDER_NAMES.has(name))) visit(dirty, stat);
        else sweep.add(dirty);
      }
    }
    if (watcher.broken) return `change notices are off (${watcher.broken})`;
    // A file with other hard links can change through a name no notice names: it is looked at every pass, and so
    // is every name of an inode that gained a link.
    for (const [filePath, entry] of cache) {
      if ((entry.links < 2 && !linked.has(entry.ino)) || entry.seen === current || sweep.has(filePath)) continue;
      const stat = lstatIfExists(filePath);
      if (stat?.isFile()) visitor.visit(filePath, stat);
      else sweep.add(filePath);
    }
    if (sweep.size) {
      for (const [filePath, entry] of cache) {
        if (entry.seen === current) continue;
        for (let at = filePath; at.length > 1; at = path.dirname(at)) {
          if (!sweep.has(at)) continue;
          visitor.gone(filePath, entry);
          break;
        }
      }
    }
    checkFileCount(cache.size);
    return undefined;
  }

  /** A cached file whose stat did not move (and whose timestamps can be trusted): stamped as seen by this pass. */
  function stillTheSame(entry: Entry | undefined, stat: fs.Stats, current: number): boolean {
    if (!entry || entry.racy || statChanged(entry, stat)) return false;
    entry.seen = current;
    return true;
  }

  /** One pass over the working directories, from the change notices when they can be trusted, else a walk. */
  function runPass(roots: readonly string[], visitor: PassVisitor, current: number): Promise<void> {
    const run = async () => {
      if (givenUp) throw new WorkspaceTooLargeError(givenUp);
      const walkWhy = await fromNotices(roots, visitor, current);
      if (walkWhy === undefined) {
        lastPass = { kind: "notices" };
        return;
      }
      refreshExcludedDirs();
      await walkAll(roots, visitor, current);
      lastPass = { kind: "walk", why: walkWhy };
    };
    const result = queue.then(run, run);
    queue = result.catch(() => {});
    return result;
  }

  return {
    snapshot(roots) {
      const startedMs = Date.now();
      const current = ++pass;
      return runPass(
        roots,
        {
          visit(filePath, stat) {
            if (stillTheSame(cache.get(filePath), stat, current)) return;
            cache.set(filePath, capture(filePath, stat, startedMs, current));
          },
          gone: (filePath) => cache.delete(filePath),
        },
        current,
      );
    },

    async changesSince(roots) {
      const startedMs = Date.now();
      const changes: WorkspaceChanges = { changed: [], uncovered: [] };
      const current = ++pass;
      const before = (entry: Entry): SavedContent => ({ blobPath: blobPath(entry.hash!), mode: entry.mode });
      await runPass(
        roots,
        {
          visit(filePath, stat) {
            const entry = cache.get(filePath);
            if (stillTheSame(entry, stat, current)) return;
            const fresh = capture(filePath, stat, startedMs, current);
            cache.set(filePath, fresh);
            if (!entry) {
              changes.changed.push({ filePath, before: null });
              return;
            }
            const same = entry.hash !== undefined && entry.hash === fresh.hash && entry.mode === fresh.mode;
            if (same) return;
            if (entry.hash !== undefined) changes.changed.push({ filePath, before: before(entry) });
            else if (!fresh.skipped || statChanged(entry, stat)) changes.uncovered.push({ filePath, reason: entry.skipped ?? "not kept" });
          },
          gone(filePath, entry) {
            cache.delete(filePath);
            if (entry.hash !== undefined) changes.changed.push({ filePath, before: before(entry) });
            else changes.uncovered.push({ filePath, reason: entry.skipped ?? "not kept" });
          },
        },
        current,
      );
      return changes;
    },

    get lastPass() {
      return lastPass;
    },

    close() {
      watching = false;
      watcher?.close();
      watcher = undefined;
      watchedRoots = undefined;
    },
  };
}
