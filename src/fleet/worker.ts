/** `toolgate worker`: takes fleet tasks from a BullMQ queue and runs each as a headless session. */
import os from "node:os";
import path from "node:path";
import { Queue, WaitingError, Worker, type Job } from "bullmq";
import { workerConnection } from "./connection.js";
import { ProviderRateLimited, runTask, type TaskResult } from "./runTask.js";
import type { FleetJobData } from "./submit.js";

export interface WorkerOptions {
  redis: string;
  queue: string;
  concurrency: number;
  /** At most `max` tasks start per `durationMs`, across every worker of the queue. */
  rate?: { max: number; durationMs: number };
  /** How long a job's lock lasts without renewal: a worker that died is noticed after about this long. */
  lockDurationMs: number;
  /** The pause for every worker of the queue when a session ends on a provider 429 that gave no retry-after. */
  rateLimitWaitMs: number;
  workDir: string;
  /** One JSON line per event (ready, active, completed, failed, stopping), for people and tests. */
  report(event: Record<string, unknown>): void;
  log(text: string): void;
}

/** `5/1s`, `100/1m`, `10/500ms`. */
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export function parseRate(text: string): { max: number; durationMs: number } {
  const match = /^(\d+)\/(\d+(?:\.\d+)?)?(ms|s|m|h)$/.exec(text.trim());
  if (!match) throw new Error(`--rate ${text}: expected COUNT/DURATION such as 5/1s, 100/1m or 10/500ms`);
  const unit = UNIT_MS[match[3] as keyof typeof UNIT_MS];
  const max = Number(match[1]);
  const durationMs = Math.round(Number(match[2] ?? 1) * unit);
  if (max < 1 || durationMs < 1) throw new Error(`--rate ${text}: the count and the duration must be positive`);
  return { max, durationMs };
}

/** A duration such as 30s, 15m, 2h or 7d (0 with any unit is allowed), in milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) throw new Error(`${flag} ${text}: expected a duration such as 30s, 15m, 2h or 7d`);
  return Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
}

/** Runs until SIGTERM or SIGINT; resolves with the exit code. */
export async function runWorker(options: WorkerOptions): Promise<number> {
  const name = `${os.hostname()}:${process.pid}`;
  const connection = workerConnection(options.redis);
  connection.on("error", (error) => options.log(`[toolgate worker] redis: ${error.message}\n`));
  const queue = new Queue(options.queue, { connection });
  const running = new Map<string, AbortController>();
  let puttingBack = false;
  // The worker's own CLI, with the same Node flags (the tsx loader when run from the sources).
  const command = { executable: process.execPath, args: [...process.execArgv, process.argv[1]!] };

  const processor = async (job: Job<FleetJobData, TaskResult>, token?: string): Promise<TaskResult> => {
    const attempt = job.attemptsMade + job.stalledCounter + 1;
    options.report({ event: "active", job: job.id, attempt, pid: process.pid, worker: name });
    const controller = new AbortController();
    running.set(job.id!, controller);
    try {
      return await runTask({
        task: job.data.task,
        jobId: job.id!,
        attempt,
        worker: name,
        command,
        workDir: options.workDir,
        rateLimitWaitMs: options.rateLimitWaitMs,
        env: process.env,
        signal: controller.signal,
        onStart: (pid) => options.report({ event: "session", job: job.id, pid }),
        onProgress: (progress) => void job.updateProgress({ ...progress }).catch(() => undefined),
        log: options.log,
      });
    } catch (error) {
      if (puttingBack && token) {
        await job.moveToWait(token);
        options.report({ event: "put_back", job: job.id });
        throw new WaitingError();
      }
      if (error instanceof ProviderRateLimited) {
        // Every worker of the queue waits: the provider's limit is the account's, not this process's.
        await queue.rateLimit(error.retryAfterMs);
        options.report({ event: "rate_limited", job: job.id, retry_after_ms: error.retryAfterMs, at: Date.now() });
        throw Worker.RateLimitError();
      }
      throw error;
    } finally {
      running.delete(job.id!);
    }
  };

  const worker = new Worker<FleetJobData, TaskResult>(options.queue, processor, {
    connection,
    name,
    concurrency: options.concurrency,
    // BullMQ honours a queue-wide pause (queue.rateLimit, after a 429) only in workers that have a limiter, so
    // without --rate there is one that never binds.
    limiter: options.rate ? { max: options.rate.max, duration: options.rate.durationMs } : { max: 1_000_000_000, duration: 1_000 },
    lockDuration: options.lockDurationMs,
    stalledInterval: Math.max(500, Math.floor(options.lockDurationMs / 2)),
    // A task whose worker died is put back twice at most; a third death fails it instead of looping.
    maxStalledCount: 2,
    autorun: false,
  });
  worker.on("completed", (job, result) => options.report({ event: "completed", job: job.id, subtype: result.subtype, attempt: result.attempt }));
  worker.on("failed", (job, error) => options.report({ event: "failed", job: job?.id, error: error.message }));
  worker.on("error", (error) => options.log(`[toolgate worker] ${error.message}\n`));
  // A lock that could not be renewed may already be another worker's: stop our run of that task rather than
  // let it finish a second time beside the other one.
  worker.on("lockRenewalFailed", (jobIds: string[]) => {
    for (const id of jobIds) {
      const controller = running.get(id);
      if (!controller) continue;
      options.report({ event: "lock_lost", job: id });
      controller.abort();
    }
  });

  let signals = 0;
  const stopped = new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      if (signals === 1) {
        options.report({ event: "stopping", signal, running: [...running.keys()] });
        // No new tasks; the running ones finish (a second signal puts them back instead).
        void worker.close().then(resolve, resolve);
      } else if (signals === 2) {
        puttingBack = true;
        options.report({ event: "putting_back", running: [...running.keys()] });
        for (const controller of running.values()) controller.abort();
      }
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });

  await worker.waitUntilReady();
  options.report({ event: "ready", pid: process.pid, worker: name, queue: options.queue, concurrency: options.concurrency });
  void worker.run();
  await stopped;
  await queue.close();
  await connection.quit().catch(() => undefined);
  options.report({ event: "stopped" });
  return 0;
}

export function defaultWorkDir(): string {
  return path.join(os.tmpdir(), "toolgate-fleet");
}
