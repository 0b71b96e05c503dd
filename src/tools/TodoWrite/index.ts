import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import type { TodoItem } from "../../core/Tool.js";
import { TODO_WRITE_TOOL_NAME, todoWriteDescription, todoWritePrompt } from "./prompt.js";

export { TODO_WRITE_TOOL_NAME };

const todoSchema = z.strictObject({
  content: z.string().trim().min(1, "say what the item is").describe("What to do, in the imperative (\"Run the tests\")"),
  status: z.enum(["pending", "in_progress", "completed"]),
  activeForm: z.string().trim().min(1, "give the present-continuous form (\"Running the tests\")").describe("The same in the present continuous (\"Running the tests\")"),
});

const inputSchema = () =>
  z.strictObject({
    todos: z.array(todoSchema).max(100, "keep the list to at most 100 items").describe("The whole updated task list"),
  });

export type TodoWriteInput = z.infer<ReturnType<typeof inputSchema>>;

export interface TodoWriteOutput {
  oldTodos: TodoItem[];
  newTodos: TodoItem[];
}

/** The list the model keeps with TodoWrite; session state only, so it needs no permission. */
export const TodoWriteTool = buildTool<TodoWriteInput, TodoWriteOutput>({
  name: TODO_WRITE_TOOL_NAME,
  searchHint: "todo task list plan progress",
  maxResultSizeChars: 10_000,
  inputSchema,
  description: () => todoWriteDescription(),
  prompt: () => todoWritePrompt(),
  checkPermissions: async (input) => ({ behavior: "allow", updatedInput: input }),
  // It changes only the session's own list, never a file: plan mode (read-only) lets it run.
  isReadOnly: () => true,
  describeInput: (input) => {
    const todos = Array.isArray(input.todos) ? input.todos : [];
    const done = todos.filter((t) => t?.status === "completed").length;
    return `${todos.length} item${todos.length === 1 ? "" : "s"}, ${done} done`;
  },
  toAutoClassifierInput: () => "",
  async validateInput(input) {
    const active = input.todos.map((t, i) => ({ t, i })).filter(({ t }) => t.status === "in_progress");
    if (active.length > 1) {
      const which = active.map(({ t, i }) => `#${i + 1} "${t.content}"`).join(", ");
      return { result: false, errorCode: 1, message: `Only one item may be in_progress at a time, but ${active.length} are: ${which}. Set the others to pending (or completed) and call TodoWrite again.` };
    }
    return { result: true };
  },
  async call(input, context) {
    if (!context.todos) throw new Error("This session keeps no task list.");
    const oldTodos = [...context.todos.get()];
    const newTodos = input.todos.map((t) => ({ content: t.content, status: t.status, activeForm: t.activeForm }));
    context.todos.set(newTodos);
    return { data: { oldTodos, newTodos } };
  },
  mapToolResultToToolResultBlockParam(output, toolUseID) {
    const allDone = output.newTodos.length > 0 && output.newTodos.every((t) => t.status === "completed");
    const content = allDone
      ? "The task list was saved: every item is completed. Check that the work really is done (tests, build) before you report back."
      : output.newTodos.length === 0
        ? "The task list was saved (it is now empty)."
        : "The task list was saved. Keep it current: mark an item in_progress before you start it and completed as soon as it is done.";
    return { type: "tool_result", tool_use_id: toolUseID, content };
  },
});
