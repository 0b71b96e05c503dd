import { Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { CollapsedText, ResultGutter, isTextTruncated, renderError, str, tint } from "../../ui/components/index.js";
import type { TaskOutputInput, TaskOutputOutput } from "./index.js";

const OUTPUT_LINES = 10;

export const renderer: ToolRenderer<TaskOutputInput, TaskOutputOutput> = {
  userFacingName: () => "Task Output",
  renderToolUseMessage(input) {
    const id = str(input.task_id) ?? "";
    return (
      <Text>
        {id}
        {input.block === false ? <Text dimColor> · no wait</Text> : null}
      </Text>
    );
  },
  renderToolResultMessage(result, _input, options) {
    const output = result.output;
    if (!output) return null;
    const exit = output.exitCode !== null && output.exitCode !== undefined ? `, exit code ${output.exitCode}` : "";
    const failed = output.status === "failed" || (output.exitCode !== null && output.exitCode !== 0);
    return (
      <ResultGutter>
        <Text>
          <Text color={failed ? tint("red") : undefined}>{`${output.status}${exit}`}</Text>
          <Text dimColor>{`${output.waitTimedOut ? " (still running when the wait ended)" : ""} · ${str(output.description) ?? ""}`}</Text>
        </Text>
        {output.output ? <CollapsedText text={output.output} expanded={options.expanded} maxLines={OUTPUT_LINES} /> : null}
      </ResultGutter>
    );
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result) => isTextTruncated(result.output?.output ?? "", OUTPUT_LINES),
};
