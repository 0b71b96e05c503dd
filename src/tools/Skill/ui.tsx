import { Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { ResultGutter, ToolRejected, contentText, linesOf, oneLine, plural, renderError, str } from "../../ui/components/index.js";

export interface SkillInput {
  skill: string;
  args?: string;
}

export const renderer: ToolRenderer<SkillInput> = {
  userFacingName: () => "Skill",
  renderToolUseMessage(input, options) {
    const skill = str(input.skill) ?? "";
    const args = str(input.args);
    return (
      <Text>
        {skill}
        {args ? <Text dimColor>{` ${oneLine(args, Math.max(20, options.columns - skill.length - 20))}`}</Text> : null}
      </Text>
    );
  },
  renderToolResultMessage(result) {
    // the body is instructions for the model; the user sees that it was loaded
    const lines = linesOf(contentText(result.content)).length;
    return (
      <ResultGutter>
        <Text>{`Loaded the skill (${plural(lines, "line")} of instructions)`}</Text>
      </ResultGutter>
    );
  },
  renderToolUseRejectedMessage(input, options) {
    return <ToolRejected what={`skill ${str(input.skill) ?? ""}`} reason={options.reason} />;
  },
  renderToolUseErrorMessage: renderError,
};
