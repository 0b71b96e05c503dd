import type { BackgroundTask } from "../../core/tasks.js";
import type { ToolUseContext, ValidationResult } from "../../core/Tool.js";

/** The ids a model can use, for an error message. */
function describeKnownTasks(context: ToolUseContext): string {
  const tasks = context.tasks.list();
  if (!tasks.length) return "No background tasks exist in this session.";
  return `Known tasks: ${tasks.map((t) => `${t.id} (${t.status()})`).join(", ")}.`;
}

function unknownTaskMessage(taskId: string, context: ToolUseContext): string {
  return `No background task has the id ${taskId}. ${describeKnownTasks(context)}`;
}

/** validateInput for tools that take a `task_id`: it must name a task of this session. */
export async function validateTaskId(input: { task_id: string }, context: ToolUseContext): Promise<ValidationResult> {
  return context.tasks.get(input.task_id) ? { result: true } : { result: false, message: unknownTaskMessage(input.task_id, context), errorCode: 1 };
}

/** The task a validated `task_id` names (it may have been removed since only by a bug, hence the throw). */
export function requireTask(taskId: string, context: ToolUseContext): BackgroundTask {
  const task = context.tasks.get(taskId);
  if (!task) throw new Error(unknownTaskMessage(taskId, context));
  return task;
}
