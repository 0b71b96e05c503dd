import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { resolvePhysicalPath } from "./physicalPath.js";

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
  const prefix = tempPrefix(path.basename(target));
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const stale: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(TEMP_SUFFIX)) continue;
    const pid = Number.parseInt(name.slice(prefix.length), 10);
    if (Number.isInteger(pid) && pid > 0 && (pid === process.pid || !isProcessAlive(pid))) stale.push(path.join(dir, name));
  }
  return stale;
}

function writeAll(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.length) {
    const length = Math.min(WRITE_CHUNK_BYTES, data.length - offset);
    offset += fs.writeSync(fd, data, offset, length);
  }
}

function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on directories; the rename itself already happened.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
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
 * Synchronous on purpose: writers call it inside their critical section.
 */
export function writeFileAtomicSync(filePath: string, data: Uint8Array | string): AtomicWriteResult {
  const target = resolveWriteTarget(filePath);
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let existing: fs.Stats | undefined;
  try {
    existing = fs.statSync(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  if (existing && !existing.isFile()) {
    throw Object.assign(new Error(`Cannot write ${target}: it is not a regular file`), { code: "EISDIR" });
  }

  for (const stale of staleTempFiles(target)) fs.rmSync(stale, { force: true });

  const dir = path.dirname(target);
  const tmp = path.join(dir, `${tempPrefix(path.basename(target))}${process.pid}-${randomBytes(4).toString("hex")}${TEMP_SUFFIX}`);
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, existing ? 0o600 : 0o666);
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
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(tmp, target);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fsyncDirectory(dir);
  return { target, stat: fs.statSync(target) };
}
