import { Box, Text } from "ink";
import type { ReactNode } from "react";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { ResultGutter, ToolRejected, plural, renderError, str, tint } from "../../ui/components/index.js";

export type TodoStatus = "pending" | "in_progress" | "completed";

export interface TodoWriteInput {
  todos: Array<{ content: string; status: TodoStatus; activeForm: string }>;
}

interface TodoView {
  content: string;
  status: string | undefined;
  activeForm: string | undefined;
}

/** The items that have arrived (the last may still be streaming in). */
function todosOf(input: Partial<TodoWriteInput>): TodoView[] {
  if (!Array.isArray(input.todos)) return [];
  return input.todos.flatMap((t) => (t && typeof t === "object" ? [{ content: str(t.content) ?? "", status: str(t.status), activeForm: str(t.activeForm) }] : []));
}

/** One item: its mark, then its text wrapping under itself. */
function Item({ mark, children }: { mark: ReactNode; children: ReactNode }) {
  return (
    <Box flexDirection="row">
      <Box flexShrink={0}>{mark}</Box>
      {children}
    </Box>
  );
}

/** ☐ pending, ◐ in progress (bold, in its "doing" form), ☑ done (struck through). */
export function Checklist({ todos }: { todos: readonly TodoView[] }) {
  if (todos.length === 0) return <Text dimColor>(no todos)</Text>;
  return (
    <Box flexDirection="column">
      {todos.map((todo, i) => {
        if (todo.status === "completed") {
          return (
            <Item key={i} mark={<Text dimColor>{"☑ "}</Text>}>
              <Text dimColor strikethrough>
                {todo.content}
              </Text>
            </Item>
          );
        }
        if (todo.status === "in_progress") {
          return (
            <Item key={i} mark={<Text bold color={tint("cyan")}>{"◐ "}</Text>}>
              <Text bold color={tint("cyan")}>
                {todo.activeForm || todo.content}
              </Text>
            </Item>
          );
        }
        return (
          <Item key={i} mark={<Text>{"☐ "}</Text>}>
            <Text>{todo.content}</Text>
          </Item>
        );
      })}
    </Box>
  );
}

function counts(todos: readonly TodoView[]): string {
  const done = todos.filter((t) => t.status === "completed").length;
  return `${plural(todos.length, "todo")}${todos.length > 0 ? `, ${done} done` : ""}`;
}

export const renderer: ToolRenderer<TodoWriteInput> = {
  userFacingName: () => "Update Todos",
  renderToolUseMessage(input) {
    return <Text dimColor>{counts(todosOf(input))}</Text>;
  },
  renderToolResultMessage(_result, input) {
    return (
      <ResultGutter>
        <Checklist todos={todosOf(input ?? {})} />
      </ResultGutter>
    );
  },
  renderToolUseRejectedMessage(input, options) {
    return (
      <ToolRejected what="todo list update" reason={options.reason}>
        <Checklist todos={todosOf(input)} />
      </ToolRejected>
    );
  },
  renderToolUseErrorMessage: renderError,
};
