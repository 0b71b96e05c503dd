import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { codeUnitBytes, bomLength, type TextEncoding } from "../files/encoding.js";
import { readFull, type ReadSource } from "./source.js";
import type { LineIndex } from "./window.js";
import { ensurePrivateDirSync } from "../../util/privateFiles.js";

/**
 * Line indexes of large files, kept in memory for this process and on disk under the data home for later
 * sessions. An index belongs to one version of one file: device, inode, size and mtime. As for staleness
 * of files this size, an unchanged size and mtime is trusted to mean unchanged content.
 */

const MEMORY_ENTRIES = 16;
/** Index files kept on disk; the least recently written go first. */
const DISK_ENTRIES = 64;
/** Checkpoints written per index (one per 4 MiB chunk would grow without bound); thinned evenly above this. */
const MAX_STORED_CHECKPOINTS = 4096;
const MAX_INDEX_FILE_BYTES = 512 * 1024;
/** Checkpoints compared with the file's bytes before a stored index is trusted. */
const SPOT_CHECKS = 8;
const FORMAT = 1;

export interface FileVersion {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

const memory = new Map<string, LineIndex>();

function versionKey(v: FileVersion): string {
  return `${v.dev}:${v.ino}:${v.size}:${v.mtimeMs}`;
}

function indexDir(home: string): string {
  return path.join(home, "cache", "line-index");
}

function indexFile(home: string, v: FileVersion): string {
  return path.join(indexDir(home), `${versionKey(v).replaceAll(":", "-")}.json`);
}

function rememberInMemory(key: string, index: LineIndex): void {
  memory.delete(key);
  memory.set(key, index);
  while (memory.size > MEMORY_ENTRIES) memory.delete(memory.keys().next().value as string);
}

/** Every other checkpoint until few enough are left; the first (line 1) always stays. */
function thinned(checkpoints: LineIndex["checkpoints"]): LineIndex["checkpoints"] {
  let kept = checkpoints;
  while (kept.length > MAX_STORED_CHECKPOINTS) kept = kept.filter((_, i) => i % 2 === 0);
  return kept;
}

/** A stored index, if it is well formed and describes exactly this file version; anything else is ignored. */
function parseStored(text: string, v: FileVersion): LineIndex | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof data !== "object" || data === null) return undefined;
  const d = data as Record<string, unknown>;
  if (d.format !== FORMAT || d.dev !== v.dev || d.ino !== v.ino || d.size !== v.size || d.mtimeMs !== v.mtimeMs) return undefined;
  const { totalLines, contentHash, checkpoints } = d;
  if (!Number.isSafeInteger(totalLines) || (totalLines as number) < 0) return undefined;
  if (contentHash !== undefined && (typeof contentHash !== "string" || !/^[0-9a-f]{64}$/.test(contentHash))) return undefined;
  if (!Array.isArray(checkpoints) || checkpoints.length === 0) return undefined;
  let previous = { line: 0, byte: -1 };
  for (const c of checkpoints as unknown[]) {
    if (typeof c !== "object" || c === null) return undefined;
    const { line, byte } = c as Record<string, unknown>;
    if (!Number.isSafeInteger(line) || !Number.isSafeInteger(byte)) return undefined;
    if ((line as number) <= previous.line || (byte as number) <= previous.byte || (byte as number) > v.size || (line as number) > (totalLines as number) + 1) return undefined;
    previous = { line: line as number, byte: byte as number };
  }
  if ((checkpoints[0] as { line: number }).line !== 1) return undefined;
  return { totalLines: totalLines as number, contentHash: contentHash as string | undefined, checkpoints: checkpoints as LineIndex["checkpoints"] };
}

/** Whether the bytes just before a few checkpoints are newlines, as they must be: catches an index of some other file. */
async function matchesFile(handle: ReadSource, index: LineIndex, encoding: TextEncoding): Promise<boolean> {
  const unit = codeUnitBytes(encoding);
  const newline = encoding === "utf16le" ? [0x0a, 0x00] : encoding === "utf16be" ? [0x00, 0x0a] : [0x0a];
  const inner = index.checkpoints.filter((c) => c.byte > bomLength(encoding));
  const step = Math.max(1, Math.ceil(inner.length / SPOT_CHECKS));
  const probes: Array<Promise<boolean>> = [];
  for (let i = inner.length - 1; i >= 0; i -= step) {
    const probe = Buffer.alloc(unit);
    // In parallel: each read is a thread-pool round trip.
    probes.push(readFull(handle, probe, inner[i].byte - unit).then((n) => n === unit && newline.every((b, k) => probe[k] === b)));
  }
  return (await Promise.all(probes)).every(Boolean);
}

/** The index of this file version from memory, else from disk (checked against the file), else undefined. */
export async function loadLineIndex(home: string, v: FileVersion, handle: ReadSource, encoding: TextEncoding): Promise<LineIndex | undefined> {
  const key = versionKey(v);
  const cached = memory.get(key);
  if (cached) return cached;
  let stored: LineIndex | undefined;
  try {
    const file = indexFile(home, v);
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!stat?.isFile() || stat.size > MAX_INDEX_FILE_BYTES) return undefined;
    stored = parseStored(fs.readFileSync(file, "utf8"), v);
  } catch {
    return undefined;
  }
  if (!stored || !(await matchesFile(handle, stored, encoding))) return undefined;
  rememberInMemory(key, stored);
  return stored;
}

/** Keep an index for later calls and sessions. Disk trouble only costs the next session a full pass. */
export function saveLineIndex(home: string, v: FileVersion, index: LineIndex): void {
  rememberInMemory(versionKey(v), index);
  const dir = indexDir(home);
  const target = indexFile(home, v);
  const temp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    ensurePrivateDirSync(dir);
    const body = JSON.stringify({
      format: FORMAT,
      // The version fields alone: `v` is often a whole fs.Stats.
      dev: v.dev,
      ino: v.ino,
      size: v.size,
      mtimeMs: v.mtimeMs,
      totalLines: index.totalLines,
      contentHash: index.contentHash,
      checkpoints: thinned(index.checkpoints),
    });
    // A fresh file (wx) renamed over the old one: readers see the old index or the new one, never half of one.
    fs.writeFileSync(temp, body, { mode: 0o600, flag: "wx" });
    fs.renameSync(temp, target);
    pruneIndexes(dir);
  } catch {
    fs.rmSync(temp, { force: true });
  }
}

/** Temp files older than this were left by a process that died mid-write. */
const ORPHAN_TEMP_MS = 60 * 60 * 1000;

function pruneIndexes(dir: string): void {
  const now = Date.now();
  const entries: Array<{ file: string; mtimeMs: number }> = [];
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    const mtimeMs = fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    if (name.endsWith(".json")) entries.push({ file, mtimeMs });
    else if (name.endsWith(".tmp") && now - mtimeMs > ORPHAN_TEMP_MS) fs.rmSync(file, { force: true });
  }
  if (entries.length <= DISK_ENTRIES) return;
  entries.sort((a, b) => a.mtimeMs - b.mtimeMs);
  for (const { file } of entries.slice(0, entries.length - DISK_ENTRIES)) fs.rmSync(file, { force: true });
}

/** Forget the in-memory copies (tests of the on-disk store). */
export function clearLineIndexMemory(): void {
  memory.clear();
}
