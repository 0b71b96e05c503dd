/**
 * One Python process running the REPL driver: started (sandboxed or not) by the host, asked to run code one
 * request at a time, interrupted with KeyboardInterrupt, and stopped with its whole process tree.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import { OutputCollector } from "../Bash/output.js";
import { killProcessTree, trackGroup, untrackGroup, withTreeMarker } from "../../util/processTree.js";

export interface ReplLaunch {
  /** The bash script that execs python3 with the driver (wrapped by the sandbox when it is on). */
  script: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

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
  /** The process ended by itself (os._exit, a crash, the sandbox refusing to start it). */
  | { kind: "exited"; code: number | null; signal: NodeJS.Signals | null };

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
  private readonly child: ChildProcessWithoutNullStreams;
  private buffered = "";
  private nextId = 1;
  private listener?: (reply: Reply) => void;
  private stderrSink?: OutputCollector;
  private startupStderr = "";
  private exitInfo?: { code: number | null; signal: NodeJS.Signals | null };
  private readonly exitWaiters = new Set<() => void>();
  private killing?: Promise<unknown>;
  private runs: Promise<unknown> = Promise.resolve();
  /** Resolves with the Python version once the driver is ready; rejects with what went wrong otherwise. */
  readonly ready: Promise<string>;

  constructor(launch: ReplLaunch) {
    this.child = spawn(fs.existsSync("/bin/bash") ? "/bin/bash" : "bash", ["-c", launch.script], {
      cwd: launch.cwd,
      env: withTreeMarker(launch.env),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    if (this.child.pid !== undefined) trackGroup(this.child.pid);
    this.ready = new Promise<string>((resolve, reject) => {
      this.listener = (reply) => {
        if (reply.t === "ready") resolve(reply.version ?? "3");
      };
      this.child.on("error", (err) => reject(err));
      this.onExit(() => {
        const detail = this.startupStderr.trim();
        const how = this.exitInfo?.signal ? `was killed by ${this.exitInfo.signal}` : `exited with code ${this.exitInfo?.code}`;
        reject(new Error(`The Python process ${how} before it was ready${detail ? `:\n${detail}` : "."}`));
      });
    });
    this.ready.catch(() => undefined);
    this.child.stdin.on("error", () => undefined);
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => this.receive(chunk));
    this.child.stderr.on("data", (chunk: Buffer) => {
      if (this.stderrSink) this.stderrSink.write(chunk);
      else if (this.startupStderr.length < STARTUP_STDERR_CHARS) this.startupStderr += chunk.toString("utf8").slice(0, STARTUP_STDERR_CHARS);
    });
    this.child.on("exit", (code, signal) => {
      this.exitInfo = { code, signal };
      if (this.child.pid !== undefined) untrackGroup(this.child.pid);
      const waiters = [...this.exitWaiters];
      this.exitWaiters.clear();
      for (const waiter of waiters) waiter();
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exitInfo === undefined && this.child.pid !== undefined;
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
    if (this.alive) this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Run code; resolves when it ends one way or another, never rejects. Calls wait for the one before (a subagent shares the REPL). */
  run(options: ReplRunOptions): Promise<ReplRunEnd> {
    const next = this.runs.then(() => this.runNow(options));
    this.runs = next;
    return next;
  }

  private runNow(options: ReplRunOptions): Promise<ReplRunEnd> {
    if (!this.alive) return Promise.resolve(this.killing ? { kind: "killed", timedOut: false, aborted: false } : { kind: "exited", code: this.exitInfo?.code ?? null, signal: this.exitInfo?.signal ?? null });
    const id = this.nextId++;
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
        resolve(end);
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
      this.listener = (reply) => {
        if (reply.t === "out" && typeof reply.d === "string") {
          (reply.n === "stderr" ? options.stderr : options.stdout).write(Buffer.from(reply.d, "utf8"));
        } else if (reply.t === "done" && reply.id === id) {
          finish({
            kind: "done",
            value: typeof reply.value === "string" ? reply.value : null,
            error: typeof reply.error === "string" ? reply.error : null,
            interrupted: reply.interrupted === true,
            timedOut,
            aborted,
          });
        }
      };
      const stopWaiting = this.onExit(() => {
        if (this.killing) finish({ kind: "killed", timedOut, aborted });
        else finish({ kind: "exited", code: this.exitInfo?.code ?? null, signal: this.exitInfo?.signal ?? null });
      });
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener("abort", onAbort, { once: true });
      this.send({ t: "run", id, code: options.code });
    });
  }

  /** Stop the process and everything it started; resolves when it has exited. */
  kill(): Promise<void> {
    if (!this.alive) return Promise.resolve();
    const pid = this.child.pid as number;
    this.killing ??= killProcessTree(pid);
    return this.killing.then(() => new Promise<void>((resolve) => this.onExit(resolve)));
  }
}
