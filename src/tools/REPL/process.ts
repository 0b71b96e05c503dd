/**
 * One Python process running the REPL driver: started (sandboxed or not) by the host, asked to run code one
 * request at a time, interrupted with KeyboardInterrupt, and stopped with its whole process tree.
 */
import { OutputCollector } from "../Bash/output.js";
import type { ReplChannel, ReplExit } from "./channel.js";

export interface ReplRunOptions {
  code: string;
  timeoutMs: number;
  /** How long code may take to stop after KeyboardInterrupt before the process is killed. */
  interruptGraceMs: number;
  signal?: AbortSignal;
  stdout: OutputCollector;
  stderr: OutputCollector;
}

export type ReplRunEnd =
  /** The code finished (possibly with an exception, or stopped by KeyboardInterrupt after a timeout or abort). */
  | { kind: "done"; value: string | null; error: string | null; interrupted: boolean; timedOut: boolean; aborted: boolean }
  /** The code ignored KeyboardInterrupt: the process was killed. */
  | { kind: "killed"; timedOut: boolean; aborted: boolean }
  /** The process ended by itself (os._exit, a crash, the sandbox refusing to start it) or with its sandbox (`detail`). */
  | { kind: "exited"; code: number | null; signal: NodeJS.Signals | null; detail?: string };

interface Reply {
  t: string;
  id?: number;
  n?: string;
  d?: string;
  value?: string | null;
  error?: string | null;
  interrupted?: boolean;
  version?: string;
}

/** What the process printed on its own stderr before it was ready, kept short for an error message. */
const STARTUP_STDERR_CHARS = 2_000;

export class ReplProcess {
  private readonly channel: ReplChannel;
  private buffered = "";
  private nextId = 1;
  private listener?: (reply: Reply) => void;
  private stderrSink?: OutputCollector;
  private startupStderr = "";
  private exitInfo?: ReplExit;
  private readonly exitWaiters = new Set<() => void>();
  private killing?: Promise<unknown>;
  private runs: Promise<unknown> = Promise.resolve();
  private readonly decoder = new TextDecoder("utf-8");
  /** The running call's end mark on the stderr pipe (see the driver's _run). */
  private endMarker?: EndMarker;
  /** Resolves with the Python version once the driver is ready; rejects with what went wrong otherwise. */
  readonly ready: Promise<string>;
  /** Resolves once the process has exited. */
  readonly exited: Promise<void>;

  constructor(channel: ReplChannel) {
    this.channel = channel;
    this.ready = new Promise<string>((resolve, reject) => {
      this.listener = (reply) => {
        if (reply.t === "ready") resolve(reply.version ?? "3");
      };
      channel.onError((err) => reject(err));
      this.onExit(() => {
        const detail = this.exitInfo?.detail ?? this.startupStderr.trim();
        const how = this.exitInfo?.signal ? `was killed by ${this.exitInfo.signal}` : this.exitInfo?.detail ? "was stopped" : `exited with code ${this.exitInfo?.code}`;
        reject(new Error(`The Python process ${how} before it was ready${detail ? `:\n${detail}` : "."}`));
      });
    });
    this.ready.catch(() => undefined);
    this.exited = new Promise((resolve) => this.onExit(resolve));
    channel.onStdout((chunk) => this.receive(this.decoder.decode(chunk, { stream: true })));
    channel.onStderr((chunk) => {
      const output = this.endMarker ? this.endMarker.scan(chunk) : chunk;
      if (!output.length) return;
      if (this.stderrSink) this.stderrSink.write(output);
      else if (this.startupStderr.length < STARTUP_STDERR_CHARS) this.startupStderr += output.toString("utf8").slice(0, STARTUP_STDERR_CHARS);
    });
    channel.onExit((exit) => {
      this.exitInfo = exit;
      this.endMarker?.giveUp();
      const waiters = [...this.exitWaiters];
      this.exitWaiters.clear();
      for (const waiter of waiters) waiter();
    });
  }

  get pid(): number | undefined {
    return this.channel.pid;
  }

  get alive(): boolean {
    return this.exitInfo === undefined;
  }

  /** Why it ended, once it has. */
  get exit(): ReplExit | undefined {
    return this.exitInfo;
  }

  /** Whether its sandbox still protects what it did at the start (false: the sandbox ended itself, and this process). */
  check(): Promise<boolean> {
    return this.alive ? this.channel.check() : Promise.resolve(false);
  }

  /** Call waiter once the process has exited; returns how to stop waiting. */
  private onExit(waiter: () => void): () => void {
    if (this.exitInfo) waiter();
    else this.exitWaiters.add(waiter);
    return () => this.exitWaiters.delete(waiter);
  }

  private receive(chunk: string): void {
    this.buffered += chunk;
    let newline: number;
    while ((newline = this.buffered.indexOf("\n")) !== -1) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      let reply: Reply;
      try {
        reply = JSON.parse(line) as Reply;
      } catch {
        // not the driver's (a wrapper's message): treat it as the process's stderr
        this.stderrSink?.write(Buffer.from(`${line}\n`));
        continue;
      }
      this.listener?.(reply);
    }
  }

  private send(message: object): void {
    if (this.alive) this.channel.write(`${JSON.stringify(message)}\n`);
  }

  /** Run code; resolves when it ends one way or another, never rejects. Calls wait for the one before (a subagent shares the REPL). */
  run(options: ReplRunOptions): Promise<ReplRunEnd> {
    const next = this.runs.then(() => this.runNow(options));
    this.runs = next;
    return next;
  }

  private runNow(options: ReplRunOptions): Promise<ReplRunEnd> {
    if (!this.alive) return Promise.resolve(this.killing ? { kind: "killed", timedOut: false, aborted: false } : this.exitedEnd());
    const id = this.nextId++;
    this.channel.resume();
    return new Promise<ReplRunEnd>((resolve) => {
      let timedOut = false;
      let aborted = false;
      let graceTimer: NodeJS.Timeout | undefined;
      let settled = false;
      const finish = (end: ReplRunEnd) => {
        if (settled) return;
        settled = true;
        clearTimeout(timeoutTimer);
        clearTimeout(graceTimer);
        options.signal?.removeEventListener("abort", onAbort);
        stopWaiting();
        this.listener = undefined;
        this.stderrSink = undefined;
        // stopped until the next call, which its sandbox lets continue only with its mounts in place
        if (end.kind === "done") void this.channel.pause().then(() => resolve(end));
        else resolve(end);
      };
      const interrupt = () => {
        if (graceTimer) return;
        this.send({ t: "interrupt", id });
        graceTimer = setTimeout(() => {
          void this.kill().then(() => finish({ kind: "killed", timedOut, aborted }));
        }, options.interruptGraceMs);
      };
      const onAbort = () => {
        aborted = true;
        interrupt();
      };
      const timeoutTimer = setTimeout(() => {
        timedOut = true;
        interrupt();
      }, options.timeoutMs);

      this.stderrSink = options.stderr;
      const marker = new EndMarker(id);
      this.endMarker = marker;
      this.listener = (reply) => {
        if (reply.t === "out" && typeof reply.d === "string") {
          (reply.n === "stderr" ? options.stderr : options.stdout).write(Buffer.from(reply.d, "utf8"));
        } else if (reply.t === "done" && reply.id === id) {
          // The reply can overtake raw output still in the stderr pipe: end once the mark after it was read.
          void marker.seen.then(() => {
            if (this.endMarker === marker) this.endMarker = undefined;
            const rest = marker.flush();
            if (rest.length) options.stderr.write(rest);
            finish({
              kind: "done",
              value: typeof reply.value === "string" ? reply.value : null,
              error: typeof reply.error === "string" ? reply.error : null,
              interrupted: reply.interrupted === true,
              timedOut,
              aborted,
            });
          });
        }
      };
      const stopWaiting = this.onExit(() => {
        if (this.killing) finish({ kind: "killed", timedOut, aborted });
        else finish(this.exitedEnd());
      });
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener("abort", onAbort, { once: true });
      this.send({ t: "run", id, code: options.code });
    });
  }

  private exitedEnd(): ReplRunEnd {
    return { kind: "exited", code: this.exitInfo?.code ?? null, signal: this.exitInfo?.signal ?? null, ...(this.exitInfo?.detail ? { detail: this.exitInfo.detail } : {}) };
  }

  /** Stop the process and everything it started (also what an exited one left running); resolves when it has exited. */
  kill(): Promise<void> {
    this.killing ??= this.channel.kill();
    return this.killing.then(() => this.exited);
  }
}

/**
 * Finds `\0repl-end-<id>\0` in the stderr stream (it may be split across chunks) and passes the rest on. `seen`
 * resolves once it was read, or once the process exited (then no mark will come).
 */
class EndMarker {
  private readonly mark: Buffer;
  private held = Buffer.alloc(0);
  private found = false;
  private resolveSeen!: () => void;
  readonly seen = new Promise<void>((resolve) => (this.resolveSeen = resolve));

  constructor(id: number) {
    this.mark = Buffer.from(`\0repl-end-${id}\0`, "latin1");
  }

  /** What of `chunk` (with what was held back) is output; holds back a tail that may be the mark's start. */
  scan(chunk: Buffer): Buffer {
    if (this.found) return chunk;
    const data = this.held.length ? Buffer.concat([this.held, chunk]) : chunk;
    const at = data.indexOf(this.mark);
    if (at >= 0) {
      this.found = true;
      this.held = Buffer.alloc(0);
      this.resolveSeen();
      return Buffer.concat([data.subarray(0, at), data.subarray(at + this.mark.length)]);
    }
    let keep = Math.min(this.mark.length - 1, data.length);
    while (keep > 0 && !this.mark.subarray(0, keep).equals(data.subarray(data.length - keep))) keep--;
    this.held = Buffer.from(data.subarray(data.length - keep));
    return data.subarray(0, data.length - keep);
  }

  /** What is still held back (the call ended without the mark completing it). */
  flush(): Buffer {
    const rest = this.held;
    this.held = Buffer.alloc(0);
    this.found = true;
    return rest;
  }

  /** No mark will come (the process ended). */
  giveUp(): void {
    this.resolveSeen();
  }
}
