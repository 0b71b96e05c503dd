import { Box, Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { CollapsedText, ResultGutter, ToolRejected, compactJson, contentText, formatDuration, isTextTruncated, oneLine, plural, renderError, str } from "../../ui/components/index.js";

export interface AgentInput {
  description: string;
  prompt: string;
  subagent_type?: string;
}

/** Steps of a running subagent shown until Ctrl+O (the newest ones). */
const LIVE_STEPS = 5;
const ANSWER_LINES = 8;

interface Step {
  kind: "tool" | "text" | "other";
  text: string;
}

/** A progress event as a step: `{type: "tool_use", name, summary}`, `{type: "text", text}`, else its JSON. */
function stepOf(event: unknown, width: number): Step | undefined {
  if (event === null || event === undefined) return undefined;
  const item = (typeof event === "object" && !("type" in event) && "data" in event ? (event as { data: unknown }).data : event) as Record<string, unknown> | null;
  if (item && typeof item === "object") {
    // what the Agent tool streams (SubagentProgress): a call, its outcome, the subagent's text, notices
    if (item.type === "subagent_tool_use") {
      const name = str(item.toolName) ?? "tool";
      const summary = str(item.summary);
      return { kind: "tool", text: summary ? `${name}(${oneLine(summary, width)})` : name };
    }
    if (item.type === "subagent_tool_result") {
      return item.outcome === "success" ? undefined : { kind: "other", text: `${str(item.toolName) ?? "tool"}: ${str(item.outcome) ?? "failed"}` };
    }
    if (item.type === "subagent_text") {
      const text = str(item.text);
      return text === undefined || text.trim() === "" ? undefined : { kind: "text", text: oneLine(text.trim(), width) };
    }
    if (item.type === "subagent_notice") {
      const message = str(item.message);
      return message ? { kind: "other", text: oneLine(`${str(item.level) ?? "info"}: ${message}`, width) } : undefined;
    }
    if (item.type === "tool_use") {
      const name = str(item.name) ?? "tool";
      const summary = str(item.summary);
      return { kind: "tool", text: summary ? `${name}(${oneLine(summary, width)})` : name };
    }
    if (item.type === "text") {
      const text = str(item.text);
      return text === undefined || text.trim() === "" ? undefined : { kind: "text", text: oneLine(text.trim(), width) };
    }
  }
  return { kind: "other", text: compactJson(item, width) };
}

function Steps({ progress, width, expanded }: { progress: readonly unknown[]; width: number; expanded: boolean }) {
  const steps = progress.flatMap((p) => stepOf(p, width) ?? []);
  if (steps.length === 0) return <Text dimColor>Starting…</Text>;
  const shown = expanded ? steps : steps.slice(-LIVE_STEPS);
  const hidden = steps.length - shown.length;
  return (
    <Box flexDirection="column">
      {hidden > 0 ? <Text dimColor>{`… +${plural(hidden, "earlier step")} (ctrl+o to expand)`}</Text> : null}
      {shown.map((step, i) => (
        <Text key={i} dimColor={step.kind !== "tool"}>
          {step.kind === "tool" ? `● ${step.text}` : `  ${step.text}`}
        </Text>
      ))}
    </Box>
  );
}

function answerOf(result: { output?: unknown; content: Parameters<typeof contentText>[0] }): string {
  const output = result.output as { text?: unknown } | string | undefined;
  if (typeof output === "string") return output;
  return str(output?.text) ?? contentText(result.content);
}

export const renderer: ToolRenderer<AgentInput> = {
  userFacingName: (input) => str(input?.subagent_type) ?? "Agent",
  renderToolUseMessage(input) {
    const description = str(input.description) ?? "";
    return <Text>{description}</Text>;
  },
  renderToolUseProgressMessage(progress, _input, options) {
    return (
      <ResultGutter>
        <Steps progress={progress} width={Math.max(20, options.columns - 12)} expanded={options.expanded} />
      </ResultGutter>
    );
  },
  renderToolResultMessage(result, _input, options) {
    const output = result.output as { toolUseCount?: unknown; turns?: unknown; stopReason?: unknown } | undefined;
    const stopReason = str(output?.stopReason);
    const ending = stopReason && stopReason !== "completed" ? `Stopped (${stopReason.replace(/_/g, " ")})` : "Done";
    const facts = [
      ending,
      typeof output?.turns === "number" ? plural(output.turns, "turn") : undefined,
      typeof output?.toolUseCount === "number" ? plural(output.toolUseCount, "tool use") : undefined,
      result.durationMs !== undefined ? formatDuration(result.durationMs) : undefined,
    ].filter(Boolean);
    return (
      <ResultGutter>
        <Text>{facts.join(" · ")}</Text>
        <CollapsedText text={answerOf(result)} expanded={options.expanded} maxLines={ANSWER_LINES} dimColor />
      </ResultGutter>
    );
  },
  renderToolUseRejectedMessage(input, options) {
    return <ToolRejected what={`agent: ${str(input.description) ?? ""}`} reason={options.reason} />;
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result) => isTextTruncated(answerOf(result), ANSWER_LINES),
};
