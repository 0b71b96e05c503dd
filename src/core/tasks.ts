/**
 * Background tasks (Bash `run_in_background` today, subagents later) live in a per-session registry
 * so TaskOutput and TaskStop can find them by id whatever kind they are.
 */

export type TaskStatus = "running" | "completed" | "failed" | "killed";

export interface BackgroundTask {
  readonly id: string;
  /** e.g. "bash". */
  readonly type: string;
  readonly description: string;
  /** File the task's output is written to, readable by the user and the model. */
  readonly outputFile: string;
  readonly startedAt: number;
  status(): TaskStatus;
  exitCode(): number | null;
  /** Resolves true when the task has finished, false when the timeout passed or the signal aborted first. */
  waitForCompletion(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  /** Output so far, bounded: the head and tail of a large output with the count cut. */
  readOutput(): Promise<string>;
  /** Stop the task and everything it started. */
  stop(): Promise<void>;
}

export interface TaskRegistry {
  add(task: BackgroundTask): void;
  get(id: string): BackgroundTask | undefined;
  list(): BackgroundTask[];
  /** Stop every running task (session end). */
  stopAll(): Promise<void>;
}

export function createTaskRegistry(): TaskRegistry {
  const tasks = new Map<string, BackgroundTask>();
  return {
    add: (task) => void tasks.set(task.id, task),
    get: (id) => tasks.get(id),
    list: () => [...tasks.values()],
    async stopAll() {
      await Promise.all([...tasks.values()].filter((t) => t.status() === "running").map((t) => t.stop()));
    },
  };
}
