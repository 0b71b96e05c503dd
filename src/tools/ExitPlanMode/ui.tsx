import { Box, Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { Markdown, ResultGutter, ToolRejected, renderError, str } from "../../ui/components/index.js";
import type { ExitPlanModeInput, ExitPlanModeOutput } from "./index.js";

/** The plan as the person reads it: rendered markdown, whole (they are asked to approve all of it). */
function Plan({ plan, columns }: { plan: string | undefined; columns: number }) {
  if (!plan) return <Text dimColor>(no plan yet)</Text>;
  return <Markdown columns={columns}>{plan}</Markdown>;
}

export const renderer: ToolRenderer<ExitPlanModeInput, ExitPlanModeOutput> = {
  userFacingName: () => "Plan",
  renderToolUseMessage: () => "ready to leave plan mode",
  renderPermissionPreview(input, options) {
    return (
      <Box flexDirection="column">
        <Text bold>Here is the plan:</Text>
        <Plan plan={str(input.plan)} columns={options.columns - 4} />
      </Box>
    );
  },
  renderToolResultMessage(result, _input, options) {
    return (
      <ResultGutter>
        <Text>
          Plan approved; now in {result.output?.mode ?? "default"} mode.
        </Text>
        {options.verbose ? <Plan plan={result.output?.plan} columns={options.columns - 4} /> : null}
      </ResultGutter>
    );
  },
  renderToolUseRejectedMessage(input, options) {
    return (
      <ToolRejected what="plan" reason={options.reason}>
        <Text dimColor>still in plan mode</Text>
      </ToolRejected>
    );
  },
  renderToolUseErrorMessage: renderError,
};
