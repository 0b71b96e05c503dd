/**
 * How the REPL reaches its Python process: a child of toolgate (unsandboxed, or wrapped in a sandbox of its own),
 * or a process in the session's long-lived sandbox, started through its supervisor.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { SandboxDiedError, type SessionSandboxProcess } from "../../sandbox/index.js";
import { killProcessTree, trackGroup, untrackGroup, withTreeMarker } from "../../util/processTree.js";

export interface ReplExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it ended when its sandbox ended it (a lost mount, the supervisor gone). */
  detail?: string;
}

export interface ReplChannel {
  readonly pid: number | undefined;
  write(data: string): void;
  onStdout(listener: (chunk: Buffer) => void): void;
  onStderr(listener: (chunk: Buffer) => void): void;
  /** Called once, when the process has exited (or could not start: `error`). */
  onExit(listener: (exit: ReplExit) => void): void;
  onError(listener: (err: Error) => void): void;
  /** Stop the process and everything it started; resolves once they are gone. */
  kill(): Promise<void>;
  /** Whether its sandbox still protects what it protected at the start (always true outside the long-lived sandbox). */
  check(): Promise<boolean>;
  /**
   * Between calls: stop everything it runs, so that nothing of it acts on a host-side change its sandbox has not
   * seen yet; resume checks the mounts first. No-ops outside the long-lived sandbox, which has no such check.
   */
  pause(): Promise<void>;
  resume(): void;
}

export interface ReplLaunch {
  /** The bash script that execs python3 with the driver (wrapped by the sandbox when it has one of its own). */
  script: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** A process group of toolgate's own, killed as a tree. */
export function childChannel(launch: ReplLaunch): ReplChannel {
  const child = spawn(fs.existsSync("/bin/bash") ? "/bin/bash" : "bash", ["-c", launch.script], {
    cwd: launch.cwd,
    env: withTreeMarker(launch.env),
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  if (child.pid !== undefined) trackGroup(child.pid);
  child.stdin.on("error", () => undefined);
  let exited = false;
  child.on("exit", () => {
    exited = true;
    if (child.pid !== undefined) untrackGroup(child.pid);
  });
  return {
    pid: child.pid,
    write: (data) => {
      child.stdin.write(data);
    },
    onStdout: (listener) => child.stdout.on("data", listener),
    onStderr: (listener) => child.stderr.on("data", listener),
    onExit: (listener) => child.on("exit", (code, signal) => listener({ code, signal })),
    onError: (listener) => child.on("error", listener),
    kill: async () => {
      if (!exited && child.pid !== undefined) await killProcessTree(child.pid);
    },
    check: async () => true,
    pause: async () => undefined,
    resume: () => undefined,
  };
}

/** A process in the session's long-lived sandbox: its supervisor kills the tree, and fails it closed on a lost mount. */
export function sandboxChannel(proc: SessionSandboxProcess): ReplChannel {
  const stdout: ((chunk: Buffer) => void)[] = [];
  const stderr: ((chunk: Buffer) => void)[] = [];
  proc.onOutput((chunk, stream) => {
    for (const listener of stream === "stderr" ? stderr : stdout) listener(chunk);
  });
  const exit = proc.exit.then(
    ({ code, signal }): ReplExit => ({ code, signal }),
    (err: unknown): ReplExit => ({ code: null, signal: null, detail: err instanceof SandboxDiedError ? err.detail : err instanceof Error ? err.message : String(err) }),
  );
  return {
    get pid() {
      return proc.pid;
    },
    write: (data) => proc.write(data),
    onStdout: (listener) => stdout.push(listener),
    onStderr: (listener) => stderr.push(listener),
    onExit: (listener) => void exit.then(listener),
    onError: () => undefined,
    // also after python exited: what it left running would keep the sandbox, unstopped, until the session's end
    kill: async () => {
      proc.kill("SIGKILL");
      await proc.ended;
    },
    check: () => proc.check(),
    pause: () => proc.pause(),
    resume: () => proc.resume(),
  };
}
