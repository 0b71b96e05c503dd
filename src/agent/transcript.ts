/**
 * The session transcript: an append-only JSONL file per session at
 * `<TOOLGATE_HOME>/projects/<project>/<session>.jsonl`. Each message is one line, linked to the line before it,
 * written the moment the loop produces it, so a crash loses at most the line being written. Large tool results
 * are in the file as the model saw them: a reference to the persisted output, not a copy.
 */
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import type { Message } from "../core/messages.js";
import { projectKey, transcriptPath } from "../core/context.js";
import { promptText } from "./history.js";
import { changeSummaryJson, type ChangeSummary } from "./changes.js";
import { appendPrivateFileSync, ensurePrivateDirSync } from "../util/privateFiles.js";

export const TRANSCRIPT_VERSION = 1;

export type TranscriptEntry =
  | { type: "session"; uuid: string; parentUuid: null; sessionId: string; timestamp: string; cwd: string; version: number; model?: string }
  | { type: "message"; uuid: string; parentUuid: string | null; sessionId: string; timestamp: string; message: Message }
  | { type: "result"; uuid: string; parentUuid: string | null; sessionId: string; timestamp: string; reason: string; turns: number; durationMs: number }
  | { type: "repair"; uuid: string; parentUuid: string | null; sessionId: string; timestamp: string; problems: string[] }
  /** What one turn's tools changed on disk (see changes.ts); for the record, not part of the history. */
  | ({ type: "change_summary"; uuid: string; parentUuid: string | null; sessionId: string; timestamp: string; turn: number; messageId: string } & ReturnType<typeof changeSummaryJson>)
  /**
   * The model server refused the request carrying the prompt `messageUuid`: this line links to the line before
   * that prompt, so the prompt stays in the file, off the history's chain (a resumed session does not send it).
   */
  | { type: "refused"; uuid: string; parentUuid: string | null; sessionId: string; timestamp: string; messageUuid: string; reason: string }
  /** The history was compacted: the messages after this line replace everything before it. */
  | { type: "compact_boundary"; uuid: string; parentUuid: string | null; sessionId: string; timestamp: string; trigger: string; kind: string; tokensBefore: number; tokensAfter: number };

export function projectTranscriptDir(home: string, cwd: string): string {
  return path.join(home, "projects", projectKey(cwd));
}

export { transcriptPath };

export interface TranscriptWriter {
  readonly path: string;
  readonly sessionId: string;
  append(message: Message): void;
  result(result: { reason: string; turns: number; durationMs: number }): void;
  repaired(problems: string[]): void;
  /** The last message appended was a prompt the server refused: it leaves the history's chain. */
  refused(reason: string): void;
  /** A turn's change summary. */
  changes(info: { turn: number; messageId: string; summary: ChangeSummary }): void;
  /** Writes a compact_boundary line, then the new history after it. */
  compacted(info: { trigger: string; kind: string; tokensBefore: number; tokensAfter: number }, messages: readonly Message[]): void;
}

/**
 * Opens a session's transcript for appending (creating it with a `session` line when new). A resumed session
 * continues its own file, linked to the last line already there.
 */
export function openTranscript(options: { home: string; cwd: string; sessionId: string; model?: string; lastUuid?: string | null }): TranscriptWriter {
  const file = transcriptPath(options.home, options.cwd, options.sessionId);
  ensurePrivateDirSync(path.dirname(file));
  let parent: string | null = options.lastUuid ?? null;
  let lastMessage: { uuid: string; parentUuid: string | null } | undefined;
  const write = (entry: Record<string, unknown> & { uuid: string; parentUuid: string | null }) => {
    // One write of one whole line: appends of a line this size are not interleaved, and a crash cuts at most this one.
    appendPrivateFileSync(file, `${JSON.stringify(entry)}\n`);
    parent = entry.uuid;
    if (entry.type === "message") lastMessage = { uuid: entry.uuid, parentUuid: entry.parentUuid };
  };
  const base = () => ({ uuid: randomUUID(), parentUuid: parent, sessionId: options.sessionId, timestamp: new Date().toISOString() });
  if (!fs.existsSync(file) || fs.statSync(file).size === 0) {
    write({ type: "session", uuid: randomUUID(), parentUuid: null, sessionId: options.sessionId, timestamp: new Date().toISOString(), cwd: options.cwd, version: TRANSCRIPT_VERSION, ...(options.model ? { model: options.model } : {}) });
  } else if (!endsWithNewline(file)) {
    // The last line was cut by a crash: start ours on a fresh line so it stays readable.
    appendPrivateFileSync(file, "\n");
  }
  return {
    path: file,
    sessionId: options.sessionId,
    append: (message) => write({ type: "message", ...base(), message }),
    result: (result) => write({ type: "result", ...base(), ...result }),
    repaired: (problems) => write({ type: "repair", ...base(), problems }),
    refused: (reason) => {
      if (!lastMessage || lastMessage.uuid !== parent) return;
      write({ type: "refused", ...base(), parentUuid: lastMessage.parentUuid, messageUuid: lastMessage.uuid, reason });
    },
    changes: ({ turn, messageId, summary }) => write({ type: "change_summary", ...base(), turn, messageId, ...changeSummaryJson(summary) }),
    compacted: (info, messages) => {
      write({ type: "compact_boundary", ...base(), ...info });
      for (const message of messages) write({ type: "message", ...base(), message });
    },
  };
}

function endsWithNewline(file: string): boolean {
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    fs.closeSync(fd);
  }
}

export interface LoadedTranscript {
  sessionId: string;
  path: string;
  cwd?: string;
  startedAt?: string;
  messages: Message[];
  /** uuid of the last line, so appends continue the chain. */
  lastUuid: string | null;
  /** Lines that could not be read (a truncated last line is expected after a crash and reported as such). */
  problems: string[];
  turns: number;
}

/** Reads a transcript back; a malformed line (typically the last, cut by a crash) is skipped and reported, never fatal. */
export function loadTranscript(file: string): LoadedTranscript {
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  const problems: string[] = [];
  const entries: TranscriptEntry[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      const entry = JSON.parse(line) as TranscriptEntry;
      if (!entry || typeof entry !== "object" || typeof entry.uuid !== "string") throw new Error("not a transcript entry");
      entries.push(entry);
    } catch {
      const last = lines.slice(i + 1).every((l) => !l.trim());
      problems.push(last ? `line ${i + 1} was cut short (the session ended mid-write) and was skipped` : `line ${i + 1} is not a transcript entry and was skipped`);
    }
  });
  // Follow the chain back from the last entry: lines of a rewound branch (later) are not part of it.
  const byUuid = new Map(entries.map((e) => [e.uuid, e]));
  const chain: TranscriptEntry[] = [];
  const seen = new Set<string>();
  for (let entry = entries.at(-1); entry && !seen.has(entry.uuid); entry = entry.parentUuid ? byUuid.get(entry.parentUuid) : undefined) {
    seen.add(entry.uuid);
    chain.unshift(entry);
  }
  // A chain broken by a skipped line falls back to file order, so no message is lost.
  const ordered = chain[0]?.type === "session" || chain.length === entries.length ? chain : entries;
  const session = entries.find((e) => e.type === "session") as Extract<TranscriptEntry, { type: "session" }> | undefined;
  return {
    sessionId: session?.sessionId ?? path.basename(file, ".jsonl"),
    path: file,
    cwd: session?.cwd,
    startedAt: session?.timestamp,
    // After a compaction only what follows its boundary is the history; the lines before stay for the record.
    messages: ordered.slice(ordered.findLastIndex((e) => e.type === "compact_boundary") + 1).flatMap((e) => (e.type === "message" ? [e.message] : [])),
    lastUuid: entries.at(-1)?.uuid ?? null,
    problems,
    turns: ordered.filter((e) => e.type === "result").reduce((n, e) => n + (e as Extract<TranscriptEntry, { type: "result" }>).turns, 0),
  };
}

export interface SessionSummary {
  sessionId: string;
  path: string;
  startedAt?: string;
  modifiedAt: string;
  lastPrompt: string;
  turns: number;
  sizeBytes: number;
}

/** The project's transcript files, newest first, from the directory listing alone (no file is read). */
function sessionFiles(home: string, cwd: string): Array<{ sessionId: string; path: string; mtimeMs: number; size: number }> {
  const dir = projectTranscriptDir(home, cwd);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(".jsonl"));
  } catch {
    return [];
  }
  return names
    .flatMap((name) => {
      const file = path.join(dir, name);
      try {
        const stat = fs.statSync(file);
        return [{ sessionId: name.slice(0, -".jsonl".length), path: file, mtimeMs: stat.mtimeMs, size: stat.size }];
      } catch {
        return [];
      }
    })
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/** The project's sessions, newest first, each read for its summary. */
export function listSessions(home: string, cwd: string): SessionSummary[] {
  return sessionFiles(home, cwd).flatMap((file): SessionSummary[] => {
    try {
      const loaded = loadTranscript(file.path);
      const lastPrompt = [...loaded.messages].reverse().map(promptText).find((t) => t !== undefined) ?? "";
      return [{ sessionId: loaded.sessionId, path: file.path, startedAt: loaded.startedAt, modifiedAt: new Date(file.mtimeMs).toISOString(), lastPrompt, turns: loaded.turns, sizeBytes: file.size }];
    } catch {
      return [];
    }
  });
}

export class SessionNotFoundError extends Error {}

/**
 * `--resume ID-or-prefix` / `--continue`: the one matching session of this project (by file name, without
 * reading any transcript), or an error saying what exists.
 */
export function findSession(home: string, cwd: string, idOrPrefix: string | undefined): { sessionId: string; path: string } {
  const sessions = sessionFiles(home, cwd);
  const where = projectTranscriptDir(home, cwd);
  if (sessions.length === 0) throw new SessionNotFoundError(`no sessions for this project yet (looked in ${where})`);
  if (idOrPrefix === undefined) return sessions[0];
  const matches = sessions.filter((s) => s.sessionId.startsWith(idOrPrefix));
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) throw new SessionNotFoundError(`no session of this project starts with ${JSON.stringify(idOrPrefix)} (looked in ${where}; run toolgate sessions to list them)`);
  throw new SessionNotFoundError(`${matches.length} sessions start with ${JSON.stringify(idOrPrefix)}: ${matches.map((s) => s.sessionId).join(", ")}; give more of the id`);
}

/**
 * Deletes this project's sessions untouched for more than `days`: the transcript and the session's directory
 * (checkpoints, persisted results). Returns the ids removed. A file that cannot be removed is left alone.
 */
export function pruneSessions(home: string, cwd: string, days: number, keep?: string): string[] {
  const cutoff = Date.now() - days * 86_400_000;
  const removed: string[] = [];
  for (const file of sessionFiles(home, cwd)) {
    if (file.sessionId === keep || file.mtimeMs >= cutoff) continue;
    try {
      fs.rmSync(path.join(path.dirname(file.path), file.sessionId), { recursive: true, force: true });
      fs.rmSync(file.path, { force: true });
      removed.push(file.sessionId);
    } catch {
      // in use or not ours to remove: try again next time
    }
  }
  return removed;
}
