/** A Bash command started with run_in_background, as a BackgroundTask of the session registry. */
import type { BackgroundTask, TaskStatus } from "../../core/tasks.js";
import type { ShellProcess, ShellResult } from "./shell.js";
import { interpretExitCode, type ExitInterpretation } from "./exitCodes.js";

export class BashBackgroundTask implements BackgroundTask {
  readonly type = "bash";
  readonly outputFile: string;
  readonly startedAt: number;
  private result?: ShellResult;
  /** What the exit code means, judged once: status() and statusDetail() are asked on every TaskOutput and task listing. */
  private meaning?: ExitInterpretation;
  private failure?: Error;
  private ended?: number;
  private readonly finished: Promise<void>;

  constructor(
    readonly id: string,
    readonly command: string,
    readonly description: string,
    private readonly shell: ShellProcess,
  ) {
    this.outputFile = shell.output.filePath;
    this.startedAt = shell.startedAt;
    this.finished = shell.done.then(
      async (result) => {
        this.result = result;
        this.meaning = interpretExitCode(command, result.exitCode ?? 0);
        this.ended = Date.now();
        await shell.output.finish(true).catch(() => undefined);
      },
      (err: Error) => {
        this.failure = err;
        this.ended = Date.now();
      },
    );
  }

  status(): TaskStatus {
    if (this.failure) return "failed";
    const result = this.result;
    if (!result) return "running";
    if (result.stopped) return "killed";
    if (result.signal) return "failed";
    return this.meaning?.isError ? "failed" : "completed";
  }

  exitCode(): number | null {
    return this.result?.exitCode ?? null;
  }

  statusDetail(): string | undefined {
    if (this.failure) return `could not start: ${this.failure.message}`;
    const result = this.result;
    if (!result) return undefined;
    if (result.stopped) return "stopped by TaskStop or at the end of the session";
    if (result.signal) return `killed by ${result.signal}`;
    const note = this.meaning?.note;
    return `exit code ${result.exitCode}${note ? ` ${note}` : ""}`;
  }

  endedAt(): number | undefined {
    return this.ended;
  }

  async waitForCompletion(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.ended !== undefined) return true;
    if (signal?.aborted) return false;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const gaveUp = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs));
      onAbort = () => resolve(false);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([this.finished.then(() => true as const), gaveUp]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  async readOutput(): Promise<string> {
    return this.shell.output.snapshot().text;
  }

  async stop(): Promise<void> {
    if (this.ended !== undefined) return;
    await this.shell.stop();
    await this.finished;
  }
}
