import { Box, Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { ResultGutter, ToolRejected, renderError, terminalSafe } from "../../ui/components/index.js";
import type { AskUserQuestionInput, AskUserQuestionOutput } from "./index.js";

export const renderer: ToolRenderer<AskUserQuestionInput, AskUserQuestionOutput> = {
  userFacingName: () => "Question",
  renderToolUseMessage(input) {
    const questions = Array.isArray(input.questions) ? input.questions : [];
    return questions.length === 1 ? terminalSafe(String(questions[0]?.question ?? ""), "input") : `${questions.length} questions`;
  },
  renderToolResultMessage(result) {
    const answers = result.output?.answers ?? {};
    return (
      <ResultGutter>
        <Box flexDirection="column">
          {Object.entries(answers).map(([question, answer]) => (
            <Text key={question}>
              <Text dimColor>{terminalSafe(question, "input")} </Text>
              {terminalSafe(answer, "input")}
            </Text>
          ))}
        </Box>
      </ResultGutter>
    );
  },
  renderToolUseRejectedMessage(_input, options) {
    return <ToolRejected what="questions" reason={options.reason} />;
  },
  renderToolUseErrorMessage: renderError,
};
