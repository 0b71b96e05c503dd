export const TASK_STOP_TOOL_NAME = "TaskStop";

export function taskStopPrompt(): string {
  return `Stops a background task (a Bash command started with run_in_background) and every process it started.

- task_id: the id the Bash call returned.
- Stopping a task that has already finished changes nothing; the result says how it ended. Its output stays readable with TaskOutput.`;
}
