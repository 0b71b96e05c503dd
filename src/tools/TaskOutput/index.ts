import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import type { TaskStatus } from "../../core/tasks.js";
import { requireTask, validateTaskId } from "../tasks/taskLookup.js";
import { DEFAULT_WAIT_MS, MAX_WAIT_MS, TASK_OUTPUT_TOOL_NAME, taskOutputPrompt } from "./prompt.js";

const inputSchema = () =>
  z.strictObject({
    task_id: z.string().describe("The id of the background task"),
    block: z.boolean().default(true).describe("Wait for the task to finish (up to timeout) before answering"),
    timeout: z.number().int().min(0).max(MAX_WAIT_MS).default(DEFAULT_WAIT_MS).describe("How long to wait, in milliseconds"),
  });

export type TaskOutputInput = z.infer<ReturnType<typeof inputSchema>>;

export interface TaskOutputOutput {
  taskId: string;
  type: string;
  description: string;
  status: TaskStatus;
  exitCode: number | null;
  statusDetail?: string;
  output: string;
  outputFile: string;
  /** block was requested and the task was still running when the wait ended. */
  waitTimedOut: boolean;
}

export const TaskOutputTool = buildTool<TaskOutputInput, TaskOutputOutput>({
  name: TASK_OUTPUT_TOOL_NAME,
  aliases: ["BashOutput"],
  searchHint: "background task output status shell",
  maxResultSizeChars: 40_000,
  inputSchema,
  description: () => "Read the status and output of a background task.",
  prompt: () => taskOutputPrompt(),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  // reading the session's own task output reveals nothing the task did not already print
  checkPermissions: async (input) => ({ behavior: "allow", updatedInput: input }),
  toAutoClassifierInput: (input) => input.task_id,
  validateInput: validateTaskId,
  async call(input, context) {
    const task = requireTask(input.task_id, context);
    let waitTimedOut = false;
    if (input.block && task.status() === "running") {
      waitTimedOut = !(await task.waitForCompletion(input.timeout, context.abortController.signal));
      if (context.abortController.signal.aborted) waitTimedOut = false;
    }
    const status = task.status();
    return {
      data: {
        taskId: task.id,
        type: task.type,
        description: task.description,
        status,
        exitCode: task.exitCode(),
        statusDetail: task.statusDetail?.(),
        output: await task.readOutput(),
        outputFile: task.outputFile,
        waitTimedOut: waitTimedOut && status === "running",
      },
    };
  },
  mapToolResultToToolResultBlockParam(output, toolUseID) {
    const detail = output.statusDetail ? ` (${output.statusDetail})` : "";
    const state = {
      running: output.waitTimedOut ? "is still running: the wait timed out, call TaskOutput again to keep waiting" : "is running",
      completed: `has completed${detail}`,
      failed: `has failed${detail}`,
      killed: `was stopped${detail}`,
    }[output.status];
    const text = output.output.replace(/\s+$/, "");
    const lines = [
      `Task ${output.taskId} (${output.type}: ${output.description}) ${state}.`,
      `Output file: ${output.outputFile}`,
      ...(output.exitCode !== null ? [`Exit code: ${output.exitCode}`] : []),
      "Output:",
      text || (output.status === "running" ? "(no output yet)" : "(no output)"),
    ];
    return { type: "tool_result", tool_use_id: toolUseID, content: lines.join("\n") };
  },
});
