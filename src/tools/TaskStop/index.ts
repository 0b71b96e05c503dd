import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import type { TaskStatus } from "../../core/tasks.js";
import { requireTask, validateTaskId } from "../tasks/taskLookup.js";
import { TASK_STOP_TOOL_NAME, taskStopPrompt } from "./prompt.js";

const inputSchema = () =>
  z.strictObject({
    task_id: z.string().describe("The id of the background task to stop"),
  });

export type TaskStopInput = z.infer<ReturnType<typeof inputSchema>>;

export interface TaskStopOutput {
  taskId: string;
  description: string;
  /** It was running and has now been stopped. */
  stopped: boolean;
  status: TaskStatus;
  statusDetail?: string;
}

export const TaskStopTool = buildTool<TaskStopInput, TaskStopOutput>({
  name: TASK_STOP_TOOL_NAME,
  aliases: ["KillShell"],
  searchHint: "stop kill background task shell",
  maxResultSizeChars: 10_000,
  inputSchema,
  description: () => "Stop a background task and every process it started.",
  prompt: () => taskStopPrompt(),
  // stopping the session's own task undoes nothing the user approved
  checkPermissions: async (input) => ({ behavior: "allow", updatedInput: input }),
  toAutoClassifierInput: (input) => input.task_id,
  validateInput: validateTaskId,
  async call(input, context) {
    const task = requireTask(input.task_id, context);
    const wasRunning = task.status() === "running";
    if (wasRunning) await task.stop();
    return {
      data: { taskId: task.id, description: task.description, stopped: wasRunning, status: task.status(), statusDetail: task.statusDetail?.() },
    };
  },
  mapToolResultToToolResultBlockParam(output, toolUseID) {
    const content = output.stopped
      ? `Stopped task ${output.taskId} (${output.description}) and every process it started.`
      : `Task ${output.taskId} (${output.description}) was not running: it had ${output.status}${output.statusDetail ? ` (${output.statusDetail})` : ""}.`;
    return { type: "tool_result", tool_use_id: toolUseID, content };
  },
});
