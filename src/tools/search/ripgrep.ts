/**
 * The bundled ripgrep (`@vscode/ripgrep`), run as one child process with a timeout, cancellation, a cap
 * on what it may print, and a heartbeat for progress reports. Glob and Grep build on this; parsing what
 * rg prints is theirs.
 */
import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { rgPath } from "@vscode/ripgrep";

export { rgPath };

/** Version-control folders no search descends into. */
export const VCS_DIRECTORIES = [".git", ".svn", ".hg", ".jj", ".bzr"] as const;

/** Default wall-clock limit of one search. */
export const DEFAULT_SEARCH_TIMEOUT_MS = 20_000;
export const PROGRESS_INTERVAL_MS = 500;
/** What one search may print before it is stopped (rg output, not what the model sees). */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const MAX_STDERR_CHARS = 16 * 1024;
/** How long rg gets to exit after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 1_000;

/**
 * Arguments every search starts with: no user config (RIPGREP_CONFIG_PATH could change the output
 * format), no colour, and NUL after each path so names with `:` or newlines parse unambiguously.
 */
export const BASE_ARGS = ["--no-config", "--color=never", "--null"] as const;

/** `--glob=!<g>` for each VCS folder and each denied glob. Put these last: in rg the last matching glob wins. */
export function exclusionGlobArgs(denyGlobs: readonly string[]): string[] {
  return [...VCS_DIRECTORIES, ...denyGlobs].map((glob) => `--glob=!${glob}`);
}

export type RipgrepStopReason = "timeout" | "aborted" | "output_limit";

export interface RipgrepOptions {
  args: readonly string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  /** rg's record terminator in this mode: `\0` for bare paths (`--files`, `-l`), `\n` for lines. */
  separator: "\0" | "\n";
  /** Each complete record, as soon as it arrives. */
  onRecord(record: string): void;
  maxOutputBytes?: number;
  /** Called every `progressIntervalMs` while rg runs. */
  onHeartbeat?(elapsedMs: number): void;
  progressIntervalMs?: number;
}

export interface RipgrepOutcome {
  /** 0 = matches, 1 = none, 2 = an error (possibly alongside results); null when killed. */
  exitCode: number | null;
  stderr: string;
  /** Why toolgate stopped rg early; the records delivered so far are then partial. */
  stopped?: RipgrepStopReason;
  durationMs: number;
}

/** rg exited 2 for a reason of its own (bad regex, unknown type, bad glob), not just unreadable files. */
export function isFatalRipgrepError(outcome: RipgrepOutcome): boolean {
  if (outcome.exitCode !== 2 || outcome.stopped) return false;
  const lines = outcome.stderr.split("\n").filter((line) => line.trim() !== "");
  // per-file problems read `rg: <path>: … (os error N)`; anything else means rg refused the search
  return lines.length === 0 || lines.some((line) => !/\(os error \d+\)$/.test(line));
}

/** Run rg to completion (or until stopped), streaming its records. Rejects only if rg cannot be started. */
export function runRipgrep(options: RipgrepOptions): Promise<RipgrepOutcome> {
  const started = Date.now();
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  if (options.signal?.aborted) return Promise.resolve({ exitCode: null, stderr: "", stopped: "aborted", durationMs: 0 });

  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, options.args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
    const decoder = new StringDecoder("utf8");
    let pending = "";
    let outputBytes = 0;
    let stderr = "";
    let stopped: RipgrepStopReason | undefined;
    let killTimer: NodeJS.Timeout | undefined;

    const stop = (reason: RipgrepStopReason) => {
      if (stopped) return;
      stopped = reason;
      child.stdout.removeAllListeners("data");
      child.kill("SIGTERM");
      killTimer = setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS);
    };

    const deliver = (text: string) => {
      const records = (pending + text).split(options.separator);
      pending = records.pop() ?? "";
      for (const record of records) options.onRecord(record);
    };

    child.stdout.on("data", (chunk: Buffer) => {
      outputBytes += chunk.length;
      if (outputBytes > maxOutputBytes) {
        // keep what fits; the record cut in half at the limit is dropped with `pending`
        deliver(decoder.write(chunk.subarray(0, chunk.length - (outputBytes - maxOutputBytes))));
        pending = "";
        stop("output_limit");
        return;
      }
      deliver(decoder.write(chunk));
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr = (stderr + text).slice(0, MAX_STDERR_CHARS);
    });

    const timeout = setTimeout(() => stop("timeout"), options.timeoutMs);
    const heartbeat = options.onHeartbeat
      ? setInterval(() => options.onHeartbeat?.(Date.now() - started), options.progressIntervalMs ?? PROGRESS_INTERVAL_MS)
      : undefined;
    const onAbort = () => stop("aborted");
    options.signal?.addEventListener("abort", onAbort, { once: true });

    const cleanup = () => {
      clearTimeout(timeout);
      clearTimeout(killTimer);
      if (heartbeat) clearInterval(heartbeat);
      options.signal?.removeEventListener("abort", onAbort);
    };

    child.once("error", (err) => {
      cleanup();
      reject(new Error(`could not start ripgrep (${rgPath}): ${err.message}`));
    });
    child.once("close", (code) => {
      cleanup();
      if (!stopped) {
        const rest = pending + decoder.end();
        if (rest !== "") options.onRecord(rest);
      }
      resolve({ exitCode: code, stderr: stderr.trim(), stopped, durationMs: Date.now() - started });
    });
  });
}
