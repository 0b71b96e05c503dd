/**
 * What the tools changed, from the checkpoints (before) and the files on disk (after): per file the lines added
 * and removed, created and deleted files marked, binary files counted without lines. Printed the way
 * `git diff --stat --summary` prints it, so it reads the same with or without git.
 */
import fs from "node:fs";
import path from "node:path";
import { structuredPatch, type StructuredPatchHunk } from "diff";
import type { FileHistory } from "../core/fileHistory.js";

export interface FileChange {
  /** Relative to the session's directory when inside it, else absolute. */
  path: string;
  absPath: string;
  status: "created" | "modified" | "deleted";
  added: number;
  removed: number;
  /** Contains a NUL byte (as git judges it): counted as changed, without lines. */
  binary: boolean;
  /** Too large, or too different, to count lines in reasonable time: counted as changed, without lines. */
  uncounted?: true;
  /** Byte sizes before and after (git prints them for binary files). */
  bytesBefore: number;
  bytesAfter: number;
  /** File mode bits before (for a deleted file) or after (for a created one), for the summary's mode line. */
  mode?: number;
}

export interface ChangeSummary {
  files: FileChange[];
  added: number;
  removed: number;
}

export interface FileDiff {
  change: FileChange;
  hunks: StructuredPatchHunk[];
}

/** Files bigger than this are not line-diffed (the diff would cost more than the summary is worth). */
const MAX_DIFF_BYTES = 8 * 1024 * 1024;
/** A diff that takes longer than this is given up; the file still counts as changed. */
const DIFF_TIMEOUT_MS = 2_000;
/** git looks for a NUL in the first 8000 bytes. */
const BINARY_PROBE_BYTES = 8000;

function isBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, BINARY_PROBE_BYTES).includes(0);
}

function readNow(absPath: string): { bytes: Buffer; mode: number } | null {
  try {
    const stat = fs.statSync(absPath);
    if (!stat.isFile()) return null;
    return { bytes: fs.readFileSync(absPath), mode: stat.mode & 0o7777 };
  } catch {
    return null;
  }
}

function inside(absPath: string, dir: string): string | undefined {
  const relative = path.relative(dir, absPath);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative.split(path.sep).join("/") : undefined;
}

/** Checkpoints key files by their real path, so a project reached through a symlink is compared by its real path too. */
export function displayPath(absPath: string, cwd: string): string {
  let real: string | undefined;
  try {
    real = fs.realpathSync(cwd);
  } catch {
    real = undefined;
  }
  return inside(absPath, cwd) ?? (real === undefined ? undefined : inside(absPath, real)) ?? absPath;
}

/**
 * One file's change from `before` (null: it did not exist) to what is on disk now, with the hunks of its
 * unified diff; undefined when nothing changed.
 */
export function diffFile(absPath: string, before: { bytes: Buffer; mode?: number } | null, cwd: string, context = 3): FileDiff | undefined {
  const after = readNow(absPath);
  if (!before && !after) return undefined;
  if (before && after && before.bytes.equals(after.bytes)) return undefined;
  const oldBytes = before?.bytes ?? Buffer.alloc(0);
  const newBytes = after?.bytes ?? Buffer.alloc(0);
  const change: FileChange = {
    path: displayPath(absPath, cwd),
    absPath,
    status: !before ? "created" : !after ? "deleted" : "modified",
    added: 0,
    removed: 0,
    binary: isBinary(oldBytes) || isBinary(newBytes),
    bytesBefore: oldBytes.length,
    bytesAfter: newBytes.length,
  };
  const mode = !before ? after?.mode : !after ? before.mode : undefined;
  if (mode !== undefined) change.mode = mode;
  if (change.binary) return { change, hunks: [] };
  if (oldBytes.length > MAX_DIFF_BYTES || newBytes.length > MAX_DIFF_BYTES) return { change: { ...change, uncounted: true }, hunks: [] };
  const hunks = diffLinesTrimmed(oldBytes.toString("utf8"), newBytes.toString("utf8"), context);
  if (!hunks) return { change: { ...change, uncounted: true }, hunks: [] };
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) change.added++;
      else if (line.startsWith("-")) change.removed++;
    }
  }
  return { change, hunks };
}

/** Lines with their line ends, so joining them gives the text back. */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
    lines.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/**
 * The hunks between two texts, diffing only what lies between their common first and last lines (as git's
 * xdiff does): an edit in a long file costs a scan, not a diff of the whole file. Undefined when it timed out.
 */
function diffLinesTrimmed(oldText: string, newText: string, context: number): StructuredPatchHunk[] | undefined {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  // Keep `context` equal lines on each side, so the hunks carry the same context a whole-file diff would.
  const skipHead = Math.max(0, head - context);
  const skipTail = Math.max(0, tail - context);
  const patch = structuredPatch("a", "b", a.slice(skipHead, a.length - skipTail).join(""), b.slice(skipHead, b.length - skipTail).join(""), undefined, undefined, { context, timeout: DIFF_TIMEOUT_MS });
  if (!patch) return undefined;
  return patch.hunks.map((hunk) => ({ ...hunk, oldStart: hunk.oldStart + skipHead, newStart: hunk.newStart + skipHead }));
}

function summarize(files: FileChange[]): ChangeSummary {
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, added: files.reduce((n, f) => n + f.added, 0), removed: files.reduce((n, f) => n + f.removed, 0) };
}

/** What one assistant message's tool calls changed: its checkpoints against the files now. */
export function summarizeMessageChanges(history: FileHistory, messageId: string, cwd: string): ChangeSummary {
  const files = history.changedFiles(messageId).flatMap((file) => {
    const before = history.checkpointContent(messageId, file);
    if (before === undefined) return [];
    const diff = diffFile(file, before, cwd, 0);
    return diff ? [diff.change] : [];
  });
  return summarize(files);
}

/** Files the session changed that its checkpoints do not cover (a snapshot skipped them), with why; paths as displayed. */
export function uncoveredChanges(history: FileHistory, cwd: string): Array<{ path: string; reason: string }> {
  const seen = new Map<string, string>();
  for (const messageId of history.messageIds()) {
    for (const { filePath, reason } of history.uncoveredFiles(messageId)) if (!seen.has(filePath)) seen.set(filePath, reason);
  }
  return [...seen].map(([filePath, reason]) => ({ path: displayPath(filePath, cwd), reason })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Every file the session changed, from its first checkpoint in the session to now, with its hunks. */
export function diffSession(history: FileHistory, cwd: string): { summary: ChangeSummary; diffs: FileDiff[] } {
  const first = new Map<string, { bytes: Buffer; mode?: number } | null>();
  for (const messageId of history.messageIds()) {
    for (const file of history.changedFiles(messageId)) {
      if (first.has(file)) continue;
      const before = history.checkpointContent(messageId, file);
      if (before !== undefined) first.set(file, before);
    }
  }
  const diffs = [...first].flatMap(([file, before]) => {
    const diff = diffFile(file, before, cwd);
    return diff ? [diff] : [];
  });
  const summary = summarize(diffs.map((d) => d.change));
  const order = new Map(summary.files.map((f, i) => [f, i]));
  diffs.sort((a, b) => order.get(a.change)! - order.get(b.change)!);
  return { summary, diffs };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function gitMode(mode: number | undefined): string {
  return (mode ?? 0) & 0o111 ? "100755" : "100644";
}

/** git's scale_linear: a non-zero count never scales to zero. */
function scale(count: number, width: number, max: number): number {
  return count === 0 ? 0 : 1 + Math.floor((count * (width - 1)) / max);
}

/**
 * The summary as `git diff --stat --summary` prints it for a terminal `width` columns wide: one line per file
 * with a +/- graph (binary files as `Bin OLD -> NEW bytes`), the totals, then `create mode` / `delete mode` lines.
 */
export function formatStat(summary: ChangeSummary, width = 80): string {
  if (summary.files.length === 0) return " 0 files changed\n";
  let maxLength = 0;
  let maxChange = 0;
  let numberWidth = 0;
  let binWidth = 0;
  for (const file of summary.files) {
    maxLength = Math.max(maxLength, file.path.length);
    if (file.binary || file.uncounted) {
      binWidth = Math.max(binWidth, 14 + String(file.bytesAfter).length + String(file.bytesBefore).length);
      numberWidth = 3;
    } else {
      maxChange = Math.max(maxChange, file.added + file.removed);
    }
  }
  numberWidth = Math.max(numberWidth, String(maxChange).length);
  width = Math.max(width, 16 + 6 + numberWidth);
  let graphWidth = maxChange + 4 > binWidth ? maxChange : binWidth - 4;
  let nameWidth = maxLength;
  if (nameWidth + numberWidth + 6 + graphWidth > width) {
    if (graphWidth > Math.floor((width * 3) / 8) - numberWidth - 6) graphWidth = Math.max(6, Math.floor((width * 3) / 8) - numberWidth - 6);
    if (nameWidth > width - numberWidth - 6 - graphWidth) nameWidth = width - numberWidth - 6 - graphWidth;
    else graphWidth = width - numberWidth - 6 - nameWidth;
  }

  const lines: string[] = [];
  for (const file of summary.files) {
    let name = file.path;
    let prefix = "";
    let room = nameWidth;
    if (name.length > nameWidth) {
      prefix = "...";
      room = Math.max(0, nameWidth - 3);
      name = name.slice(name.length - room);
      const slash = name.indexOf("/");
      if (slash >= 0) name = name.slice(slash);
    }
    const padded = `${prefix}${name}${" ".repeat(Math.max(0, room - name.length))}`;
    if (file.binary || file.uncounted) {
      lines.push(` ${padded} | ${"Bin".padStart(numberWidth)} ${file.bytesBefore} -> ${file.bytesAfter} bytes`);
      continue;
    }
    const total = file.added + file.removed;
    let add = file.added;
    let del = file.removed;
    if (graphWidth <= maxChange) {
      let scaled = scale(total, graphWidth, maxChange);
      if (scaled < 2 && add && del) scaled = 2;
      if (add < del) {
        add = scale(add, graphWidth, maxChange);
        del = scaled - add;
      } else {
        del = scale(del, graphWidth, maxChange);
        add = scaled - del;
      }
    }
    lines.push(` ${padded} | ${String(total).padStart(numberWidth)}${total ? " " : ""}${"+".repeat(add)}${"-".repeat(del)}`);
  }
  let totals = ` ${plural(summary.files.length, "file")} changed`;
  if (summary.added || !summary.removed) totals += `, ${summary.added} insertion${summary.added === 1 ? "" : "s"}(+)`;
  if (summary.removed || !summary.added) totals += `, ${summary.removed} deletion${summary.removed === 1 ? "" : "s"}(-)`;
  lines.push(totals);
  for (const file of summary.files) {
    if (file.status === "created") lines.push(` create mode ${gitMode(file.mode)} ${file.path}`);
    if (file.status === "deleted") lines.push(` delete mode ${gitMode(file.mode)} ${file.path}`);
  }
  return `${lines.join("\n")}\n`;
}

/** One file's unified diff, with git's headers (`/dev/null` for a created or deleted side). */
export function formatFileDiff({ change, hunks }: FileDiff): string {
  const name = change.path;
  const out = [`diff --git a/${name} b/${name}`];
  if (change.status === "created") out.push(`new file mode ${gitMode(change.mode)}`);
  if (change.status === "deleted") out.push(`deleted file mode ${gitMode(change.mode)}`);
  if (change.binary || change.uncounted) {
    out.push(`${change.binary ? "Binary files" : "Files"} ${change.status === "created" ? "/dev/null" : `a/${name}`} and ${change.status === "deleted" ? "/dev/null" : `b/${name}`} differ`);
    return `${out.join("\n")}\n`;
  }
  out.push(`--- ${change.status === "created" ? "/dev/null" : `a/${name}`}`, `+++ ${change.status === "deleted" ? "/dev/null" : `b/${name}`}`);
  for (const hunk of hunks) {
    const range = (start: number, count: number) => (count === 1 ? `${start}` : `${start},${count}`);
    out.push(`@@ -${range(hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart, hunk.oldLines)} +${range(hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart, hunk.newLines)} @@`, ...hunk.lines);
  }
  return `${out.join("\n")}\n`;
}

/** The summary as JSON for transcripts, stream-json and `toolgate diff --json`: per file and totals. */
export function changeSummaryJson(summary: ChangeSummary) {
  return {
    files: summary.files.map((f) => ({
      path: f.path,
      status: f.status,
      added: f.added,
      removed: f.removed,
      ...(f.binary ? { binary: true } : {}),
      ...(f.uncounted ? { uncounted: true } : {}),
    })),
    totals: { files: summary.files.length, added: summary.added, removed: summary.removed },
  };
}
