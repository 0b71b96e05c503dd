export const TASK_OUTPUT_TOOL_NAME = "TaskOutput";
export const DEFAULT_WAIT_MS = 30_000;
export const MAX_WAIT_MS = 600_000;

export function taskOutputPrompt(): string {
  return `Reads the status and output of a background task (a Bash command started with run_in_background).

- task_id: the id the Bash call returned.
- block (default true): wait until the task finishes or \`timeout\` milliseconds pass (default ${DEFAULT_WAIT_MS}, at most ${MAX_WAIT_MS}). Pass block: false to look without waiting.
- The result gives the status (running, completed, failed, killed), the exit code once it has one, and the output so far. Long output is shortened to its beginning and end; the full output is in the task's output file, which you can read or search.`;
}
