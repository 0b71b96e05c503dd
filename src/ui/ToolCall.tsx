/** One tool call (or a group of parallel uses of one tool) drawn by the tool's own renderer. */
import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { loadToolRenderer } from "./renderers.js";
import { genericRenderer } from "./genericRenderer.js";
import type { AnyToolRenderer, RenderOptions } from "./toolRenderer.js";
import { resultText, type ToolCallView } from "./viewModel.js";

/** Lines of a result shown before it is collapsed (when the tool's renderer does not decide). */
export const COLLAPSED_LINES = 6;

const cache = new Map<string, AnyToolRenderer>();

/** Loads a tool's renderer so it can be drawn synchronously; call it as soon as the call starts streaming. */
export async function ensureRenderer(name: string): Promise<void> {
  if (cache.has(name)) return;
  try {
    cache.set(name, await loadToolRenderer(name));
  } catch {
    // A renderer that fails to load must not hide the call: the generic one draws it.
    cache.set(name, genericRenderer);
  }
}

export function rendererFor(name: string): AnyToolRenderer {
  return cache.get(name) ?? genericRenderer;
}

/** A renderer that throws must not take the screen down: its call is drawn as plain text instead. */
function safely(draw: () => ReactNode, fallback: () => ReactNode): ReactNode {
  try {
    return draw();
  } catch {
    return fallback();
  }
}

function lines(text: string): string[] {
  const trimmed = text.replace(/\n+$/, "");
  return trimmed ? trimmed.split("\n") : [];
}

export function isCallTruncated(call: ToolCallView): boolean {
  if (!call.result) return false;
  const renderer = rendererFor(call.name);
  if (renderer.renderToolResultMessage && call.result.outcome === "success") {
    try {
      return renderer.isResultTruncated?.(call.result, call.input) ?? false;
    } catch {
      return false;
    }
  }
  return lines(resultText(call.result.content)).length > COLLAPSED_LINES;
}

function PlainResult({ text, expanded, color }: { text: string; expanded: boolean; color?: string }) {
  const all = lines(text);
  if (all.length === 0) return <Text dimColor>(no output)</Text>;
  const shown = expanded ? all : all.slice(0, COLLAPSED_LINES);
  return (
    <Box flexDirection="column">
      {shown.map((line, i) => (
        <Text key={i} color={color} wrap="truncate-end">
          {line || " "}
        </Text>
      ))}
      {shown.length < all.length && <Text dimColor>… +{all.length - shown.length} lines (ctrl+o to expand)</Text>}
    </Box>
  );
}

/** The recent output of a running call, from a progress event with an `output` text (Bash's shape), else nothing. */
function PlainProgress({ progress }: { progress: readonly unknown[] }) {
  const last = progress.at(-1) as { output?: unknown } | undefined;
  if (!last || typeof last.output !== "string") return null;
  const tail = lines(last.output).slice(-5);
  return (
    <Box flexDirection="column">
      {tail.map((line, i) => (
        <Text key={i} dimColor wrap="truncate-end">
          {line || " "}
        </Text>
      ))}
    </Box>
  );
}

function statusMark(call: ToolCallView): { mark: string; color?: string } {
  if (call.status !== "done") return { mark: call.status === "awaiting_permission" ? "?" : "○", color: call.status === "awaiting_permission" ? "yellow" : undefined };
  if (call.result?.outcome === "success") return { mark: "●", color: "green" };
  if (call.result?.outcome === "denied") return { mark: "✗", color: "yellow" };
  return { mark: "✗", color: "red" };
}

function Body({ call, renderer, options }: { call: ToolCallView; renderer: AnyToolRenderer; options: RenderOptions }) {
  const result = call.result;
  if (!result) {
    if (call.status === "awaiting_permission") return <Text color="yellow">waiting for your answer…</Text>;
    const progress = renderer.renderToolUseProgressMessage;
    if (progress && call.progress.length) return <>{safely(() => progress(call.progress, call.input, options), () => <PlainProgress progress={call.progress} />)}</>;
    return <PlainProgress progress={call.progress} />;
  }
  const text = resultText(result.content);
  if (result.outcome === "denied") {
    const reason = text.replace(/^<tool_use_error>|<\/tool_use_error>$/g, "");
    const rejected = renderer.renderToolUseRejectedMessage;
    if (rejected) return <>{safely(() => rejected(call.input, { ...options, reason }), () => <Text color="yellow">Rejected: {reason}</Text>)}</>;
    return <PlainResult text={`Rejected: ${reason}`} expanded={options.expanded} color="yellow" />;
  }
  if (result.outcome !== "success") {
    const message = text.replace(/^<tool_use_error>|<\/tool_use_error>$/g, "");
    const failed = renderer.renderToolUseErrorMessage;
    if (failed) return <>{safely(() => failed(message, call.input, options), () => <Text color="red">{message}</Text>)}</>;
    return <PlainResult text={message} expanded={options.expanded} color="red" />;
  }
  const draw = renderer.renderToolResultMessage;
  if (draw) {
    const drawn = safely(() => draw(result, call.input, options), () => <PlainResult text={text} expanded={options.expanded} />);
    const hidden = !options.expanded && isCallTruncated(call);
    return (
      <Box flexDirection="column">
        {drawn}
        {hidden && <Text dimColor>(ctrl+o to expand)</Text>}
      </Box>
    );
  }
  return <PlainResult text={text} expanded={options.expanded} />;
}

export function ToolCall({ call, options }: { call: ToolCallView; options: RenderOptions }) {
  const renderer = rendererFor(call.name);
  const name = safely(() => renderer.userFacingName?.(call.input) ?? call.name, () => call.name);
  const { mark, color } = statusMark(call);
  return (
    <Box flexDirection="column">
      <Box>
        {/* the mark and the name keep their width; the summary beside them wraps */}
        <Box flexShrink={0}>
          <Text color={color}>{mark} </Text>
          <Text bold>{name} </Text>
        </Box>
        <Box flexShrink={1}>{safely(() => renderer.renderToolUseMessage(call.input, options), () => <Text>{JSON.stringify(call.input).slice(0, 120)}</Text>)}</Box>
        {call.sandboxed && <Text dimColor> · sandboxed: no rule allowed it, so it runs read-only</Text>}
      </Box>
      <Box marginLeft={2} flexDirection="column">
        <Body call={call} renderer={renderer} options={options} />
      </Box>
    </Box>
  );
}

/** A turn's calls: consecutive uses of one tool as one block when its renderer draws groups, else one by one. */
export function ToolCalls({ calls, options }: { calls: readonly ToolCallView[]; options: RenderOptions }) {
  const groups: ToolCallView[][] = [];
  for (const call of calls) {
    const last = groups.at(-1);
    if (last && last[0]!.name === call.name) last.push(call);
    else groups.push([call]);
  }
  return (
    <Box flexDirection="column">
      {groups.map((group) => {
        const renderer = rendererFor(group[0]!.name);
        const grouped =
          group.length > 1 && renderer.renderGroupedToolUse
            ? safely(
                () => renderer.renderGroupedToolUse!(group.map((c) => ({ toolUseID: c.toolUseID, input: c.input, progress: c.progress, result: c.result })), options),
                () => null,
              )
            : null;
        if (grouped !== null && grouped !== undefined) return <Box key={group[0]!.toolUseID}>{grouped}</Box>;
        return group.map((call) => <ToolCall key={call.toolUseID} call={call} options={options} />);
      })}
    </Box>
  );
}
