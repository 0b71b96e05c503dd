/** The Agent call in the terminal UI: its description, then the subagent's steps nested under it. */
import { Box, Text } from "ink";
import type { SubagentProgress } from "../../core/Tool.js";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import type { AgentInput, AgentOutput } from "./index.js";

/** Steps shown while it runs, newest last; older ones are counted, not drawn. */
const VISIBLE_STEPS = 5;

function oneLine(text: string, columns: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  const room = Math.max(20, columns - 8);
  return line.length > room ? `${line.slice(0, room - 1)}…` : line;
}

function isStep(value: unknown): value is SubagentProgress {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string" && (value as { type: string }).type.startsWith("subagent_");
}

/** The subagent's tool calls with their outcome, and its latest text. */
export function subagentSteps(progress: readonly unknown[]): { calls: Array<{ id: string; tool: string; summary: string; outcome?: string }>; text?: string } {
  const calls: Array<{ id: string; tool: string; summary: string; outcome?: string }> = [];
  let text: string | undefined;
  for (const step of progress.filter(isStep)) {
    if (step.type === "subagent_tool_use") calls.push({ id: step.toolUseID, tool: step.toolName, summary: step.summary });
    else if (step.type === "subagent_tool_result") {
      const call = calls.find((c) => c.id === step.toolUseID);
      if (call) call.outcome = step.outcome;
    } else if (step.type === "subagent_text") text = step.text;
  }
  return { calls, text };
}

export const renderer: ToolRenderer<AgentInput, AgentOutput> = {
  userFacingName: (input) => (input.subagent_type && input.subagent_type !== "general-purpose" ? `Agent(${input.subagent_type})` : "Agent"),
  renderToolUseMessage(input, options) {
    return <Text>{oneLine(typeof input.description === "string" ? input.description : "", options.columns)}</Text>;
  },
  renderToolUseProgressMessage(progress, _input, options) {
    const { calls, text } = subagentSteps(progress);
    const shown = calls.slice(-VISIBLE_STEPS);
    return (
      <Box flexDirection="column" paddingLeft={2}>
        {calls.length > shown.length ? <Text dimColor>… {calls.length - shown.length} earlier tool calls</Text> : null}
        {shown.map((c) => (
          <Text key={c.id} {...(c.outcome && c.outcome !== "success" ? { color: "red" } : c.outcome ? {} : { dimColor: true })}>
            {c.outcome ? (c.outcome === "success" ? "✓" : "✗") : "…"} {c.tool} {oneLine(c.summary, options.columns - c.tool.length - 4)}
          </Text>
        ))}
        {text ? <Text dimColor>{oneLine(text, options.columns)}</Text> : null}
      </Box>
    );
  },
  renderToolResultMessage(result, _input, options) {
    const output = result.output;
    if (!output) return <Text color={result.isError ? "red" : undefined}>{result.isError ? "Subagent failed" : "Done"}</Text>;
    const tokens = output.usage.input + output.usage.output;
    const summary = `${output.turns} turn${output.turns === 1 ? "" : "s"} · ${tokens} tokens · ${(output.durationMs / 1000).toFixed(1)} s`;
    const lines = output.text.split("\n");
    const body = options.expanded ? lines : lines.slice(0, 3);
    return (
      <Box flexDirection="column">
        <Text {...(result.isError ? { color: "red" } : { dimColor: true })}>
          {output.stopReason === "completed" ? "Done" : `Stopped (${output.stopReason.replace("_", " ")})`} · {summary}
        </Text>
        {body.map((line, i) => (
          <Text key={i}>{line}</Text>
        ))}
      </Box>
    );
  },
  isResultTruncated: (result) => (result.output?.text.split("\n").length ?? 0) > 3,
};
