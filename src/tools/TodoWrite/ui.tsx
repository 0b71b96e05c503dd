/** The task list in the terminal UI: one line per item, the one in progress by its active form. */
import { Box, Text } from "ink";
import type { TodoItem } from "../../core/Tool.js";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import type { TodoWriteInput, TodoWriteOutput } from "./index.js";

function TodoList({ todos }: { todos: readonly TodoItem[] }) {
  if (todos.length === 0) return <Text dimColor>(the task list is empty)</Text>;
  return (
    <Box flexDirection="column">
      {todos.map((t, i) =>
        t.status === "completed" ? (
          <Text key={i} dimColor strikethrough>
            ☒ {t.content}
          </Text>
        ) : t.status === "in_progress" ? (
          <Text key={i} bold>
            ◼ {t.activeForm}
          </Text>
        ) : (
          <Text key={i}>☐ {t.content}</Text>
        ),
      )}
    </Box>
  );
}

export const renderer: ToolRenderer<TodoWriteInput, TodoWriteOutput> = {
  userFacingName: () => "Update tasks",
  renderToolUseMessage(input) {
    const todos = Array.isArray(input.todos) ? input.todos : [];
    const done = todos.filter((t) => t?.status === "completed").length;
    return <Text dimColor>{`${done}/${todos.length} done`}</Text>;
  },
  renderToolResultMessage(result) {
    return result.output ? <TodoList todos={result.output.newTodos} /> : null;
  },
};
