/**
 * One long-lived sandbox: bwrap started once with a small supervisor (supervisor.mjs) inside, which starts
 * each command as a fresh `bash -c` in a process group of its own. The host talks to it over the
 * supervisor's stdin and stdout, one JSON object a line. If the supervisor dies, every command running in
 * it fails with a message saying so; the session starts a new one for the next command.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

export interface SandboxSpawnOptions {
  script: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `pipe`: the process reads what `write` sends (a REPL); `ignore`: stdin closed. */
  stdin?: "pipe" | "ignore";
}

export interface SandboxExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Processes the command started are still running in its group. */
  leftover: boolean;
}

/** A process running inside a long-lived sandbox. */
export interface SandboxedProcess {
  /** Its pid inside the sandbox's pid namespace (0 until started). */
  readonly pid: number;
  /** Bytes of stdout and stderr as they come, each with the stream it came from (the script may merge them). */
  onOutput(listener: (chunk: Buffer, stream: "stdout" | "stderr") => void): void;
  write(data: string | Buffer): void;
  endStdin(): void;
  /** Signal the whole group (and descendants that left it); SIGTERM escalates to SIGKILL after a grace period. */
  kill(signal?: NodeJS.Signals): void;
  /** Stop everything it runs (SIGSTOP); resolves once the supervisor has sent the signals (or the sandbox is gone). */
  pause(): Promise<void>;
  /** Continue what pause stopped, once the supervisor has found its mounts in place (it fails closed otherwise). */
  resume(): void;
  /** bash exited; rejects when the sandbox died first. */
  readonly exit: Promise<SandboxExit>;
  /** Nothing of it is left: bash exited, its pipes closed, its group empty (or the sandbox died). */
  readonly ended: Promise<void>;
  /** Resolves if processes it started are found running after an exit that reported none (a double fork in flight). */
  readonly leftoverFound: Promise<void>;
}

export class SandboxDiedError extends Error {
  /** Why it stopped, e.g. "a protected path lost its mount, …". */
  readonly detail: string;
  constructor(detail: string) {
    super(`The sandbox stopped while the command ran (${detail}); it was not completed. The next command starts a new sandbox.`);
    this.name = "SandboxDiedError";
    this.detail = detail;
  }
}

/** The supervisor next to this module (sources through tsx, tsc's dist/sandbox) or beside the bundle (dist/cli → dist/sandbox). */
export function supervisorPath(): string {
  const candidates = ["./supervisor.mjs", "../sandbox/supervisor.mjs"].map((rel) => fileURLToPath(new URL(rel, import.meta.url)));
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) throw new Error(`The sandbox supervisor is missing (looked for ${candidates.join(", ")}).`);
  return found;
}

interface Entry {
  pid: number;
  listeners: ((chunk: Buffer, stream: "stdout" | "stderr") => void)[];
  exit: { resolve(exit: SandboxExit): void; reject(err: Error): void };
  ended: () => void;
  leftoverFound: () => void;
  exited: boolean;
  paused: (() => void)[];
}

export interface SandboxHostOptions {
  /** The shell command that starts the supervisor inside the sandbox. */
  command: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Called once when the supervisor is gone (closed or died). */
  onGone?: () => void;
}

export interface SandboxHost {
  readonly ready: Promise<void>;
  /** What bwrap and the runtime set or removed in the environment, applied to every command's own. */
  adaptEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  spawn(options: SandboxSpawnOptions): SandboxedProcess;
  /** Whether its mounts are all still in place (false: it has ended itself, failing closed). */
  check(): Promise<boolean>;
  /** Commands (and what they left running) not yet ended. */
  readonly running: number;
  readonly alive: boolean;
  /** The bwrap process on the host (tests, diagnostics). */
  readonly hostPid: number | undefined;
  /** The supervisor's pid inside the sandbox. */
  readonly supervisorPid: number | undefined;
  close(): Promise<void>;
}

let nextId = 0;

export function startSandboxHost(options: SandboxHostOptions): SandboxHost {
  const child: ChildProcess = spawn("/bin/bash", ["-c", options.command], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const entries = new Map<number, Entry>();
  let alive = true;
  let supervisorPid: number | undefined;
  let added: Record<string, string> = {};
  let removed: string[] = [];
  let stderr = "";
  /** Why the supervisor ended itself, when it did. */
  let tampered: string | undefined;
  const checks = new Map<number, (intact: boolean) => void>();
  let readyResolve!: () => void;
  let readyReject!: (err: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    readyResolve = resolve;
    readyReject = reject;
  });
  ready.catch(() => undefined);
  const gone = new Promise<void>((resolve) => child.once("close", () => resolve()));

  child.stderr?.on("data", (d: Buffer) => {
    if (stderr.length < 4000) stderr += d.toString("utf8");
  });
  child.stdin?.on("error", () => undefined);

  const lines = readline.createInterface({ input: child.stdout! });
  lines.on("line", (line) => {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    if (message.ev === "ready") {
      supervisorPid = message.pid as number;
      const inside = message.env as Record<string, string>;
      added = Object.fromEntries(Object.entries(inside).filter(([k, v]) => options.env[k] !== v));
      removed = Object.keys(options.env).filter((k) => !(k in inside));
      readyResolve();
      return;
    }
    if (message.ev === "tampered") {
      tampered = `a protected path lost its mount, ${String(message.path)}: it was deleted or replaced from outside the sandbox`;
      return;
    }
    if (message.ev === "checked") {
      checks.get(message.id as number)?.(true);
      checks.delete(message.id as number);
      return;
    }
    const entry = entries.get(message.id as number);
    if (!entry) return;
    switch (message.ev) {
      case "started":
        entry.pid = message.pid as number;
        break;
      case "out": {
        const chunk = Buffer.from(message.data as string, "base64");
        const stream = message.fd === 2 ? "stderr" : "stdout";
        for (const listener of entry.listeners) listener(chunk, stream);
        break;
      }
      case "paused":
        for (const resolve of entry.paused.splice(0)) resolve();
        break;
      case "exit":
        entry.exited = true;
        entry.exit.resolve({ code: message.code as number | null, signal: message.signal as NodeJS.Signals | null, leftover: message.leftover === true });
        break;
      case "leftover":
        entry.leftoverFound();
        break;
      case "error":
        entry.exit.reject(new Error(`The command could not start in the sandbox: ${String(message.message)}`));
        entries.delete(message.id as number);
        entry.ended();
        break;
      case "end":
        entries.delete(message.id as number);
        for (const resolve of entry.paused.splice(0)) resolve();
        entry.ended();
        break;
    }
  });

  child.once("close", (code, signal) => {
    alive = false;
    const detail = tampered ?? (signal ? `killed by ${signal}` : `exit code ${code}`);
    for (const resolve of checks.values()) resolve(false);
    checks.clear();
    readyReject(new Error(`The sandbox did not start (${detail}): ${stderr.trim().slice(0, 500) || "no output"}`));
    for (const entry of entries.values()) {
      if (!entry.exited) entry.exit.reject(new SandboxDiedError(detail));
      for (const resolve of entry.paused.splice(0)) resolve();
      entry.ended();
    }
    entries.clear();
    options.onGone?.();
  });
  child.once("error", () => undefined);

  const send = (message: object) => {
    if (alive) child.stdin?.write(`${JSON.stringify(message)}\n`);
  };

  return {
    ready,
    adaptEnv(env) {
      const out: NodeJS.ProcessEnv = { ...env, ...added };
      for (const key of removed) delete out[key];
      return out;
    },
    spawn(spawnOptions) {
      const id = ++nextId;
      let resolveExit!: (exit: SandboxExit) => void;
      let rejectExit!: (err: Error) => void;
      const exit = new Promise<SandboxExit>((resolve, reject) => {
        resolveExit = resolve;
        rejectExit = reject;
      });
      exit.catch(() => undefined);
      let endedResolve!: () => void;
      const ended = new Promise<void>((resolve) => (endedResolve = resolve));
      let leftoverResolve!: () => void;
      const leftoverFound = new Promise<void>((resolve) => (leftoverResolve = resolve));
      const entry: Entry = { pid: 0, listeners: [], exit: { resolve: resolveExit, reject: rejectExit }, ended: endedResolve, leftoverFound: leftoverResolve, exited: false, paused: [] };
      if (!alive) {
        rejectExit(new SandboxDiedError("it was not running"));
        endedResolve();
      } else {
        entries.set(id, entry);
        send({ op: "spawn", id, script: spawnOptions.script, cwd: spawnOptions.cwd, env: spawnOptions.env, stdin: spawnOptions.stdin === "pipe" });
      }
      return {
        get pid() {
          return entry.pid;
        },
        onOutput: (listener) => entry.listeners.push(listener),
        write: (data) => send({ op: "stdin", id, data: Buffer.from(data).toString("base64") }),
        endStdin: () => send({ op: "stdinEnd", id }),
        kill: (signal = "SIGTERM") => send({ op: "kill", id, signal }),
        pause: () => {
          if (!alive || !entries.has(id)) return Promise.resolve();
          const paused = new Promise<void>((resolve) => entry.paused.push(resolve));
          send({ op: "pause", id });
          return paused;
        },
        resume: () => send({ op: "resume", id }),
        exit,
        ended,
        leftoverFound,
      };
    },
    check() {
      if (!alive) return Promise.resolve(false);
      const id = ++nextId;
      return new Promise<boolean>((resolve) => {
        checks.set(id, resolve);
        send({ op: "check", id });
      });
    },
    get running() {
      return entries.size;
    },
    get alive() {
      return alive;
    },
    get hostPid() {
      return child.pid;
    },
    get supervisorPid() {
      return supervisorPid;
    },
    async close() {
      if (alive) child.stdin?.end();
      await gone;
    },
  };
}
