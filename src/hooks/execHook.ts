import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { groupExists, killProcessTree, trackGroup, untrackGroup, withTreeMarker } from "../util/processTree.js";

const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 1_000;
/** setTimeout's ceiling; larger delays fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** After the shell exits, how long to wait for its pipes to close (a backgrounded child may hold them). */
const PIPE_DRAIN_MS = 100;

export interface HookExecOptions {
  command: string;
  stdin: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Kills the hook when it aborts. */
  signal?: AbortSignal;
  /** Per stream; what comes after is read and dropped. */
  maxOutputBytes?: number;
  /** Between SIGTERM and SIGKILL of the process group. */
  killGraceMs?: number;
}

export interface HookOutput {
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
}

export type HookExecResult =
  | ({ kind: "exited"; code: number } & HookOutput)
  | ({ kind: "signaled"; signal: string } & HookOutput)
  | ({ kind: "timedOut" } & HookOutput)
  | ({ kind: "cancelled" } & HookOutput)
  | { kind: "spawnFailed"; message: string };

let cachedShell: string | undefined;

/** bash when there is one (hooks written for Claude Code assume it), else the POSIX shell. */
export function hookShell(): string {
  if (cachedShell) return cachedShell;
  if (process.platform === "win32") return (cachedShell = "bash");
  cachedShell = ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash"].find((p) => existsSync(p)) ?? "/bin/sh";
  return cachedShell;
}

function createCappedBuffer(maxBytes: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  return {
    push(chunk: Buffer) {
      const room = maxBytes - size;
      if (chunk.length > room) {
        truncated = true;
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size = maxBytes;
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    },
    text: () => Buffer.concat(chunks).toString("utf8"),
    get truncated() {
      return truncated;
    },
  };
}

/**
 * Stop the hook's process tree: its group (it was spawned detached, so its pid is the group id) and any
 * descendant that left the group, SIGKILL after the grace period. Resolves when nothing of it runs.
 */
async function stopTree(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.pid === undefined) return;
  if (process.platform === "win32") {
    child.kill("SIGKILL");
    return;
  }
  await killProcessTree(child.pid, graceMs);
}

/**
 * Run one hook command with `bash -c` in its own process group, feeding `stdin` and keeping at most
 * `maxOutputBytes` of each output stream. Never rejects: every failure is a result kind.
 * Whatever the hook started is stopped when it ends, so a hook cannot leave a daemon behind.
 */
export function execHookCommand(options: HookExecOptions): Promise<HookExecResult> {
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(hookShell(), ["-c", options.command], {
        cwd: options.cwd,
        env: withTreeMarker(options.env),
        detached: process.platform !== "win32",
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
    } catch (err) {
      resolve({ kind: "spawnFailed", message: (err as Error).message });
      return;
    }

    const stdout = createCappedBuffer(maxOutputBytes);
    const stderr = createCappedBuffer(maxOutputBytes);
    child.stdout?.on("data", stdout.push);
    child.stderr?.on("data", stderr.push);
    const output = (): HookOutput => ({
      stdout: stdout.text(),
      stderr: stderr.text(),
      stdoutTruncated: stdout.truncated,
      stderrTruncated: stderr.truncated,
    });

    let done = false;
    let killedFor: "timeout" | "abort" | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let stopping: Promise<void> | undefined;
    const stop = () => (stopping ??= stopTree(child, killGraceMs));
    // If toolgate itself exits first (a signal, a crash), its exit handler SIGKILLs the group.
    const group = process.platform === "win32" ? undefined : child.pid;
    if (group !== undefined) trackGroup(group);

    const kill = (reason: "timeout" | "abort") => {
      if (done || exit || killedFor) return;
      killedFor = reason;
      void stop();
    };
    const timer = setTimeout(() => kill("timeout"), Math.min(options.timeoutMs, MAX_TIMER_MS));
    const onAbort = () => kill("abort");
    options.signal?.addEventListener("abort", onAbort, { once: true });

    const finish = (result: HookExecResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      void Promise.resolve(stopping).then(() => {
        if (group !== undefined) untrackGroup(group);
        resolve(result);
      });
    };
    const finishFromExit = () => {
      if (!exit) return;
      if (killedFor === "timeout") return finish({ kind: "timedOut", ...output() });
      if (killedFor === "abort") return finish({ kind: "cancelled", ...output() });
      if (exit.signal) return finish({ kind: "signaled", signal: exit.signal, ...output() });
      finish({ kind: "exited", code: exit.code ?? 1, ...output() });
    };

    child.on("error", (err) => finish({ kind: "spawnFailed", message: err.message }));
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // The hook has ended: its background children go with it (they would hold its pipes open, too).
      if (group !== undefined && groupExists(group)) void stop();
      drainTimer = setTimeout(finishFromExit, PIPE_DRAIN_MS);
    });
    child.on("close", finishFromExit);

    // A hook that never reads stdin may exit before we finish writing: EPIPE is expected, not a failure.
    child.stdin?.on("error", () => {});
    child.stdin?.end(options.stdin);
  });
}
