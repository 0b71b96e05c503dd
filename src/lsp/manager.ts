/**
 * The session's language servers: which server a file belongs to (by extension, one process per language per
 * project root, started on first use), the after-edit check (a FileWriteObserver) and what the Diagnostics
 * tool asks. Trouble with a server is told to the model once, with the next result for one of its files.
 */
import { withoutCredentials } from "../util/childEnv.js";
import fs from "node:fs";
import path from "node:path";
import type { Diagnostic } from "vscode-languageserver-protocol";
import type { FileWriteObserver, ToolUseContext } from "../core/Tool.js";
import { displayPath } from "../core/paths.js";
import { countBySeverity, formatDiagnosticList, isProblem, newProblems } from "./format.js";
import { resolveServerCommand, skippedProgramsNote } from "./command.js";
import { LspServer } from "./server.js";
import { DEFAULT_START_TIMEOUT_MS, DEFAULT_WAIT_MS, type LspServerSettings } from "./settingsSection.js";

/** Larger files are not sent to a server. */
export const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

export interface LspManagerOptions {
  servers: Record<string, LspServerSettings>;
  /** The session's directory: the root when no rootPattern matches, and where node_modules/.bin is looked for. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Whether the project folder is trusted; default false: no program is taken from inside the project. */
  trusted?: boolean;
}

export interface LspServerStatus {
  name: string;
  /** Absent for a configured server that was not needed yet. */
  root?: string;
  state: "not started" | LspServer["state"];
  command: string;
  pid?: number;
  starts: number;
  lastFailure?: string;
}

export type FileDiagnosticsResult =
  | { kind: "ok"; server: string; diagnostics: Diagnostic[]; fresh: boolean }
  | { kind: "unhandled" }
  | { kind: "missing" }
  | { kind: "unavailable"; server: string; reason: string };

export interface LspManager {
  /** Baseline before a write, new errors and warnings after it. */
  readonly observer: FileWriteObserver;
  readonly servers: Readonly<Record<string, LspServerSettings>>;
  /** A file's current diagnostics, the document opened (or updated from disk) in its server first. */
  fileDiagnostics(absPath: string): Promise<FileDiagnosticsResult>;
  /** The last diagnostics of every document a server has open. */
  openDocuments(): { absPath: string; server: string; diagnostics?: Diagnostic[] }[];
  status(): LspServerStatus[];
  /** Notes about server trouble not yet told to the model. */
  takeNotices(): string[];
  /** Shut every server down; resolves when no server process is left. */
  close(): Promise<void>;
}

function findRoot(absPath: string, patterns: readonly string[] | undefined, fallback: string): string {
  if (!patterns?.length) return fallback;
  for (let dir = path.dirname(absPath); ; dir = path.dirname(dir)) {
    if (patterns.some((p) => fs.existsSync(path.join(dir, p)))) return dir;
    if (path.dirname(dir) === dir) return fallback;
  }
}

/** The file's text when a server may see it: an existing regular file of a sane size. */
function readDocument(absPath: string): string | undefined {
  try {
    const stat = fs.statSync(absPath);
    if (!stat.isFile() || stat.size > MAX_DOCUMENT_BYTES) return undefined;
    return fs.readFileSync(absPath, "utf8");
  } catch {
    return undefined;
  }
}

export function createLspManager(options: LspManagerOptions): LspManager {
  const cwd = path.resolve(options.cwd);
  const servers = new Map<string, LspServer>();
  /** Why a configured server cannot run at all (its program was not found). */
  const unstartable = new Map<string, string>();
  const baselines = new Map<string, Diagnostic[] | undefined>();
  const reported = new Set<string>();
  const pending: string[] = [];
  let closed = false;

  function configFor(absPath: string): [string, LspServerSettings] | undefined {
    const lower = absPath.toLowerCase();
    return Object.entries(options.servers).find(([, s]) => s.extensions.some((ext) => lower.endsWith(ext.toLowerCase())));
  }

  function notice(key: string, text: string): void {
    if (reported.has(key)) return;
    reported.add(key);
    pending.push(text);
  }

  function serverFor(absPath: string): LspServer | string | undefined {
    const config = configFor(absPath);
    if (!config || closed) return undefined;
    const [name, settings] = config;
    const root = findRoot(absPath, settings.rootPatterns, cwd);
    const key = `${name}\u0000${root}`;
    let server = servers.get(key);
    if (!server) {
      const { program, skipped } = resolveServerCommand(settings.command[0], { dirs: [root, cwd], env: options.env, trusted: options.trusted === true });
      if (!program) {
        const searched = options.trusted === true ? "was found neither in node_modules/.bin nor on PATH" : "was not found on PATH (the folder is not trusted, so the project's own programs are not used)";
        const reason = `its program ${settings.command[0]} ${searched}${skipped.length ? `; ${skippedProgramsNote(skipped)}` : ""}`;
        unstartable.set(name, reason);
        notice(`${key}:failed`, `LSP server ${name} cannot start: ${reason}. Files ending in ${settings.extensions.join(", ")} are not checked.`);
        return name;
      }
      server = new LspServer({ name, settings, root, argv: [program, ...settings.command.slice(1)], env: { ...withoutCredentials(options.env), ...settings.env } });
      servers.set(key, server);
    }
    return server;
  }

  function waitOf(server: LspServer): number {
    return server.settings.waitMs ?? DEFAULT_WAIT_MS;
  }

  /** Tell the model, once per server and kind, that a server is slow to start or has given up. */
  function noteTrouble(server: LspServer): void {
    const key = `${server.name}\u0000${server.root}`;
    const files = server.settings.extensions.join(", ");
    if (server.state === "failed") {
      notice(
        `${key}:failed`,
        `LSP server ${server.name} stopped working: it ${server.lastFailure ?? "failed"}. It was started ${server.starts} time${server.starts === 1 ? "" : "s"} and stays off for this session, so edits of ${files} files are no longer checked.`,
      );
    } else if (server.state === "starting") {
      notice(`${key}:slow`, `LSP server ${server.name} is still starting (no answer within ${waitOf(server)} ms), so this edit was not checked; edits are checked once it runs.`);
    }
  }

  async function takeBaseline(server: LspServer, absPath: string): Promise<void> {
    const deadline = Date.now() + waitOf(server);
    if (!(await server.ensureReady(deadline))) return;
    const text = readDocument(absPath);
    // A file that does not exist yet has no problems: everything after the write is new.
    if (text === undefined) return void baselines.set(absPath, fs.existsSync(absPath) ? undefined : []);
    const snapshot = await server.diagnostics(absPath, text, deadline);
    baselines.set(absPath, snapshot?.diagnostics);
  }

  const observer: FileWriteObserver = {
    async beforeWrite(absPath, context: ToolUseContext) {
      const server = serverFor(absPath);
      baselines.delete(absPath);
      if (server instanceof LspServer) await unlessAborted(takeBaseline(server, absPath), context.abortController.signal);
    },

    async afterWrite(absPath, context: ToolUseContext) {
      const server = serverFor(absPath);
      if (server === undefined) return undefined;
      const out: string[] = [];
      if (server instanceof LspServer) {
        const baseline = baselines.get(absPath);
        const hadBaseline = baselines.has(absPath) && baseline !== undefined;
        baselines.delete(absPath);
        const deadline = Date.now() + waitOf(server);
        const text = readDocument(absPath);
        const check = async () => (text !== undefined && (await server.ensureReady(deadline)) ? server.diagnostics(absPath, text, deadline) : undefined);
        // An interrupt (Ctrl-C) ends the wait: the edit is done, its check is not worth holding the user up.
        const snapshot = await unlessAborted(check(), context.abortController.signal);
        noteTrouble(server);
        if (snapshot) out.push(...describeNew(server.name, displayPath(absPath, context.getCwd()), hadBaseline ? baseline! : undefined, snapshot.diagnostics));
      }
      out.unshift(...pending.splice(0));
      return out.length ? out.join("\n") : undefined;
    },
  };

  async function fileDiagnostics(absPath: string): Promise<FileDiagnosticsResult> {
    const server = serverFor(absPath);
    if (server === undefined) return { kind: "unhandled" };
    if (!(server instanceof LspServer)) return { kind: "unavailable", server, reason: unstartable.get(server) ?? "it cannot start" };
    const text = readDocument(absPath);
    if (text === undefined) return { kind: "missing" };
    // The model asked: wait as long as a start may take, not just an edit's short wait.
    const deadline = Date.now() + waitOf(server) + (server.state === "ready" ? 0 : (server.settings.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS));
    if (!(await server.ensureReady(deadline, { patient: true }))) {
      return { kind: "unavailable", server: server.name, reason: server.state === "starting" ? "it is still starting" : `it ${server.lastFailure ?? "failed"}` };
    }
    const snapshot = await server.diagnostics(absPath, text, deadline);
    if (!snapshot) return { kind: "unavailable", server: server.name, reason: "it gave no diagnostics for the file in time" };
    return { kind: "ok", server: server.name, diagnostics: snapshot.diagnostics, fresh: snapshot.fresh };
  }

  return {
    observer,
    servers: options.servers,
    fileDiagnostics,
    openDocuments: () => [...servers.values()].flatMap((s) => s.openDocuments().map((d) => ({ ...d, server: s.name }))),
    status() {
      const out: LspServerStatus[] = [];
      for (const [name, settings] of Object.entries(options.servers)) {
        const running = [...servers.values()].filter((s) => s.name === name);
        const command = settings.command.join(" ");
        if (!running.length) out.push({ name, state: unstartable.has(name) ? "failed" : "not started", command, starts: 0, lastFailure: unstartable.get(name) });
        for (const s of running) out.push({ name, root: s.root, state: s.state, command, pid: s.pid, starts: s.starts, lastFailure: s.lastFailure });
      }
      return out;
    },
    takeNotices: () => pending.splice(0),
    async close() {
      closed = true;
      await Promise.all([...servers.values()].map((s) => s.close()));
    },
  };
}

/** The promise's value, or undefined as soon as the signal aborts. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

/** What the model reads after an edit: the errors and warnings the edit added, capped. */
function describeNew(server: string, shown: string, baseline: Diagnostic[] | undefined, after: Diagnostic[]): string[] {
  if (baseline === undefined) {
    const problems = after.filter(isProblem);
    if (!problems.length) return [];
    return [`LSP diagnostics (${server}) for ${shown} after this edit, ${countBySeverity(problems)} (the file was not checked before the edit, so some may be older):`, ...formatDiagnosticList(shown, problems)];
  }
  const fresh = newProblems(baseline, after);
  if (!fresh.length) return [];
  return [`LSP diagnostics (${server}): this edit introduced ${countBySeverity(fresh)} in ${shown}:`, ...formatDiagnosticList(shown, fresh)];
}
