import { Box, Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { ResultGutter, ToolRejected, contentText, renderError, str } from "../../ui/components/index.js";

export interface ComputerInputView {
  action?: string;
  coordinate?: unknown;
  start_coordinate?: unknown;
  text?: unknown;
  region?: unknown;
  scroll_direction?: unknown;
  scroll_amount?: unknown;
  duration?: unknown;
}

function pointText(value: unknown): string | undefined {
  return Array.isArray(value) && value.every((n) => typeof n === "number") ? `[${value.join(", ")}]` : undefined;
}

/** The call in a few words: "left_click at [10, 20]", "zoom [0, 0, 99, 49]". */
function summary(input: Partial<ComputerInputView>): string {
  const action = str(input.action) ?? "?";
  const from = pointText(input.start_coordinate);
  const at = pointText(input.coordinate);
  const region = pointText(input.region);
  const parts = [action, from && `from ${from}`, at && `${from ? "to" : "at"} ${at}`, region, str(input.scroll_direction)];
  if (action !== "type" && str(input.text)) parts.push(str(input.text));
  if (typeof input.duration === "number") parts.push(`${input.duration} s`);
  return parts.filter(Boolean).join(" ");
}

export const renderer: ToolRenderer<ComputerInputView> = {
  userFacingName: () => "Computer",
  renderToolUseMessage(input) {
    const typed = str(input.text);
    return <Text>{input.action === "type" && typed !== undefined ? `type ${JSON.stringify(typed.length > 60 ? `${typed.slice(0, 59)}…` : typed)}` : summary(input)}</Text>;
  },
  // The question shows exactly what would happen: the whole text to type (quoted, so control characters show), the place to click, the region.
  renderPermissionPreview(input) {
    const typed = str(input.text);
    return (
      <Box flexDirection="column">
        <Text>{summary(input)}</Text>
        {input.action === "type" && typed !== undefined ? <Text>text to type: {JSON.stringify(typed)}</Text> : null}
      </Box>
    );
  },
  renderToolResultMessage(result) {
    const images = Array.isArray(result.content) ? result.content.filter((b) => b?.type === "image").length : 0;
    return (
      <ResultGutter>
        <Text>{contentText(result.content).trim() || "(done)"}</Text>
        {images ? <Text dimColor>[screenshot sent to the model]</Text> : null}
      </ResultGutter>
    );
  },
  renderToolUseRejectedMessage(_input, options) {
    return <ToolRejected reason={options.reason} />;
  },
  renderToolUseErrorMessage: renderError,
};
