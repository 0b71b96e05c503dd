/**
 * What a session leaves on disk (transcripts, prompt history, file backups, tool output) is the owner's alone:
 * files 0600 in directories 0700. The modes are set explicitly, because mkdir's and open's go through the
 * umask; a directory or file an older version left readable by others is tightened when toolgate writes there.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

const isOurs = (stat: fs.Stats) => process.getuid === undefined || stat.uid === process.getuid();

/** chmod 0700 when others may look in (or the owner may not); only our own directories. */
function tightenDir(dir: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    return;
  }
  if (stat.isDirectory() && (stat.mode & 0o777) !== PRIVATE_DIR_MODE && isOurs(stat)) fs.chmodSync(dir, PRIVATE_DIR_MODE);
}

/** `mkdir -p dir` where each directory made is 0700, and `dir` itself is tightened if it already existed. */
export function ensurePrivateDirSync(dir: string): void {
  const first = fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) {
    tightenDir(dir);
    return;
  }
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    fs.chmodSync(current, PRIVATE_DIR_MODE);
    if (current === path.resolve(first) || current === path.dirname(current)) break;
  }
}

/** Existing directories tightened, none created (the data home and its project folders, opened at start). */
export function tightenPrivateDirs(dirs: readonly string[]): void {
  for (const dir of dirs) {
    try {
      tightenDir(dir);
    } catch {
      // A directory we cannot chmod (not ours, read-only) keeps its mode; the files inside are still 0600.
    }
  }
}

function tightenFd(fd: number): void {
  const stat = fs.fstatSync(fd);
  if ((stat.mode & 0o777) !== PRIVATE_FILE_MODE && isOurs(stat)) fs.fchmodSync(fd, PRIVATE_FILE_MODE);
}

/** Opens (creating) a private file: 0600 before anything is written to it. */
export function openPrivateFileSync(file: string, flags: "a" | "w"): number {
  const fd = fs.openSync(file, flags, PRIVATE_FILE_MODE);
  try {
    tightenFd(fd);
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  return fd;
}

/** appendFileSync for a private file (one write of the whole data, as appendFileSync does). */
export function appendPrivateFileSync(file: string, data: string): void {
  const fd = openPrivateFileSync(file, "a");
  try {
    fs.appendFileSync(fd, data);
  } finally {
    fs.closeSync(fd);
  }
}

/** writeFileSync for a private file. */
export function writePrivateFileSync(file: string, data: string): void {
  const fd = openPrivateFileSync(file, "w");
  try {
    fs.writeFileSync(fd, data);
  } finally {
    fs.closeSync(fd);
  }
}

/** fs.promises.writeFile for a private file. */
export async function writePrivateFile(file: string, data: string): Promise<void> {
  const handle = await fsp.open(file, "w", PRIVATE_FILE_MODE);
  try {
    const stat = await handle.stat();
    if ((stat.mode & 0o777) !== PRIVATE_FILE_MODE && isOurs(stat)) await handle.chmod(PRIVATE_FILE_MODE);
    await handle.writeFile(data, "utf8");
  } finally {
    await handle.close();
  }
}

/** Async ensurePrivateDirSync (mkdir -p, each directory made 0700, an existing one tightened). */
export async function ensurePrivateDir(dir: string): Promise<void> {
  const first = await fsp.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) {
    const stat = await fsp.stat(dir);
    if ((stat.mode & 0o777) !== PRIVATE_DIR_MODE && isOurs(stat)) await fsp.chmod(dir, PRIVATE_DIR_MODE);
    return;
  }
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    await fsp.chmod(current, PRIVATE_DIR_MODE);
    if (current === path.resolve(first) || current === path.dirname(current)) break;
  }
}
