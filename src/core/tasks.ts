/**
 * Background tasks (Bash `run_in_background` today, subagents later) live in a per-session registry
 * so TaskOutput and TaskStop can find them by id whatever kind they are.
 */
import { randomBytes } from "node:crypto";

export type TaskStatus = "running" | "completed" | "failed" | "killed";

export interface BackgroundTask {
  readonly id: string;
  /** e.g. "bash"; later "agent". */
  readonly type: string;
  readonly description: string;
  /** File the task's output is written to, readable by the user and the model. */
  readonly outputFile: string;
  readonly startedAt: number;
  status(): TaskStatus;
  /** The process exit code; null while running, when killed by a signal, or for tasks that have none. */
  exitCode(): number | null;
  /** How the task ended, in words ("exit code 2", "killed by SIGTERM", "stopped by TaskStop"); undefined while running. */
  statusDetail?(): string | undefined;
  /** When the task ended (ms since epoch); undefined while running. */
  endedAt?(): number | undefined;
  /** Resolves true when the task has finished, false when the timeout passed or the signal aborted first. */
  waitForCompletion(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  /** Output so far, bounded: the head and tail of a large output with the count cut. */
  readOutput(): Promise<string>;
  /** Stop the task and everything it started; resolves when it has stopped. */
  stop(): Promise<void>;
}

export interface TaskRegistry {
  /** Register a task; its id must be new in this registry. */
  add(task: BackgroundTask): void;
  get(id: string): BackgroundTask | undefined;
  list(): BackgroundTask[];
  /** Stop every running task (session end); never rejects. */
  stopAll(): Promise<void>;
}

/** A short id that is unlikely to repeat within a session: `prefix` + 8 hex digits (e.g. `b3f09a1c2`). */
export function createTaskId(prefix: string): string {
  return `${prefix}${randomBytes(4).toString("hex")}`;
}

export function createTaskRegistry(): TaskRegistry {
  const tasks = new Map<string, BackgroundTask>();
  return {
    add(task) {
      if (tasks.has(task.id)) throw new Error(`A background task with id ${task.id} is already registered.`);
      tasks.set(task.id, task);
    },
    get: (id) => tasks.get(id),
    list: () => [...tasks.values()],
    async stopAll() {
      await Promise.allSettled([...tasks.values()].filter((t) => t.status() === "running").map((t) => t.stop()));
    },
  };
}
