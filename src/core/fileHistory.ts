import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { writeFileAtomicSync } from "../util/atomicWrite.js";
import { ensurePrivateDirSync, PRIVATE_FILE_MODE, writePrivateFileSync } from "../util/privateFiles.js";

/** One file's state before a message first changed it. `backup` null = the file did not exist. */
interface FileBackup {
  filePath: string;
  backup: string | null;
  mode?: number;
}

interface Snapshot {
  messageId: string;
  files: Map<string, FileBackup>;
  /** Files the message changed without a saved copy of their previous content (a snapshot skipped them), with why. */
  uncovered: Map<string, string>;
}

export interface RewindResult {
  messageId: string;
  restored: string[];
  deleted: string[];
  errors: Array<{ filePath: string; message: string }>;
}

/**
 * Checkpoints of files before the tools change them, keyed by the assistant message that made the change.
 * Synchronous on purpose: writers call `checkpoint` inside their critical section.
 */
export interface FileHistory {
  /**
   * Save the file's current bytes (or its absence) unless `messageId` already saved this file. `source`, from a
   * writer that opened and verified the file: `filePath` is then its real path, its bytes are read through
   * `source` (a path to the verified descriptor) and null means the writer found no file; without it the
   * path is resolved and read here.
   */
  checkpoint(filePath: string, messageId: string, source?: string | null): void;
  /**
   * Save a file's state before `messageId` changed it from a copy made earlier (a workspace snapshot's blob and
   * the file's mode; null: it did not exist), unless the message already saved this file.
   */
  checkpointSaved(filePath: string, messageId: string, saved: { blobPath: string; mode: number } | null): void;
  /** Record that `messageId` changed a file whose previous content was not kept: rewind reports it, not restores it. */
  markUncovered(filePath: string, messageId: string, reason: string): void;
  /** Files a message changed that its checkpoints cannot restore, with why. */
  uncoveredFiles(messageId: string): Array<{ filePath: string; reason: string }>;
  /** Restore every file changed by `messageId` and later messages to its state before them. */
  rewind(messageId: string): RewindResult;
  /** Message ids that have checkpoints, oldest first. */
  messageIds(): string[];
  /** Files a message changed. */
  changedFiles(messageId: string): string[];
  /**
   * What a message's checkpoint saved of a file (a path `changedFiles` returned): its bytes and mode, `null`
   * when the file did not exist yet, undefined when that message did not change it or its backup is unreadable.
   */
  checkpointContent(messageId: string, filePath: string): { bytes: Buffer; mode?: number } | null | undefined;
}

export class UnknownCheckpointError extends Error {
  constructor(messageId: string, known: string[]) {
    super(
      `No file changes were recorded for message ${messageId}.` +
        (known.length ? ` Messages with checkpoints: ${known.join(", ")}.` : " No checkpoints exist in this session."),
    );
    this.name = "UnknownCheckpointError";
  }
}

function resolveTarget(filePath: string): string {
  try {
    return fs.realpathSync(filePath);
  } catch {
    return path.resolve(filePath);
  }
}

/**
 * The checkpoints a previous process of the same session left (a resumed session rewinds like a live one).
 * Entries whose backup file is gone are left out: restoring them could not be done faithfully.
 */
function loadManifest(historyDir: string): { snapshots: Snapshot[]; counter: number } {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(path.join(historyDir, "manifest.json"), "utf8"));
  } catch {
    return { snapshots: [], counter: 0 };
  }
  const snapshots: Snapshot[] = [];
  let counter = 0;
  for (const item of Array.isArray(raw) ? raw : []) {
    if (!item || typeof item.messageId !== "string" || !Array.isArray(item.files)) continue;
    const files = new Map<string, FileBackup>();
    const uncovered = new Map<string, string>();
    for (const file of Array.isArray(item.uncovered) ? item.uncovered : []) {
      if (file && typeof file.filePath === "string" && typeof file.reason === "string") uncovered.set(file.filePath, file.reason);
    }
    for (const file of item.files as FileBackup[]) {
      if (!file || typeof file.filePath !== "string") continue;
      if (file.backup !== null && (typeof file.backup !== "string" || !fs.existsSync(file.backup))) continue;
      files.set(file.filePath, { filePath: file.filePath, backup: file.backup, ...(typeof file.mode === "number" ? { mode: file.mode } : {}) });
      const n = file.backup ? Number.parseInt(path.basename(file.backup), 10) : 0;
      if (Number.isFinite(n)) counter = Math.max(counter, n);
    }
    snapshots.push({ messageId: item.messageId, files, uncovered });
  }
  return { snapshots, counter };
}

export function createFileHistory(historyDir: string): FileHistory {
  const loaded = loadManifest(historyDir);
  const snapshots: Snapshot[] = loaded.snapshots;
  let counter = loaded.counter;

  const snapshotFor = (messageId: string): Snapshot => {
    let snap = snapshots.find((s) => s.messageId === messageId);
    if (!snap) {
      snap = { messageId, files: new Map(), uncovered: new Map() };
      snapshots.push(snap);
    }
    return snap;
  };

  const writeManifest = () => {
    const manifest = snapshots.map((s) => ({
      messageId: s.messageId,
      files: [...s.files.values()],
      ...(s.uncovered.size ? { uncovered: [...s.uncovered].map(([filePath, reason]) => ({ filePath, reason })) } : {}),
    }));
    ensurePrivateDirSync(historyDir);
    writePrivateFileSync(path.join(historyDir, "manifest.json"), JSON.stringify(manifest, null, 2));
  };

  const copyBackup = (target: string, from: string): string => {
    ensurePrivateDirSync(historyDir);
    const name = `${String(++counter).padStart(5, "0")}-${createHash("sha1").update(target).digest("hex").slice(0, 12)}.bak`;
    const backup = path.join(historyDir, name);
    fs.copyFileSync(from, backup, fs.constants.COPYFILE_FICLONE);
    // The copy has the original's mode; that is in the manifest, and the backup is for our eyes only.
    fs.chmodSync(backup, PRIVATE_FILE_MODE);
    return backup;
  };

  return {
    checkpointSaved(filePath, messageId, saved) {
      const snap = snapshotFor(messageId);
      if (snap.files.has(filePath) || snap.uncovered.has(filePath)) return;
      snap.files.set(filePath, saved ? { filePath, backup: copyBackup(filePath, saved.blobPath), mode: saved.mode } : { filePath, backup: null });
      writeManifest();
    },

    markUncovered(filePath, messageId, reason) {
      const snap = snapshotFor(messageId);
      if (snap.files.has(filePath) || snap.uncovered.has(filePath)) return;
      snap.uncovered.set(filePath, reason);
      writeManifest();
    },

    uncoveredFiles: (messageId) => [...(snapshots.find((s) => s.messageId === messageId)?.uncovered ?? [])].map(([filePath, reason]) => ({ filePath, reason })),

    checkpoint(filePath, messageId, source) {
      const target = source === undefined ? resolveTarget(filePath) : filePath;
      const from = source ?? target;
      const snap = snapshotFor(messageId);
      if (snap.files.has(target) || snap.uncovered.has(target)) return;
      let entry: FileBackup;
      let stat: fs.Stats | undefined;
      try {
        if (source !== null) stat = fs.statSync(from);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
      if (stat) {
        entry = { filePath: target, backup: copyBackup(target, from), mode: stat.mode & 0o7777 };
      } else {
        entry = { filePath: target, backup: null };
      }
      snap.files.set(target, entry);
      writeManifest();
    },

    rewind(messageId) {
      const index = snapshots.findIndex((s) => s.messageId === messageId);
      if (index < 0) throw new UnknownCheckpointError(messageId, snapshots.map((s) => s.messageId));
      // A file whose earliest change in the range was not kept is left as it is: a later checkpoint of it
      // holds a state after that change, and restoring it would pass a partial undo off as a complete one.
      const earliest = new Map<string, FileBackup | { filePath: string; uncovered: string }>();
      for (const snap of snapshots.slice(index)) {
        for (const [file, backup] of snap.files) if (!earliest.has(file)) earliest.set(file, backup);
        for (const [file, reason] of snap.uncovered) if (!earliest.has(file)) earliest.set(file, { filePath: file, uncovered: reason });
      }
      const result: RewindResult = { messageId, restored: [], deleted: [], errors: [] };
      for (const item of earliest.values()) {
        if ("uncovered" in item) {
          result.errors.push({ filePath: item.filePath, message: `not restored: its content before the change was not kept (${item.uncovered})` });
          continue;
        }
        const { filePath, backup, mode } = item;
        try {
          if (backup === null) {
            fs.rmSync(filePath, { force: true });
            result.deleted.push(filePath);
          } else {
            fs.mkdirSync(path.dirname(filePath), { recursive: true });
            writeFileAtomicSync(filePath, fs.readFileSync(backup));
            if (mode !== undefined) fs.chmodSync(filePath, mode);
            result.restored.push(filePath);
          }
        } catch (err) {
          result.errors.push({ filePath, message: (err as Error).message });
        }
      }
      snapshots.splice(index);
      writeManifest();
      return result;
    },

    messageIds: () => snapshots.map((s) => s.messageId),
    changedFiles: (messageId) => [...(snapshots.find((s) => s.messageId === messageId)?.files.keys() ?? [])],
    checkpointContent(messageId, filePath) {
      const entry = snapshots.find((s) => s.messageId === messageId)?.files.get(filePath);
      if (!entry) return undefined;
      if (entry.backup === null) return null;
      try {
        return { bytes: fs.readFileSync(entry.backup), ...(entry.mode === undefined ? {} : { mode: entry.mode }) };
      } catch {
        return undefined;
      }
    },
  };
}
