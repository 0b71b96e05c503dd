/**
 * The folders the person has trusted, kept in toolgate's data home (`trusted-folders.json`, 0600). A folder is
 * stored by its real path; trusting it trusts every folder under it. Nothing in a project can write here
 * through toolgate's own settings: only `toolgate trust add`, the UI's trust question, and this module do.
 */
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";

export const TRUST_FILE = "trusted-folders.json";

export interface TrustedFolder {
  /** The real path (symlinks resolved). */
  path: string;
  /** ISO time it was trusted. */
  trustedAt: string;
}

export interface TrustStore {
  folders: TrustedFolder[];
  /** The file exists but cannot be used: then nothing is trusted by it (fail closed). */
  error?: string;
}

export function trustStorePath(home: string): string {
  return path.join(home, TRUST_FILE);
}

/** The real path of a folder; a folder that does not exist (yet) keeps its absolute path. */
export function realFolder(dir: string): string {
  const absolute = path.resolve(dir);
  try {
    return fs.realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}

/** `dir` is `parent` or inside it (both real, absolute paths); a sibling named `..x` is not inside. */
export function isWithin(dir: string, parent: string): boolean {
  const relative = path.relative(parent, dir);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

export function readTrustStore(home: string): TrustStore {
  const file = trustStorePath(home);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { folders: [] };
    return { folders: [], error: `${file} cannot be read (${code ?? (err as Error).message}); no folder is trusted by it` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { folders: [], error: `${file} is not valid JSON; no folder is trusted by it (fix or delete it, then trust folders again)` };
  }
  const list = (parsed as { folders?: unknown })?.folders;
  if (!Array.isArray(list)) return { folders: [], error: `${file} has no "folders" list; no folder is trusted by it` };
  const folders: TrustedFolder[] = [];
  for (const entry of list) {
    const folder = entry as Partial<TrustedFolder>;
    if (typeof folder?.path !== "string" || !path.isAbsolute(folder.path)) continue;
    folders.push({ path: path.normalize(folder.path), trustedAt: typeof folder.trustedAt === "string" ? folder.trustedAt : "" });
  }
  return { folders };
}

function writeTrustStore(home: string, folders: readonly TrustedFolder[]): void {
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const file = trustStorePath(home);
  const temp = path.join(home, `.${TRUST_FILE}.${process.pid}.${randomUUID()}.tmp`);
  try {
    fs.writeFileSync(temp, `${JSON.stringify({ version: 1, folders }, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    fs.chmodSync(temp, 0o600);
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}

/** The stored folder that trusts `dir` (it or a parent), if any. */
export function findTrustingFolder(store: TrustStore, dir: string): TrustedFolder | undefined {
  const real = realFolder(dir);
  return store.folders.find((folder) => isWithin(real, folder.path));
}

/** Trust `dir` (by its real path). Returns false when it was already stored. */
export function addTrustedFolder(home: string, dir: string, now: Date = new Date()): { folder: string; added: boolean } {
  const store = readTrustStore(home);
  if (store.error) throw new Error(store.error);
  const folder = realFolder(dir);
  if (store.folders.some((f) => f.path === folder)) return { folder, added: false };
  writeTrustStore(home, [...store.folders, { path: folder, trustedAt: now.toISOString() }]);
  return { folder, added: true };
}

/** Stop trusting `dir` (its real path, or the path as stored). Returns false when it was not stored. */
export function removeTrustedFolder(home: string, dir: string): { folder: string; removed: boolean } {
  const store = readTrustStore(home);
  if (store.error) throw new Error(store.error);
  const candidates = new Set([realFolder(dir), path.resolve(dir)]);
  const kept = store.folders.filter((f) => !candidates.has(f.path));
  const folder = realFolder(dir);
  if (kept.length === store.folders.length) return { folder, removed: false };
  writeTrustStore(home, kept);
  return { folder, removed: true };
}
