/** The CLI side of `toolgate fleet …` and `toolgate worker`. */
import { UsageError } from "./errors.js";
import { cancelWaiting, cleanFinished, defaultWorkDir, parseDuration, parseRate, queueStatus, runWorker, submitTasks, TaskFileError, taskRecords, type FinishedState } from "../fleet/index.js";
import { parseRedisUrl } from "../fleet/connection.js";

export interface FleetFlags {
  redis?: string;
  queue: string;
  json?: boolean;
}

function redisUrl(flags: { redis?: string }): string {
  const url = flags.redis ?? process.env.TOOLGATE_REDIS_URL;
  if (!url) throw new UsageError("--redis URL is required (or TOOLGATE_REDIS_URL), e.g. --redis redis://127.0.0.1:6379");
  try {
    parseRedisUrl(url);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return url;
}

function positiveInteger(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`${flag} ${text}: expected a whole number of at least 1`);
  return value;
}

class RedisUnreachable extends Error {}

/** Redis being away is the user's setup, not toolgate's fault: said in one line by the command (exit 1). */
async function reachingRedis<T>(url: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|Connection is closed|max retries|ETIMEDOUT/i.test(message)) {
      throw new RedisUnreachable(`cannot reach Redis at ${url}: ${message}`);
    }
    throw error;
  }
}

/** Runs a fleet command; an unreachable Redis is one line on stderr and exit 1. */
async function fleetCommand(run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof RedisUnreachable)) throw error;
    process.stderr.write(`toolgate: ${error.message}\n`);
    return 1;
  }
}

export async function fleetSubmitCommand(file: string, flags: FleetFlags & { attempts: string }): Promise<number> {
  return fleetCommand(async () => {
    const url = redisUrl(flags);
    const attempts = positiveInteger(flags.attempts, "--attempts");
    try {
      const summary = await reachingRedis(url, () => submitTasks(file, { redis: url, queue: flags.queue, attempts }));
      if (flags.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
      else {
        process.stdout.write(`queued ${summary.queued.length} task${summary.queued.length === 1 ? "" : "s"} on ${flags.queue}`);
        process.stdout.write(summary.existing.length ? ` (${summary.existing.length} already queued before, left as they are)\n` : "\n");
      }
      return 0;
    } catch (error) {
      if (error instanceof TaskFileError) {
        process.stderr.write(`toolgate: ${file} has bad tasks, so none was queued:\n${error.problems.map((p) => `  ${p}\n`).join("")}`);
        return 2;
      }
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new UsageError(`${file}: no such file`);
      throw error;
    }
  });
}

export async function fleetStatusCommand(flags: FleetFlags): Promise<number> {
  return fleetCommand(async () => {
    const url = redisUrl(flags);
    const counts = await reachingRedis(url, () => queueStatus({ redis: url, queue: flags.queue }));
    if (flags.json) process.stdout.write(`${JSON.stringify(counts)}\n`);
    else {
      const shown = Object.entries(counts).filter(([state, n]) => n > 0 || ["waiting", "active", "completed", "failed"].includes(state));
      process.stdout.write(`${shown.map(([state, n]) => `${state} ${n}`).join(", ")}\n`);
    }
    return 0;
  });
}

export async function fleetResultsCommand(flags: FleetFlags): Promise<number> {
  return fleetCommand(async () => {
    const url = redisUrl(flags);
    const records = await reachingRedis(url, () => taskRecords({ redis: url, queue: flags.queue }));
    for (const record of records) {
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(record)}\n`);
        continue;
      }
      const where = record.line === undefined ? "" : ` (line ${record.line})`;
      const outcome = record.result
        ? `${record.result.subtype}: ${record.result.text.replace(/\s+/g, " ").slice(0, 100)}`
        : record.error
          ? `error: ${record.error}`
          : "";
      process.stdout.write(`${record.id}${where} ${record.state}${outcome ? ` ${outcome}` : ""}\n`);
    }
    return 0;
  });
}

export async function fleetCancelCommand(flags: FleetFlags): Promise<number> {
  return fleetCommand(async () => {
    const url = redisUrl(flags);
    const removed = await reachingRedis(url, () => cancelWaiting({ redis: url, queue: flags.queue }));
    if (flags.json) process.stdout.write(`${JSON.stringify({ removed })}\n`);
    else process.stdout.write(`removed ${removed.length} waiting task${removed.length === 1 ? "" : "s"}; running tasks finish\n`);
    return 0;
  });
}

export async function fleetCleanCommand(flags: FleetFlags & { completed?: boolean; failed?: boolean; olderThan: string }): Promise<number> {
  return fleetCommand(async () => {
    const url = redisUrl(flags);
    let olderThanMs: number;
    try {
      olderThanMs = parseDuration(flags.olderThan, "--older-than");
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    // Neither flag: both.
    const states: FinishedState[] = flags.completed || flags.failed ? [...(flags.completed ? (["completed"] as const) : []), ...(flags.failed ? (["failed"] as const) : [])] : ["completed", "failed"];
    const removed = await reachingRedis(url, () => cleanFinished({ redis: url, queue: flags.queue, states, olderThanMs }));
    if (flags.json) process.stdout.write(`${JSON.stringify(Object.fromEntries(states.map((state) => [state, removed[state]])))}\n`);
    else process.stdout.write(`${states.map((state) => `removed ${removed[state].length} ${state} task${removed[state].length === 1 ? "" : "s"}`).join(", ")}${olderThanMs > 0 ? ` that finished more than ${flags.olderThan} ago` : ""}\n`);
    return 0;
  });
}

export async function workerCommand(flags: { redis?: string; queue: string; concurrency: string; rate?: string; lockDuration: string; rateLimitWait: string; workDir?: string; json?: boolean }): Promise<number> {
  const url = redisUrl(flags);
  const concurrency = positiveInteger(flags.concurrency, "--concurrency");
  const lockDurationMs = positiveInteger(flags.lockDuration, "--lock-duration");
  const rateLimitWaitMs = positiveInteger(flags.rateLimitWait, "--rate-limit-wait");
  let rate: { max: number; durationMs: number } | undefined;
  try {
    rate = flags.rate === undefined ? undefined : parseRate(flags.rate);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return runWorker({
    redis: url,
    queue: flags.queue,
    concurrency,
    rate,
    lockDurationMs,
    rateLimitWaitMs,
    workDir: flags.workDir ?? defaultWorkDir(),
    // Events go to stdout as JSON lines with --json, else as short text; the sessions' stderr passes through.
    report: (event) => {
      if (flags.json) process.stdout.write(`${JSON.stringify(event)}\n`);
      else process.stdout.write(`[toolgate worker] ${Object.entries(event).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(" ")}\n`);
    },
    log: (text) => process.stderr.write(text),
  });
}
