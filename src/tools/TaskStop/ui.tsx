import { Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { ResultGutter, renderError, str } from "../../ui/components/index.js";
import type { TaskStopInput, TaskStopOutput } from "./index.js";

export const renderer: ToolRenderer<TaskStopInput, TaskStopOutput> = {
  userFacingName: () => "Stop Task",
  renderToolUseMessage(input) {
    return <Text>{str(input.task_id) ?? ""}</Text>;
  },
  renderToolResultMessage(result) {
    const output = result.output;
    if (!output) return null;
    return (
      <ResultGutter>
        <Text>
          {output.stopped ? `Stopped ${str(output.taskId)}` : `${str(output.taskId)} was not running (${output.status}${output.statusDetail ? `: ${str(output.statusDetail)}` : ""})`}
          <Text dimColor>{` · ${str(output.description) ?? ""}`}</Text>
        </Text>
      </ResultGutter>
    );
  },
  renderToolUseErrorMessage: renderError,
};
