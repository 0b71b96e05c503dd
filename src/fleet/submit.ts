/** `toolgate fleet submit|status|results|cancel`: the queue side of the fleet. */
import fs from "node:fs";
import path from "node:path";
import { Queue, type Job } from "bullmq";
import { commandConnection } from "./connection.js";
import { parseTaskFile, type FleetTask } from "./task.js";
import type { TaskResult } from "./runTask.js";

export interface FleetJobData {
  task: FleetTask;
  /** Where the task came from: the file and its line. */
  source: { file: string; line: number };
}

export interface QueueOptions {
  redis: string;
  queue: string;
}

async function withQueue<T>(options: QueueOptions, use: (queue: Queue<FleetJobData, TaskResult>) => Promise<T>): Promise<T> {
  const connection = commandConnection(options.redis);
  // Without a listener, ioredis prints every failed reconnect; the command's own error says it once.
  connection.on("error", () => undefined);
  const queue = new Queue<FleetJobData, TaskResult>(options.queue, { connection });
  queue.on("error", () => undefined);
  try {
    await queue.waitUntilReady();
    return await use(queue);
  } finally {
    await queue.close().catch(() => undefined);
    connection.disconnect();
  }
}

export interface SubmitSummary {
  queued: string[];
  /** Jobs that already existed with the same id (a resubmit), left as they were. */
  existing: string[];
}

/** Validates the whole file first (throws TaskFileError, queuing nothing), then adds each task once. */
export async function submitTasks(file: string, options: QueueOptions & { attempts: number }): Promise<SubmitSummary> {
  const absolute = path.resolve(file);
  const tasks = parseTaskFile(fs.readFileSync(absolute, "utf8"), fs.realpathSync(absolute));
  return withQueue(options, async (queue) => {
    const summary: SubmitSummary = { queued: [], existing: [] };
    for (const { jobId, line, task } of tasks) {
      // BullMQ ignores an add whose id exists (waiting, active, completed or failed); tell the two apart.
      const before = await queue.getJob(jobId);
      if (before) {
        summary.existing.push(jobId);
        continue;
      }
      // a relative cwd is the task file's, wherever submit was run from
      const resolved = task.cwd === undefined ? task : { ...task, cwd: path.resolve(path.dirname(absolute), task.cwd) };
      await queue.add("task", { task: resolved, source: { file: absolute, line } }, { jobId, attempts: options.attempts, removeOnComplete: false, removeOnFail: false });
      summary.queued.push(jobId);
    }
    return summary;
  });
}

export type JobCounts = Record<"waiting" | "active" | "delayed" | "prioritized" | "completed" | "failed" | "waiting-children", number>;

export async function queueStatus(options: QueueOptions): Promise<JobCounts> {
  return withQueue(options, async (queue) => (await queue.getJobCounts("waiting", "active", "delayed", "prioritized", "completed", "failed", "waiting-children")) as JobCounts);
}

export interface TaskRecord {
  id: string;
  state: string;
  line: number | undefined;
  file: string | undefined;
  prompt: string;
  attempts: number;
  progress: unknown;
  queuedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  worker: string | null;
  result: TaskResult | null;
  error: string | null;
}

async function record(job: Job<FleetJobData, TaskResult>): Promise<TaskRecord> {
  return {
    id: job.id!,
    state: await job.getState(),
    line: job.data?.source?.line,
    file: job.data?.source?.file,
    prompt: job.data?.task?.prompt ?? "",
    attempts: job.attemptsMade,
    progress: job.progress ?? null,
    queuedAt: job.timestamp,
    startedAt: job.processedOn ?? null,
    finishedAt: job.finishedOn ?? null,
    worker: job.processedBy ?? null,
    result: job.returnvalue ?? null,
    error: job.failedReason || null,
  };
}

/** Every task of the queue, in the order they were queued. */
export async function taskRecords(options: QueueOptions): Promise<TaskRecord[]> {
  return withQueue(options, async (queue) => {
    const jobs = await queue.getJobs(["waiting", "active", "delayed", "prioritized", "completed", "failed"], 0, -1, true);
    const records = await Promise.all(jobs.filter((job): job is Job<FleetJobData, TaskResult> => Boolean(job)).map(record));
    return records.sort((a, b) => a.queuedAt - b.queuedAt || (a.line ?? 0) - (b.line ?? 0));
  });
}

/** Removes the tasks no worker has started; running tasks finish. */
export async function cancelWaiting(options: QueueOptions): Promise<string[]> {
  return withQueue(options, async (queue) => {
    const jobs = await queue.getJobs(["waiting", "delayed", "prioritized"], 0, -1, true);
    const removed: string[] = [];
    for (const job of jobs) {
      if (!job) continue;
      // remove() refuses a job a worker locked in the meantime: that one is running and stays.
      const gone = await job.remove().then(() => true, () => false);
      if (gone) removed.push(job.id!);
    }
    return removed;
  });
}

export type FinishedState = "completed" | "failed";

/**
 * Removes the tasks that finished (`states`) at least `olderThanMs` ago, with their results; waiting and running
 * ones stay. A task removed can be submitted again (its id is free).
 */
export async function cleanFinished(options: QueueOptions & { states: readonly FinishedState[]; olderThanMs: number }): Promise<Record<FinishedState, string[]>> {
  return withQueue(options, async (queue) => {
    const removed: Record<FinishedState, string[]> = { completed: [], failed: [] };
    // 0: no limit on how many
    for (const state of options.states) removed[state] = await queue.clean(options.olderThanMs, 0, state);
    return removed;
  });
}
