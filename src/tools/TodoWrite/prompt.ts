export const TODO_WRITE_TOOL_NAME = "TodoWrite";

export function todoWriteDescription(): string {
  return "Save your task list for this session (the whole list, each time).";
}

export function todoWritePrompt(): string {
  return `Keeps your task list for this session, shown to the user. Each call replaces the whole list.

Use it for work with several steps (three or more), when the user gives you a list of things to do, or when new steps turn up while you work. Skip it for a single quick step.

- todos: every item, each {content, status, activeForm}. content says what to do ("Run the tests"); activeForm is the same in the present continuous ("Running the tests"), shown while the item is in progress.
- status: pending, in_progress or completed. Exactly one item is in_progress while you work; mark it before you start on it.
- Mark an item completed as soon as it is done, and only when it is: tests pass, the change is made. If you are blocked, keep it in_progress and add an item for what blocks you.
- Remove items that no longer matter.`;
}
