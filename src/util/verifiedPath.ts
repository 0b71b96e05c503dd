import fs from "node:fs";
import path from "node:path";
import { resolvePhysicalPath } from "./physicalPath.js";

/**
 * Opening exactly what a check judged. A path is resolved once when it is checked and again when it is
 * opened; a symlink swapped in between would send the second resolution elsewhere. So an opened descriptor
 * is asked where it really is (`/proc/self/fd/N`, the kernel's own path of the open file) and compared with
 * the real path that was checked, and entries of a directory are reached through its verified descriptor
 * (`/proc/self/fd/N/name`), so a parent swapped after the check cannot redirect them.
 */

const PROC_FD = "/proc/self/fd";
const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants;

let descriptorsReadable: boolean | undefined;

/** Whether this system says where an open descriptor is (Linux with /proc mounted). */
function canAskDescriptors(): boolean {
  if (descriptorsReadable === undefined) {
    let fd: number | undefined;
    try {
      fd = fs.openSync("/", O_RDONLY | O_DIRECTORY);
      descriptorsReadable = fs.readlinkSync(`${PROC_FD}/${fd}`) === "/";
    } catch {
      descriptorsReadable = false;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }
  return descriptorsReadable;
}

/** The path that was checked no longer leads to the file that was checked. */
export class PathChangedError extends Error {
  readonly code = "EPATHCHANGED";
  readonly path: string;
  constructor(checkedPath: string) {
    super(`${checkedPath} changed while it was being opened: it no longer leads to the file that was checked`);
    this.name = "PathChangedError";
    this.path = checkedPath;
  }
}

/** A file's identity (device and inode) as one comparable string. */
export function fileIdentity(stat: fs.BigIntStats): string {
  return `${stat.dev}:${stat.ino}`;
}

/** The identity of what is at `absPath` (not following a final symlink), or undefined when nothing is. */
export function identityAt(absPath: string): string | undefined {
  try {
    const stat = fs.lstatSync(absPath, { bigint: true, throwIfNoEntry: false });
    return stat ? fileIdentity(stat) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Throws PathChangedError unless the open `fd` is the file at `expected` (and, when given, the file with
 * that identity). Without /proc the kernel cannot be asked, so the path is resolved once more and compared
 * with the descriptor's identity: a narrower window, not none.
 */
export function verifyDescriptor(fd: number, expected: string, identity?: string): void {
  const actual = fileIdentity(fs.fstatSync(fd, { bigint: true }));
  if (identity !== undefined && actual !== identity) throw new PathChangedError(expected);
  if (canAskDescriptors()) {
    if (fs.readlinkSync(`${PROC_FD}/${fd}`) !== expected) throw new PathChangedError(expected);
    return;
  }
  let real: string | undefined;
  try {
    real = fs.realpathSync.native(expected);
  } catch {
    real = undefined;
  }
  if (real !== expected || identityAt(expected) !== actual) throw new PathChangedError(expected);
}

function isSymlink(target: string): boolean {
  try {
    return fs.lstatSync(target).isSymbolicLink();
  } catch {
    return false;
  }
}

/** `flags` plus O_NOFOLLOW on `openPath`, then verified to be the file at `expected`; closed again if it is not. */
function openVerifiedAt(openPath: string, expected: string, flags: number, identity?: string): number {
  let fd: number;
  try {
    fd = fs.openSync(openPath, flags | O_NOFOLLOW);
  } catch (err) {
    // The real path has no symlink in it; one there now was put there after the check (unless it is a loop).
    // O_NOFOLLOW refuses it with ELOOP, or ENOTDIR when a directory was asked for.
    const code = (err as NodeJS.ErrnoException).code;
    if ((code === "ELOOP" || code === "ENOTDIR") && isSymlink(openPath) && !resolvePhysicalPath(expected).loop) throw new PathChangedError(expected);
    throw err;
  }
  try {
    verifyDescriptor(fd, expected, identity);
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  return fd;
}

/**
 * Open the file whose real path (every symlink resolved) is `realPath`, and make sure the descriptor is
 * that file: PathChangedError if a symlink or directory on the way was swapped, or, with `identity`, if a
 * different file now stands there. The caller reads and writes through the descriptor it gets.
 */
export function openVerifiedFile(realPath: string, flags: number, identity?: string): number {
  return openVerifiedAt(realPath, realPath, flags, identity);
}

/** A directory opened and verified; its entries are addressed through its descriptor. */
export interface VerifiedDirectory {
  readonly fd: number;
  /** Its real path, as it was checked. */
  readonly realPath: string;
  /**
   * A path to `name` inside this very directory: through its descriptor where the system has /proc, so the
   * path stays in this directory whatever is later renamed or swapped on the way to it.
   */
  entry(name: string): string;
  close(): void;
}

function verifiedDirectory(fd: number, realPath: string): VerifiedDirectory {
  const base = canAskDescriptors() ? `${PROC_FD}/${fd}` : realPath;
  return {
    fd,
    realPath,
    entry: (name) => path.join(base, name),
    close: () => fs.closeSync(fd),
  };
}

/** Open the directory at the real path `realDir` and verify it is that directory. */
export function openVerifiedDirectory(realDir: string): VerifiedDirectory {
  return verifiedDirectory(openVerifiedAt(realDir, realDir, O_RDONLY | O_DIRECTORY), realDir);
}

/**
 * The directory at the real path `realDir`, made with its missing parents first. Each missing directory is
 * made and opened through its verified parent, with O_NOFOLLOW, so no symlink planted on the way can send
 * the chain (or the empty directories it creates) anywhere else.
 */
export function makeVerifiedDirectory(realDir: string): VerifiedDirectory {
  const missing: string[] = [];
  let existing = realDir;
  let dir: VerifiedDirectory | undefined;
  while (!dir) {
    try {
      dir = openVerifiedDirectory(existing);
    } catch (err) {
      const parent = path.dirname(existing);
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || parent === existing) throw err;
      missing.push(path.basename(existing));
      existing = parent;
    }
  }
  while (missing.length > 0) {
    const name = missing.pop() as string;
    const parent: VerifiedDirectory = dir;
    try {
      try {
        fs.mkdirSync(parent.entry(name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const realPath = path.join(parent.realPath, name);
      dir = verifiedDirectory(openVerifiedAt(parent.entry(name), realPath, O_RDONLY | O_DIRECTORY), realPath);
    } finally {
      parent.close();
    }
  }
  return dir;
}

/** A path by which this process reaches the very file behind `fd` again; without /proc, `fallback`. */
export function descriptorPath(fd: number, fallback: string): string {
  return canAskDescriptors() ? `${PROC_FD}/${fd}` : fallback;
}

/**
 * A path by which a child process can open the file behind `fd` (this process's /proc entry for it), so a
 * tool run on "the file" reads the verified one; without /proc, `fallback`.
 */
export function descriptorPathForChildren(fd: number, fallback: string): string {
  return canAskDescriptors() ? `/proc/${process.pid}/fd/${fd}` : fallback;
}
