/**
 * One command line in the session's long-lived sandbox: the same result shape as startShell (output
 * collection, progress, timeout, abort, the cwd trap), with the process started by the sandbox's
 * supervisor. What a foreground command leaves running in its group is handed back as `leftover`, to be
 * adopted as a background task; it keeps running in the sandbox until TaskStop or the session's end.
 */
import fs from "node:fs";
import type { SessionSandboxProcess } from "../../sandbox/index.js";
import { OutputCollector } from "./output.js";
import { buildShellEnv, PROGRESS_INTERVAL_MS, shellScript, type ShellOptions, type ShellProcess, type ShellResult } from "./shell.js";

export interface SandboxedShellOptions extends Omit<ShellOptions, "launch"> {
  /** Where the cwd trap writes, inside the sandbox's temp dir. */
  cwdFile?: string;
  /** Wait for the whole group, not just bash (background tasks). */
  untilGroupEnds?: boolean;
  start(script: string, env: NodeJS.ProcessEnv): Promise<SessionSandboxProcess>;
}

export interface SandboxedShellResult extends ShellResult {
  /** What the command left running, as a process of its own (its output goes to `outputFile`). */
  leftover?: (outputFile: string) => ShellProcess;
  /** The sandbox's refusals seen while the command ran. */
  violations: string[];
}

export interface SandboxedShell extends Omit<ShellProcess, "done"> {
  readonly done: Promise<SandboxedShellResult>;
}

function resultOf(
  exit: { code: number | null; signal: NodeJS.Signals | null },
  state: { timedOut: boolean; interrupted: boolean; stopped: boolean },
  startedAt: number,
): ShellResult {
  return {
    exitCode: exit.code,
    signal: exit.signal,
    timedOut: state.timedOut,
    interrupted: state.interrupted,
    stopped: state.stopped,
    leftoversStopped: false,
    durationMs: Date.now() - startedAt,
  };
}

/** A leftover group, from the moment its foreground command returned: a ShellProcess a BackgroundTask can own. */
function adopt(proc: SessionSandboxProcess, outputFile: string, exit: ShellResult): ShellProcess {
  const output = new OutputCollector({ filePath: outputFile, eager: true });
  const startedAt = Date.now();
  let stopped = false;
  const done = proc.ended.then(() => ({ ...exit, stopped, durationMs: Date.now() - startedAt }));
  return {
    pid: proc.pid,
    output,
    startedAt,
    done,
    async stop() {
      stopped = true;
      proc.kill("SIGTERM");
      await proc.ended;
    },
  };
}

export function startSandboxedShell(options: SandboxedShellOptions): SandboxedShell {
  const script = shellScript(options.command, options.cwdFile);
  const output = new OutputCollector({ filePath: options.outputFile, eager: options.eagerFile });
  const startedAt = Date.now();
  const state = { timedOut: false, interrupted: false, stopped: false };
  let proc: SessionSandboxProcess | undefined;
  let killRequested = false;
  const kill = () => {
    killRequested = true;
    proc?.kill("SIGTERM");
  };
  /** After the foreground command returned, its output goes to the task that adopted what it left. */
  let forward: ((chunk: Buffer) => void) | undefined;

  const started = options.start(script, buildShellEnv(options.env, options.cwd)).then((p) => {
    proc = p;
    p.onOutput((chunk) => {
      if (forward) forward(chunk);
      else output.write(chunk);
    });
    if (killRequested) p.kill("SIGTERM");
    return p;
  });

  const done = (async (): Promise<SandboxedShellResult> => {
    let progressTimer: NodeJS.Timeout | undefined;
    let timeoutTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      state.interrupted = true;
      kill();
    };
    try {
      const p = await started;
      let lastProgressVersion = 0;
      if (options.onProgress) {
        progressTimer = setInterval(() => {
          if (output.changeCount === lastProgressVersion) return;
          lastProgressVersion = output.changeCount;
          options.onProgress?.({ type: "bash_progress", output: output.recentLines(), totalBytes: output.totalBytes, elapsedMs: Date.now() - startedAt });
        }, PROGRESS_INTERVAL_MS);
      }
      if (options.timeoutMs !== undefined) {
        timeoutTimer = setTimeout(() => {
          state.timedOut = true;
          kill();
        }, options.timeoutMs);
      }
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener("abort", onAbort, { once: true });

      let exit = await p.exit;
      // a killed command is over only once its whole group is
      if (killRequested || options.untilGroupEnds) await p.ended;
      else if (!exit.leftover && (await Promise.race([p.ended.then(() => false), p.leftoverFound.then(() => true)]))) exit = { ...exit, leftover: true };
      let finalCwd: string | undefined;
      if (options.cwdFile) {
        try {
          finalCwd = fs.readFileSync(options.cwdFile, "utf8") || undefined;
          fs.rmSync(options.cwdFile, { force: true });
        } catch {
          // the trap did not run (killed, exec'd, or the command replaced it)
        }
      }
      const result = resultOf(exit, state, startedAt);
      const leftover =
        exit.leftover && !killRequested && !options.untilGroupEnds
          ? (outputFile: string) => {
              const adopted = adopt(p, outputFile, result);
              forward = (chunk) => void adopted.output.write(chunk);
              return adopted;
            }
          : undefined;
      return { ...result, finalCwd, violations: p.violations(), ...(leftover ? { leftover } : {}) };
    } finally {
      if (progressTimer) clearInterval(progressTimer);
      if (timeoutTimer) clearTimeout(timeoutTimer);
      options.signal?.removeEventListener("abort", onAbort);
    }
  })();

  return {
    get pid() {
      return proc?.pid ?? -1;
    },
    output,
    startedAt,
    done,
    async stop() {
      state.stopped = true;
      kill();
      await done.catch(() => undefined);
      await proc?.ended;
    },
  };
}
