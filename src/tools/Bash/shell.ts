/**
 * Running one command line in bash: detached in its own process group, stdin closed, stdout and stderr
 * merged into one pipe (`exec 2>&1`), output collected with bounded memory, progress throttled, the
 * final working directory captured by an EXIT trap, and the whole process tree stopped on timeout,
 * abort or request. Processes a command leaves behind in its group (background tasks too) are stopped when it exits.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { OutputCollector } from "./output.js";
import { groupExists, killProcessTree, trackGroup, untrackGroup, withTreeMarker } from "../../util/processTree.js";

export interface BashProgress {
  type: "bash_progress";
  /** The last few lines of output. */
  output: string;
  totalBytes: number;
  elapsedMs: number;
}

export const PROGRESS_INTERVAL_MS = 500;
/** After bash exits, how long a process outside its group may keep the output pipe open. */
const PIPE_LINGER_MS = 500;

export interface ShellOptions {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  outputFile: string;
  /** Write the output file from the start (background tasks). */
  eagerFile: boolean;
  /** Capture the directory the command ends in (foreground commands). */
  captureCwd: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (progress: BashProgress) => void;
  /** A script built with shellScript and wrapped (the sandbox), run instead of `command`; its cwd file, if any. */
  launch?: { script: string; cwdFile?: string };
}

export interface ShellResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  interrupted: boolean;
  /** Stopped by `stop()` (TaskStop, session end). */
  stopped: boolean;
  /** The directory the command ended in, when captured. */
  finalCwd?: string;
  /** Processes the command left running in its group were stopped. */
  leftoversStopped: boolean;
  durationMs: number;
}

export interface ShellProcess {
  readonly pid: number;
  readonly output: OutputCollector;
  readonly startedAt: number;
  readonly done: Promise<ShellResult>;
  /** Stop the whole process tree; resolves when it is gone. */
  stop(): Promise<void>;
}

let bashPath: string | undefined;
function findBash(): string {
  bashPath ??= fs.existsSync("/bin/bash") ? "/bin/bash" : "bash";
  return bashPath;
}

const singleQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** A temp file path for the EXIT trap to write the final directory to. */
export function cwdFilePath(dir = os.tmpdir()): string {
  return path.join(dir, `toolgate-cwd-${randomUUID()}`);
}

/** The script bash runs: stderr into stdout, the cwd trap, then the command. */
export function shellScript(command: string, cwdFile?: string): string {
  const trap = cwdFile ? `; trap 'builtin printf "%s" "$PWD" >| ${singleQuote(cwdFile)} 2>/dev/null' EXIT` : "";
  // one line, so bash's line numbers in error messages match the command's own
  return `exec 2>&1${trap}; ${command}`;
}

/** The non-interactive environment: pagers and editors that return at once, no prompts, a predictable cd. */
export function buildShellEnv(base: NodeJS.ProcessEnv, cwd: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...base,
    PAGER: "cat",
    GIT_PAGER: "cat",
    GIT_EDITOR: "true",
    EDITOR: "true",
    VISUAL: "true",
    GIT_TERMINAL_PROMPT: "0",
    PWD: cwd,
  };
  // `cd x` must mean ./x, as the permission check assumed
  delete env.CDPATH;
  return env;
}

export function startShell(options: ShellOptions): ShellProcess {
  const cwdFile = options.launch ? options.launch.cwdFile : options.captureCwd ? cwdFilePath() : undefined;
  const script = options.launch?.script ?? shellScript(options.command, cwdFile);
  const output = new OutputCollector({ filePath: options.outputFile, eager: options.eagerFile });
  const startedAt = Date.now();
  const child = spawn(findBash(), ["-c", script], {
    cwd: options.cwd,
    env: withTreeMarker(buildShellEnv(options.env, options.cwd)),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });

  let timedOut = false;
  let interrupted = false;
  let stopped = false;
  let killing: Promise<unknown> | undefined;
  const killTree = () => {
    if (child.pid === undefined) return Promise.resolve();
    killing ??= killProcessTree(child.pid);
    return killing;
  };

  const done = new Promise<ShellResult>((resolve, reject) => {
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let openStreams = 2;
    let lingerTimer: NodeJS.Timeout | undefined;
    let settled = false;

    for (const stream of [child.stdout, child.stderr]) {
      stream.on("data", (chunk: Buffer) => {
        if (!output.write(chunk)) {
          stream.pause();
          output.onDrain(() => stream.resume());
        }
      });
      stream.on("close", () => {
        openStreams--;
        maybeFinish();
      });
    }

    let lastProgressVersion = 0;
    const progressTimer = options.onProgress
      ? setInterval(() => {
          if (output.changeCount === lastProgressVersion) return;
          lastProgressVersion = output.changeCount;
          options.onProgress?.({ type: "bash_progress", output: output.recentLines(), totalBytes: output.totalBytes, elapsedMs: Date.now() - startedAt });
        }, PROGRESS_INTERVAL_MS)
      : undefined;

    const timeoutTimer =
      options.timeoutMs !== undefined
        ? setTimeout(() => {
            timedOut = true;
            void killTree();
          }, options.timeoutMs)
        : undefined;

    const onAbort = () => {
      interrupted = true;
      void killTree();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    const cleanup = () => {
      if (progressTimer) clearInterval(progressTimer);
      if (timeoutTimer) clearTimeout(timeoutTimer);
      if (lingerTimer) clearTimeout(lingerTimer);
      options.signal?.removeEventListener("abort", onAbort);
      if (child.pid !== undefined) untrackGroup(child.pid);
    };

    let leftoversStopped = false;
    let leftoverCheck: Promise<void> | undefined;

    async function finish() {
      if (settled || !exit) return;
      settled = true;
      cleanup();
      child.stdout.destroy();
      child.stderr.destroy();
      await leftoverCheck;
      if (killing) await killing;
      let finalCwd: string | undefined;
      if (cwdFile) {
        try {
          finalCwd = fs.readFileSync(cwdFile, "utf8") || undefined;
          fs.rmSync(cwdFile, { force: true });
        } catch {
          // the trap did not run (killed, exec'd, or the command replaced it)
        }
      }
      resolve({
        exitCode: exit.code,
        signal: exit.signal,
        timedOut,
        interrupted,
        stopped,
        finalCwd,
        leftoversStopped,
        durationMs: Date.now() - startedAt,
      });
    }

    function maybeFinish() {
      if (!exit) return;
      if (openStreams <= 0) void finish();
    }

    child.on("error", (err) => {
      cleanup();
      if (!settled) {
        settled = true;
        reject(err);
      }
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      if (child.pid !== undefined && !killing && groupExists(child.pid)) {
        const pid = child.pid;
        leftoverCheck = killProcessTree(pid).then((pids) => {
          leftoversStopped = pids.length > 0;
        });
      }
      // a process that left the group may hold the pipe open forever: stop waiting once output stops flowing
      let seen = output.changeCount;
      const linger = () => {
        if (output.changeCount !== seen) {
          seen = output.changeCount;
          lingerTimer = setTimeout(linger, PIPE_LINGER_MS);
        } else void finish();
      };
      lingerTimer = setTimeout(linger, PIPE_LINGER_MS);
      maybeFinish();
    });
  });

  if (child.pid !== undefined) trackGroup(child.pid);

  return {
    pid: child.pid ?? -1,
    output,
    startedAt,
    done,
    async stop() {
      stopped = true;
      await killTree();
      await done.catch(() => undefined);
    },
  };
}
