import { Text } from "ink";
import type { ToolRenderer } from "./toolRenderer.js";

function summarize(input: Record<string, unknown>): string {
  const parts = Object.entries(input).map(([key, value]) => `${key}: ${typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? "…"}`);
  const line = parts.join(", ");
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

/** Any tool without a renderer of its own: its arguments on one line, the result's first lines. */
export const genericRenderer: ToolRenderer = {
  renderToolUseMessage(input) {
    return <Text>{summarize(input)}</Text>;
  },
};
