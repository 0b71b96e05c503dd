/**
 * One language server process for one language and one project root: started on demand, spoken to over its
 * stdio with JSON-RPC, its documents kept in sync (full text), its diagnostics collected from pushes
 * (publishDiagnostics) or pulled (textDocument/diagnostic) where the server offers it. Every wait is bounded
 * by a deadline the caller gives; a server that crashes or hangs only ever costs that wait.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  CancellationTokenSource,
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentDiagnosticRequest,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  NullLogger,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type InitializeParams,
  type ProtocolConnection,
  type ServerCapabilities,
} from "vscode-languageserver-protocol/node";
import { groupExists, killProcessTree, trackGroup, untrackGroup, withTreeMarker } from "../util/processTree.js";
import { DEFAULT_MAX_RESTARTS, DEFAULT_START_TIMEOUT_MS, type LspServerSettings } from "./settingsSection.js";

/** After a push, how long to wait for the next one (servers publish syntax, then semantic results). */
const SETTLE_MS = 250;
const SHUTDOWN_WAIT_MS = 1_000;
const STDERR_TAIL_CHARS = 600;

export type LspServerState = "idle" | "starting" | "ready" | "failed";

export interface LspServerOptions {
  /** The language's name in settings. */
  name: string;
  settings: LspServerSettings;
  /** The project root the server works on. */
  root: string;
  /** The program and its arguments, the program already resolved. */
  argv: string[];
  env: NodeJS.ProcessEnv;
}

export interface DiagnosticsSnapshot {
  diagnostics: Diagnostic[];
  /** The server answered for this text (false: the last answer it gave, for an earlier text, or nothing). */
  fresh: boolean;
}

interface OpenDocument {
  absPath: string;
  uri: string;
  version: number;
  text: string;
  diagnostics?: Diagnostic[];
  /** A push (or pull) arrived since the last didOpen/didChange. */
  answered: boolean;
  /**
   * Someone already waited for this text. Some servers say nothing when a change leaves the diagnostics as they
   * were (typescript-language-server for a clean file), so the wait ends without an answer; the next caller
   * takes the last diagnostics as they are instead of waiting again.
   */
  waited: boolean;
  listeners: Set<() => void>;
}

const LANGUAGE_IDS: Record<string, string> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "typescriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascriptreact",
  ".py": "python",
  ".rs": "rust",
  ".go": "go",
  ".json": "json",
};

function pathOfUri(uri: string): string | undefined {
  try {
    return path.resolve(fileURLToPath(uri));
  } catch {
    return undefined;
  }
}

/** Resolves to the promise's value, or to `fallback` once the deadline passes. */
function until<T>(promise: Promise<T>, deadline: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class LspServer {
  readonly name: string;
  readonly root: string;
  readonly settings: LspServerSettings;
  private readonly argv: string[];
  private readonly env: NodeJS.ProcessEnv;

  state: LspServerState = "idle";
  /** Starts so far (the first one included). */
  starts = 0;
  /** Why the last start or run ended badly. */
  lastFailure?: string;
  private child?: ChildProcess;
  private connection?: ProtocolConnection;
  private capabilities?: ServerCapabilities;
  private ready?: Promise<boolean>;
  private stderrTail = "";
  private waitedStart = 0;
  private closing = false;
  private readonly documents = new Map<string, OpenDocument>();
  /** A document's real path (symlinks resolved), for servers that answer about the file they found on disk. */
  private readonly realPaths = new Map<string, string>();
  /** Called when the process ends, so waiters stop waiting. */
  private readonly onDeath = new Set<() => void>();

  constructor(options: LspServerOptions) {
    this.name = options.name;
    this.root = options.root;
    this.settings = options.settings;
    this.argv = options.argv;
    this.env = options.env;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get maxStarts(): number {
    return 1 + (this.settings.maxRestarts ?? DEFAULT_MAX_RESTARTS);
  }

  /**
   * The server is running and initialized, or becomes so before the deadline (restarted if it died and restarts
   * are left). Only the first caller waits for a start; others (unless `patient`) get false while it starts.
   */
  async ensureReady(deadline: number, options: { patient?: boolean } = {}): Promise<boolean> {
    while (!this.closing) {
      if (this.state === "ready") return true;
      if (this.state === "failed") return false;
      if (this.state === "idle") {
        if (this.starts >= this.maxStarts) {
          this.state = "failed";
          return false;
        }
        this.start();
      }
      // One caller waits for a start; later ones do not stall on a server that is slow to come up.
      if (this.waitedStart === this.starts && !options.patient) return false;
      this.waitedStart = this.starts;
      const ok = await until(this.ready!, deadline, undefined);
      if (ok === undefined) return false; // still starting: the caller does not wait longer
      if (ok) return true;
      if (Date.now() >= deadline) return false;
    }
    return false;
  }

  private start(): void {
    this.starts++;
    this.state = "starting";
    this.capabilities = undefined;
    this.documents.clear();
    this.realPaths.clear();
    this.stderrTail = "";
    const [program, ...args] = this.argv;
    let child: ChildProcess;
    try {
      child = spawn(program, args, { cwd: this.root, env: withTreeMarker(this.env), stdio: ["pipe", "pipe", "pipe"], detached: process.platform !== "win32" });
    } catch (err) {
      this.fail(`could not be started: ${(err as Error).message}`);
      this.ready = Promise.resolve(false);
      return;
    }
    this.child = child;
    const pid = child.pid;
    if (pid !== undefined) trackGroup(pid);
    // Writing to a server that died must not crash toolgate.
    child.stdin?.on("error", () => undefined);
    child.stdout?.on("error", () => undefined);
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });

    const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!), NullLogger);
    this.connection = connection;
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => this.onPublish(params.uri, params.diagnostics, params.version));
    // Requests a server may send its client: answer them plainly rather than with "method not found".
    connection.onRequest("client/registerCapability", () => null);
    connection.onRequest("client/unregisterCapability", () => null);
    connection.onRequest("window/workDoneProgress/create", () => null);
    connection.onRequest("window/showMessageRequest", () => null);
    connection.onRequest("workspace/configuration", (params: { items?: unknown[] }) => (params.items ?? []).map(() => null));
    connection.onError(() => undefined);
    connection.listen();

    let settle: (ok: boolean) => void = () => undefined;
    this.ready = new Promise<boolean>((resolve) => (settle = resolve));
    const startTimeoutMs = this.settings.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    const startTimer = setTimeout(() => {
      if (this.child !== child || this.state !== "starting") return;
      this.fail(`did not finish starting within ${startTimeoutMs} ms`);
      settle(false);
      void this.stopProcess(child);
    }, startTimeoutMs);
    startTimer.unref();

    child.once("error", (err) => {
      if (this.child === child) {
        if (this.state === "starting" || this.state === "ready") this.fail(`could not be started: ${err.message}`);
        this.detach();
      }
      settle(false);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(startTimer);
      if (pid !== undefined && !groupExists(pid)) untrackGroup(pid);
      if (this.child !== child) {
        connection.dispose();
        return settle(false);
      }
      if (!this.closing && (this.state === "starting" || this.state === "ready")) {
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        this.fail(`${how}${this.state === "starting" ? " while starting" : ""}`);
      }
      this.detach();
      settle(false);
    });

    const rootUri = pathToFileURL(this.root).href;
    const params: InitializeParams = {
      processId: process.pid,
      clientInfo: { name: "toolgate" },
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: path.basename(this.root) || this.root }],
      initializationOptions: this.settings.initializationOptions,
      capabilities: {
        textDocument: {
          synchronization: { dynamicRegistration: false, didSave: false, willSave: false, willSaveWaitUntil: false },
          publishDiagnostics: { relatedInformation: false, versionSupport: true },
          diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
        },
        workspace: { workspaceFolders: true, configuration: true },
      },
    };
    connection.sendRequest(InitializeRequest.type, params).then(
      (result) => {
        if (this.child !== child || this.state !== "starting") return settle(false);
        this.capabilities = result.capabilities;
        void connection.sendNotification(InitializedNotification.type, {}).catch(() => undefined);
        clearTimeout(startTimer);
        this.state = "ready";
        settle(true);
      },
      (err: Error) => {
        if (this.child === child && this.state === "starting") {
          this.fail(`refused to initialize: ${err.message}`);
          void this.stopProcess(child);
        }
        settle(false);
      },
    );
  }

  private detach(): void {
    this.connection?.dispose();
    this.child = undefined;
    this.connection = undefined;
    for (const notify of [...this.onDeath]) notify();
  }

  /** Records a failure; the process is restarted on next use while starts are left, else the server stays off. */
  private fail(reason: string): void {
    // The line that names the error says more than a stack trace's last line ("Node.js v20…").
    const lines = this.stderrTail.split("\n").map((l) => l.trim()).filter((l) => l && !/^Node\.js v\d/.test(l));
    const telling = lines.find((l) => /error/i.test(l)) ?? lines.at(-1);
    this.lastFailure = telling ? `${reason} (stderr: ${telling.slice(0, 300)})` : reason;
    this.state = this.starts >= this.maxStarts ? "failed" : "idle";
  }

  private onPublish(uri: string, diagnostics: Diagnostic[], version: number | undefined): void {
    const absPath = pathOfUri(uri);
    const doc = absPath === undefined ? undefined : this.documents.get(absPath) ?? this.documents.get(this.realPaths.get(absPath) ?? "");
    if (!doc) return;
    // A versioned push for an older text is stale.
    if (typeof version === "number" && version < doc.version) return;
    doc.diagnostics = diagnostics;
    doc.answered = true;
    for (const notify of doc.listeners) notify();
  }

  /** Open the document, or send its new text; nothing when the server already has this text. */
  private sync(absPath: string, text: string): OpenDocument | undefined {
    const connection = this.connection;
    if (!connection || this.state !== "ready") return undefined;
    let doc = this.documents.get(absPath);
    if (!doc) {
      doc = { absPath, uri: pathToFileURL(absPath).href, version: 1, text, answered: false, waited: false, listeners: new Set() };
      this.documents.set(absPath, doc);
      try {
        const real = fs.realpathSync(absPath);
        if (real !== absPath) this.realPaths.set(real, absPath);
      } catch {
        // a file that vanished is opened with the text given
      }
      const languageId = LANGUAGE_IDS[path.extname(absPath).toLowerCase()] ?? this.name;
      void connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: doc.uri, languageId, version: doc.version, text } }).catch(() => undefined);
    } else if (doc.text !== text) {
      doc.version++;
      doc.text = text;
      doc.answered = false;
      doc.waited = false;
      void connection
        .sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri: doc.uri, version: doc.version }, contentChanges: [{ text }] })
        .catch(() => undefined);
    }
    return doc;
  }

  /**
   * The diagnostics of `text` as the file's content: the document is opened or updated, then the server's
   * answer is awaited until the deadline. Undefined when the server is not ready or never said anything about the file.
   */
  async diagnostics(absPath: string, text: string, deadline: number): Promise<DiagnosticsSnapshot | undefined> {
    const doc = this.sync(absPath, text);
    if (!doc) return undefined;
    if (!doc.answered && !doc.waited) {
      const version = doc.version;
      if (this.capabilities?.diagnosticProvider) await this.pull(doc, deadline);
      if (!doc.answered) await this.waitForPush(doc, deadline);
      // a wait cut short by the server's death does not count: the restarted server is asked again
      if (this.child && doc.version === version) doc.waited = true;
    }
    if (!doc.diagnostics) return undefined;
    return { diagnostics: doc.diagnostics, fresh: doc.answered };
  }

  private async pull(doc: OpenDocument, deadline: number): Promise<void> {
    const connection = this.connection;
    if (!connection) return;
    const version = doc.version;
    const cancel = new CancellationTokenSource();
    try {
      const report = await until(
        connection.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri: doc.uri } }, cancel.token).catch(() => undefined),
        deadline,
        undefined,
      );
      if (!report || doc.version !== version) return;
      if (report.kind === "full") doc.diagnostics = report.items;
      // "unchanged" keeps what the server said before, which is then current
      if (report.kind === "full" || doc.diagnostics) doc.answered = true;
    } finally {
      cancel.cancel();
      cancel.dispose();
    }
  }

  /** Until a push arrived and none followed for SETTLE_MS, the server died, or the deadline. */
  private waitForPush(doc: OpenDocument, deadline: number): Promise<void> {
    return new Promise((resolve) => {
      let settleTimer: NodeJS.Timeout | undefined;
      const finish = () => {
        clearTimeout(settleTimer);
        clearTimeout(deadlineTimer);
        doc.listeners.delete(onPush);
        this.onDeath.delete(finish);
        resolve();
      };
      const onPush = () => {
        clearTimeout(settleTimer);
        settleTimer = setTimeout(finish, Math.max(0, Math.min(SETTLE_MS, deadline - Date.now())));
      };
      const deadlineTimer = setTimeout(finish, Math.max(0, deadline - Date.now()));
      doc.listeners.add(onPush);
      this.onDeath.add(finish);
      if (doc.answered) onPush();
      if (!this.child) finish();
    });
  }

  /** The last diagnostics of every document this server has open. */
  openDocuments(): { absPath: string; diagnostics?: Diagnostic[] }[] {
    return [...this.documents.values()].map((d) => ({ absPath: d.absPath, diagnostics: d.diagnostics }));
  }

  /** Polite shutdown (shutdown, exit), then the process tree is killed if anything of it is left. */
  async close(): Promise<void> {
    this.closing = true;
    const child = this.child;
    if (!child) return;
    const connection = this.connection;
    if (connection && this.state === "ready") {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      const deadline = Date.now() + SHUTDOWN_WAIT_MS;
      const answered = await until(
        connection.sendRequest(ShutdownRequest.type).then(
          () => true,
          () => false,
        ),
        deadline,
        false,
      );
      if (answered) {
        await connection.sendNotification(ExitNotification.type).catch(() => undefined);
        await until(exited, Date.now() + SHUTDOWN_WAIT_MS, undefined);
      }
    }
    await this.stopProcess(child);
  }

  private async stopProcess(child: ChildProcess): Promise<void> {
    const pid = child.pid;
    if (pid === undefined) return;
    // The server's own children (tsserver) share its group; kill whatever of the tree is left.
    if (groupExists(pid) || child.exitCode === null) await killProcessTree(pid);
    untrackGroup(pid);
  }
}
