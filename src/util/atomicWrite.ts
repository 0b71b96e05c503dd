import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { resolvePhysicalPath } from "./physicalPath.js";
import { openVerifiedDirectory, PathChangedError, type VerifiedDirectory } from "./verifiedPath.js";

/** Each write(2) is bounded, so a kill lands between chunks of a temp file nobody reads. */
const WRITE_CHUNK_BYTES = 8 * 1024 * 1024;
const TEMP_MARKER = ".toolgate-";
const TEMP_SUFFIX = ".tmp";
/** Keep temp names under NAME_MAX (255) whatever the target's name. */
const TEMP_BASENAME_MAX = 160;

/**
 * The file a write to `filePath` must land in: symlinks are followed (also dangling ones, whose target is
 * created), so the link itself stays a link and its target gets the new content. The permission check
 * resolves paths the same way (resolvePhysicalPath), so it judges the file this writes.
 */
export function resolveWriteTarget(filePath: string): string {
  const { path: target, loop } = resolvePhysicalPath(filePath);
  if (loop) throw Object.assign(new Error(`Too many levels of symbolic links: ${filePath}`), { code: "ELOOP" });
  return target;
}

function tempPrefix(base: string): string {
  return `.${base.slice(0, TEMP_BASENAME_MAX)}${TEMP_MARKER}`;
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Temp files a killed writer left beside `target` (their pid is gone); removed before the next write. */
export function staleTempFiles(target: string): string[] {
  const dir = path.dirname(target);
  return staleTempNames(dir, path.basename(target)).map((name) => path.join(dir, name));
}

/** Names of the temp files a killed writer left in `dir` (a path that lists it) for the file `base`. */
function staleTempNames(dir: string, base: string): string[] {
  const prefix = tempPrefix(base);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => {
    if (!name.startsWith(prefix) || !name.endsWith(TEMP_SUFFIX)) return false;
    const pid = Number.parseInt(name.slice(prefix.length), 10);
    return Number.isInteger(pid) && pid > 0 && (pid === process.pid || !isProcessAlive(pid));
  });
}

function writeAll(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.length) {
    const length = Math.min(WRITE_CHUNK_BYTES, data.length - offset);
    offset += fs.writeSync(fd, data, offset, length);
  }
}

function fsyncDirectory(fd: number): void {
  try {
    fs.fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on directories; the rename itself already happened.
  }
}

export interface AtomicWriteResult {
  /** The file actually written (symlinks resolved). */
  target: string;
  stat: fs.Stats;
}

/**
 * Replace a file's content so that readers (and a crash, or kill -9 of this process) only ever see the old
 * bytes or the new ones: write a temp file in the same directory, fsync it, rename it over the target,
 * fsync the directory. An existing file keeps its permission bits and, when allowed, its owner.
 * New files get 0666 minus the umask. Hard links to the old file keep the old content (rename makes a new inode).
 * The target's directory is opened and verified first (see writeFileAtomicInto), so a directory swapped for a
 * symlink while this runs cannot send the file elsewhere.
 * Synchronous on purpose: writers call it inside their critical section.
 */
export function writeFileAtomicSync(filePath: string, data: Uint8Array | string): AtomicWriteResult {
  const target = resolveWriteTarget(filePath);
  const dir = openVerifiedDirectory(path.dirname(target));
  try {
    const name = path.basename(target);
    let existing: fs.Stats | undefined;
    try {
      existing = fs.lstatSync(dir.entry(name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    // resolved a moment ago: a symlink there now was put there since
    if (existing?.isSymbolicLink()) throw new PathChangedError(target);
    return writeFileAtomicInto(dir, name, data, existing);
  } finally {
    dir.close();
  }
}

/**
 * writeFileAtomicSync into an opened, verified directory: the temp file is made and renamed through the
 * directory's descriptor, so both stay in that directory whatever happens to the path leading to it.
 * `existing` is the stat of the file being replaced (its mode and owner are kept), undefined for a new file.
 */
export function writeFileAtomicInto(dir: VerifiedDirectory, name: string, data: Uint8Array | string, existing: fs.Stats | undefined): AtomicWriteResult {
  const target = path.join(dir.realPath, name);
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  if (existing && !existing.isFile()) {
    throw Object.assign(new Error(`Cannot write ${target}: it is not a regular file`), { code: "EISDIR" });
  }

  for (const stale of staleTempNames(dir.entry(""), name)) fs.rmSync(dir.entry(stale), { force: true });

  const tmp = dir.entry(`${tempPrefix(name)}${process.pid}-${randomBytes(4).toString("hex")}${TEMP_SUFFIX}`);
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, existing ? 0o600 : 0o666);
  let stat: fs.Stats;
  try {
    writeAll(fd, bytes);
    if (existing) {
      if (process.getuid?.() === 0 || existing.uid === process.getuid?.()) {
        try {
          fs.fchownSync(fd, existing.uid, existing.gid);
        } catch {
          // Not allowed to give the file back its group: the content matters more than the group.
        }
      }
      // After chown, which clears set-id bits.
      fs.fchmodSync(fd, existing.mode & 0o7777);
    }
    fs.fsyncSync(fd);
    // The renamed file is this inode: its stat now is the target's after the rename.
    stat = fs.fstatSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(tmp, dir.entry(name));
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fsyncDirectory(dir.fd);
  return { target, stat };
}
