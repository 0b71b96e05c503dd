/**
 * Change notices for a set of directories (inotify through `fs.watch`, one watch per directory, not
 * recursive), so the workspace snapshots can look only at what changed instead of walking the whole tree.
 *
 * What makes the notices trustworthy enough to skip a walk:
 * - A barrier: `settle()` creates a file in a directory of its own, watched through the same inotify
 *   instance (libuv keeps one per event loop, and its queue is in order), and waits for that file's event.
 *   Every change made before the barrier was reported once it arrives: a command that exited, an editor's save.
 * - What it cannot see is told to the caller: a watch that could not be added (the kernel's watch limit,
 *   ENOSPC) breaks the watcher for the session; a burst of events large enough that the kernel's queue may
 *   have overflowed (libuv drops the overflow notice) and an event without a file name are reported, and the
 *   caller walks the tree instead.
 */
import fs from "node:fs";
import path from "node:path";
import { ensurePrivateDirSync } from "../util/privateFiles.js";

/**
 * Barrier files are named uniquely in the process: a notice about an earlier barrier file (its removal, or one
 * of a watcher since closed) must never be taken for a new barrier's.
 */
let barrierSerial = 0;

/** How long a barrier may take before the notices are no longer trusted (a stuck loop, a lost watch). */
const BARRIER_TIMEOUT_MS = 5000;

function queueLimit(): number {
  try {
    const limit = Number(fs.readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8"));
    if (Number.isFinite(limit) && limit > 0) return limit;
  } catch {
    // not Linux, or /proc is hidden: assume the kernel's default
  }
  return 16384;
}

export interface TakenChanges {
  /** Paths reported since the last take (files or directories, existing or gone). */
  paths: Set<string>;
  /** Why these notices cannot be trusted alone: walk the tree instead. */
  untrusted?: string;
}

export interface DirectoryWatcher<T> {
  /** Watch `dir` (its entries, not its subdirectories); false once the watcher is broken. */
  add(dir: string, data: T): boolean;
  get(dir: string): T | undefined;
  /** Stop watching `dir` and every watched directory under it. */
  removeUnder(dir: string): void;
  /** Watched directories. */
  dirs(): IterableIterator<string>;
  /** Resolves once every change made before the call was reported; false when the notices cannot be trusted. */
  settle(): Promise<boolean>;
  /** The paths reported since the last take. */
  take(): TakenChanges;
  /** Why the watcher stopped working for the session. */
  readonly broken: string | undefined;
  close(): void;
}

/**
 * `barrierDir` is created (0700) and holds the barrier files; it must not be one of the watched directories.
 * Past `burstLimit` notices between two takes, the take says they cannot be trusted.
 */
export function createDirectoryWatcher<T>(barrierDir: string, burstLimit?: number): DirectoryWatcher<T> {
  const watched = new Map<string, { watcher: fs.FSWatcher; data: T }>();
  let dirty = new Set<string>();
  let events = 0;
  let unnamed = false;
  let wakeScheduled = false;
  let broken: string | undefined;
  let barrier: fs.FSWatcher | undefined;
  const waiting = new Map<string, () => void>();
  // A quarter of the kernel's queue: past that many notices in one window, an overflow is not ruled out (the
  // count is a lower bound: notices for watches already closed are dropped by libuv uncounted).
  const limit = burstLimit ?? Math.max(1, Math.floor(queueLimit() / 4));

  function wakeAll(): void {
    const wakes = [...waiting.values()];
    waiting.clear();
    for (const wake of wakes) wake();
  }

  function breakWith(why: string): void {
    if (broken) return;
    broken = why;
    for (const { watcher } of watched.values()) watcher.close();
    watched.clear();
    barrier?.close();
    barrier = undefined;
    wakeAll();
  }

  function startBarrier(): boolean {
    if (barrier) return true;
    try {
      ensurePrivateDirSync(barrierDir);
      for (const name of fs.readdirSync(barrierDir)) fs.rmSync(path.join(barrierDir, name), { force: true });
      barrier = fs.watch(barrierDir, { persistent: false }, (_type, name) => {
        const wake = name ? waiting.get(name) : undefined;
        if (!wake) return;
        waiting.delete(name!);
        wake();
      });
      barrier.on("error", (err) => breakWith(`the barrier watch failed (${err.message})`));
      return true;
    } catch (err) {
      breakWith(`the barrier could not be watched (${(err as Error).message})`);
      return false;
    }
  }

  return {
    add(dir, data) {
      if (broken) return false;
      if (watched.has(dir)) {
        watched.get(dir)!.data = data;
        return true;
      }
      if (!startBarrier()) return false;
      let watcher: fs.FSWatcher;
      try {
        watcher = fs.watch(dir, { persistent: false }, (_type, name) => {
          // Past the limit the next take is untrusted whatever the barrier says, and a barrier written while the
          // kernel's queue was full was dropped with the overflow: the waits end once the notices read with this
          // one have all been counted (after the poll phase).
          if (++events > limit && waiting.size && !wakeScheduled) {
            wakeScheduled = true;
            setImmediate(() => {
              wakeScheduled = false;
              wakeAll();
            });
          }
          if (!name) {
            unnamed = true;
            return;
          }
          const reported = `${dir}/${name}`;
          dirty.add(reported);
          // An event about the directory itself (deleted, moved) carries the directory's own name.
          if (name === path.basename(dir)) dirty.add(dir);
        });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR") {
          // gone between the walk and the watch: its parent's notice covers it
          dirty.add(dir);
          return true;
        }
        // Unreadable: a walk cannot list it either; a chmod that opens it is a notice in its parent.
        if (code === "EACCES" || code === "EPERM") return true;
        breakWith(code === "ENOSPC" ? "the kernel's limit of inotify watches was reached (fs.inotify.max_user_watches)" : `a directory could not be watched (${(err as Error).message})`);
        return false;
      }
      watcher.on("error", () => {
        // The directory went away under its watch: what it held is looked at again.
        dirty.add(dir);
        watched.get(dir)?.watcher.close();
        watched.delete(dir);
      });
      watched.set(dir, { watcher, data });
      return true;
    },

    get: (dir) => watched.get(dir)?.data,

    removeUnder(dir) {
      const prefix = `${dir}/`;
      for (const [watchedDir, { watcher }] of watched) {
        if (watchedDir !== dir && !watchedDir.startsWith(prefix)) continue;
        watcher.close();
        watched.delete(watchedDir);
      }
    },

    dirs: () => watched.keys(),

    settle() {
      if (broken || !barrier) return Promise.resolve(false);
      if (events > limit) return Promise.resolve(true);
      const name = `b${process.pid}-${++barrierSerial}`;
      const file = path.join(barrierDir, name);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(name);
          breakWith(`a change notice took more than ${BARRIER_TIMEOUT_MS / 1000} s to arrive`);
          resolve(false);
        }, BARRIER_TIMEOUT_MS);
        waiting.set(name, () => {
          clearTimeout(timer);
          fs.rm(file, { force: true }, () => {});
          resolve(!broken);
        });
        try {
          fs.writeFileSync(file, "");
        } catch (err) {
          clearTimeout(timer);
          waiting.delete(name);
          breakWith(`the barrier file could not be written (${(err as Error).message})`);
          resolve(false);
        }
      });
    },

    take() {
      const taken: TakenChanges = { paths: dirty };
      if (unnamed) taken.untrusted = "a change notice without a file name";
      else if (events > limit) taken.untrusted = `${events} change notices at once (the kernel's queue may have overflowed)`;
      dirty = new Set();
      events = 0;
      unnamed = false;
      return taken;
    },

    get broken() {
      return broken;
    },

    close() {
      breakWith("closed");
    },
  };
}
