export const STRUCTURED_OUTPUT_TOOL_NAME = "StructuredOutput";

export function structuredOutputDescription(): string {
  return "Give the final answer of this task as JSON matching the required schema. Call it exactly once, when the work is done; its input is the answer.";
}

export function structuredOutputSystemSection(): string {
  return `# Final answer\nThis run needs its answer as structured data. When the task is done, call the ${STRUCTURED_OUTPUT_TOOL_NAME} tool once with the answer as its input (it must match the tool's schema), then end your turn.`;
}

export function structuredOutputReminder(): string {
  return `You ended your turn without calling ${STRUCTURED_OUTPUT_TOOL_NAME}. Call it now with the final answer; its input must match the tool's schema.`;
}
