import type { BackgroundTask, TaskStatus } from "../../../src/core/tasks.js";

/** A task that is not a process (as a subagent will be): finishes when told to. */
export function createFakeTask(id: string, output: string): BackgroundTask & { finish(): void } {
  let status: TaskStatus = "running";
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  return {
    id,
    type: "agent",
    description: "summarise the repository",
    outputFile: `/tmp/${id}.md`,
    startedAt: Date.now(),
    status: () => status,
    exitCode: () => null,
    async waitForCompletion(timeoutMs, signal) {
      if (status !== "running") return true;
      return Promise.race([
        done.then(() => true),
        new Promise<boolean>((resolve) => {
          setTimeout(() => resolve(false), timeoutMs);
          signal?.addEventListener("abort", () => resolve(false), { once: true });
        }),
      ]);
    },
    readOutput: async () => output,
    async stop() {
      status = "killed";
      resolveDone();
    },
    finish() {
      status = "completed";
      resolveDone();
    },
  };
}
