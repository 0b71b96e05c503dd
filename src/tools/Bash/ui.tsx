import { Box, Text } from "ink";
import type { RenderOptions, ToolRenderer } from "../../ui/toolRenderer.js";
import {
  CollapsedText,
  ResultText,
  contentText,
  ResultGutter,
  ToolRejected,
  formatBytes,
  formatDuration,
  isTextTruncated,
  linesOf,
  num,
  oneLine,
  renderError,
  str,
  terminalSafe,
  tint,
} from "../../ui/components/index.js";
import type { BashInput, BashOutput, BashProgress } from "./tool.js";

/** Lines of live output shown while the command runs. */
const LIVE_TAIL_LINES = 5;
/** Lines of a command the permission dialog shows at least before it cuts a long script. */
const COMMAND_PREVIEW_LINES = 20;
/** Lines of a finished command's output until Ctrl+O. */
const OUTPUT_LINES = 10;

function commandLine(input: Partial<BashInput>, options: RenderOptions): string {
  const command = str(input.command) ?? "";
  // a multi-line script shows whole only when expanded or verbose; the summary line stays one line
  return options.expanded || options.verbose ? command : oneLine(command, Math.max(20, options.columns - 12));
}

/** The newest progress event that looks like Bash's (`{type: "bash_progress", …}`, possibly wrapped in `{data}`). */
function latestProgress(progress: readonly unknown[]): BashProgress | undefined {
  for (let i = progress.length - 1; i >= 0; i--) {
    const item = progress[i] as { type?: unknown; data?: unknown } | null;
    const candidate = (item && typeof item === "object" && item.type === undefined ? item.data : item) as Partial<BashProgress> | null;
    if (candidate && typeof candidate === "object" && candidate.type === "bash_progress") return candidate as BashProgress;
  }
  return undefined;
}

function LiveTail({ progress }: { progress: BashProgress | undefined }) {
  if (!progress) return <Text dimColor>Running…</Text>;
  const lines = linesOf(typeof progress.output === "string" ? terminalSafe(progress.output, "output") : "");
  const tail = lines.slice(-LIVE_TAIL_LINES);
  const elapsed = num(progress.elapsedMs);
  const bytes = num(progress.totalBytes);
  return (
    <Box flexDirection="column">
      {lines.length > tail.length ? <Text dimColor>…</Text> : null}
      {tail.length > 0 ? <Text dimColor>{tail.join("\n")}</Text> : null}
      <Text dimColor>{`Running… ${elapsed !== undefined ? formatDuration(elapsed) : ""}${bytes ? ` · ${formatBytes(bytes)}` : ""}`.trimEnd()}</Text>
    </Box>
  );
}

function BashResult({ output, options }: { output: BashOutput; options: RenderOptions }) {
  if (output.backgroundTaskId) {
    return (
      <ResultGutter>
        <Text>
          {"Running in the background "}
          <Text dimColor>{`(task ${output.backgroundTaskId}${output.sandboxed ? ", sandboxed" : ""})`}</Text>
        </Text>
      </ResultGutter>
    );
  }
  const text = output.output ?? "";
  const details = [
    output.sandboxed ? "sandboxed" : undefined,
    output.truncated && output.totalBytes ? `output ${formatBytes(output.totalBytes)}, shortened${output.outputFile ? `; whole in ${terminalSafe(output.outputFile, "input")}` : ""}` : undefined,
  ].filter(Boolean);
  return (
    <ResultGutter>
      {text.trim() === "" ? <Text dimColor>(no output)</Text> : <CollapsedText text={text} expanded={options.expanded} maxLines={OUTPUT_LINES} />}
      {output.status ? <Text color={tint("red")}>{terminalSafe(output.status, "output")}</Text> : null}
      {(output.notes ?? []).map((note, i) => (
        <Text key={i} dimColor>
          {terminalSafe(note, "output")}
        </Text>
      ))}
      {details.length > 0 ? <Text dimColor>{`(${details.join("; ")})`}</Text> : null}
    </ResultGutter>
  );
}

export const renderer: ToolRenderer<BashInput, BashOutput> = {
  userFacingName: () => "Bash",
  renderToolUseMessage(input, options) {
    const background = input.run_in_background === true;
    const unsandboxed = input.dangerouslyDisableSandbox === true;
    return (
      <Text>
        {commandLine(input, options)}
        {background ? <Text dimColor> · background</Text> : null}
        {unsandboxed ? <Text color={tint("yellow")}> · outside the sandbox</Text> : null}
      </Text>
    );
  },
  renderPermissionPreview(input, options) {
    // the command is what is approved: it is shown whole, only a very long script is cut, and says so
    const lines = (str(input.command) ?? "").split("\n");
    const limit = options.expanded ? lines.length : Math.max(options.maxLines, COMMAND_PREVIEW_LINES);
    const description = str(input.description);
    return (
      <Box flexDirection="column">
        <Text>{lines.slice(0, limit).join("\n")}</Text>
        {lines.length > limit ? <Text dimColor>{`… +${lines.length - limit} more lines of this command (ctrl+o to show all)`}</Text> : null}
        {description ? <Text dimColor>{description}</Text> : null}
        {input.run_in_background === true ? <Text dimColor>runs in the background</Text> : null}
        {input.dangerouslyDisableSandbox === true ? <Text color={tint("yellow")}>runs outside the sandbox</Text> : null}
      </Box>
    );
  },
  renderToolUseProgressMessage(progress) {
    return (
      <ResultGutter>
        <LiveTail progress={latestProgress(progress)} />
      </ResultGutter>
    );
  },
  renderToolResultMessage(result, _input, options) {
    if (result.output) return <BashResult output={result.output} options={options} />;
    return <ResultText text={contentText(result.content)} options={options} />;
  },
  renderToolUseRejectedMessage(input, options) {
    return <ToolRejected what={oneLine(str(input.command) ?? "", Math.max(20, options.columns - 20))} reason={options.reason} />;
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result) => isTextTruncated(result.output?.output ?? "", OUTPUT_LINES),
};
