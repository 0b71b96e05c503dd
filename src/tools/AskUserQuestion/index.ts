import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import { ASK_USER_QUESTION_TOOL_NAME, OTHER_LABEL, askUserQuestionDescription, askUserQuestionPrompt } from "./prompt.js";

export { ASK_USER_QUESTION_TOOL_NAME, OTHER_LABEL };

const optionSchema = z.strictObject({
  label: z.string().trim().min(1, "give the option a label").max(100).describe("What the user sees and picks (1 to 5 words)"),
  description: z.string().max(1_000).describe("What choosing this option means"),
});

const questionSchema = z.strictObject({
  question: z.string().trim().min(1, "write the question").max(1_000).describe("The whole question, ending with a question mark"),
  header: z.string().trim().max(40).describe("A very short label for the question (at most 12 characters)"),
  options: z.array(optionSchema).min(2, "give each question at least 2 options").max(4, "give each question at most 4 options (the user can always type another answer)").describe("2 to 4 distinct choices; Other is added for you"),
  multiSelect: z.boolean().default(false).describe("Whether the user may pick more than one option"),
});

const inputSchema = () =>
  z.strictObject({
    questions: z.array(questionSchema).min(1, "ask at least 1 question").max(4, "ask at most 4 questions in one call").describe("1 to 4 questions"),
    // Filled by whoever answers (the picker, or the SDK host's can_use_tool answer), not by the model.
    answers: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional().describe("Leave out: the user's answers are filled in when they answer"),
    // Claude Code's other answer fields, so an SDK host's answer in its shape is taken as it is: notes reach the model.
    annotations: z.record(z.string(), z.object({ notes: z.string().optional() }).loose()).optional().describe("Leave out: the user's notes on their answers"),
    metadata: z.object({ source: z.string().optional() }).loose().optional().describe("Leave out"),
  });

export type AskUserQuestionInput = z.infer<ReturnType<typeof inputSchema>>;
export type Question = AskUserQuestionInput["questions"][number];

export interface AskUserQuestionOutput {
  questions: Question[];
  /** Question text → the chosen label(s), joined with ", ", or the text typed under Other. */
  answers: Record<string, string>;
  /** Question text → a note the user added to their answer. */
  notes: Record<string, string>;
}

/** One answer as text: several picked labels are joined as Claude Code joins them. */
function answerText(value: string | string[]): string {
  return (Array.isArray(value) ? value : [value]).map((v) => v.trim()).filter(Boolean).join(", ");
}

/**
 * Questions go to the person: the call always asks (a `userInput` ask, which no rule, mode or classifier
 * answers), the picker or the SDK host fills `answers` into the input, and the call hands them to the model.
 * Where no one can answer, the non-interactive deny tells the model to go on by itself.
 */
export const AskUserQuestionTool = buildTool<AskUserQuestionInput, AskUserQuestionOutput>({
  name: ASK_USER_QUESTION_TOOL_NAME,
  searchHint: "ask the user a question multiple choice decide clarify",
  maxResultSizeChars: 20_000,
  inputSchema,
  description: () => askUserQuestionDescription(),
  prompt: () => askUserQuestionPrompt(),
  // It changes nothing: plan mode lets it through to the question.
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  userFacingName: () => "Question",
  describeInput: (input) => {
    const questions = Array.isArray(input.questions) ? input.questions : [];
    const first = typeof questions[0]?.question === "string" ? questions[0].question : "";
    return questions.length > 1 ? `${questions.length} questions: ${first.slice(0, 60)}` : first.slice(0, 80);
  },
  toAutoClassifierInput: () => "",
  async validateInput(input) {
    const seen = new Set<string>();
    for (const [i, q] of input.questions.entries()) {
      if (seen.has(q.question)) return { result: false, errorCode: 1, message: `Question ${i + 1} repeats an earlier question word for word ("${q.question}"); answers are keyed by the question text, so make each question distinct.` };
      seen.add(q.question);
      const labels = q.options.map((o) => o.label);
      const twice = labels.find((l, j) => labels.indexOf(l) !== j);
      if (twice !== undefined) return { result: false, errorCode: 2, message: `Question ${i + 1} ("${q.question}") has two options labelled "${twice}"; give each option a distinct label.` };
      if (labels.some((l) => l.toLowerCase() === OTHER_LABEL.toLowerCase())) return { result: false, errorCode: 3, message: `Question ${i + 1} has an option labelled "${OTHER_LABEL}"; leave it out, the user can always type their own answer.` };
    }
    return { result: true };
  },
  checkPermissions: async (input) => ({
    behavior: "ask",
    message: "The model has questions for you.",
    decisionReason: { type: "userInput", reason: "questions for the user" },
    updatedInput: input,
  }),
  async call(input) {
    const given = input.answers ?? {};
    const answers: Record<string, string> = {};
    const notes: Record<string, string> = {};
    for (const q of input.questions) {
      const value = given[q.question];
      const text = value === undefined ? "" : answerText(value);
      if (text) answers[q.question] = text;
      const note = input.annotations?.[q.question]?.notes?.trim();
      if (note) notes[q.question] = note;
    }
    // an approval that brought no answer (a hook's allow, a host that did not fill answers) answered nothing
    if (Object.keys(answers).length === 0) {
      throw new Error("The call was approved but no answer came with it, so the user's answers are unknown. Do not ask again: go on with your own judgement and state the assumptions you made.");
    }
    return { data: { questions: input.questions, answers, notes } };
  },
  mapToolResultToToolResultBlockParam(output, toolUseID) {
    const lines = output.questions.map((q) => {
      const answer = output.answers[q.question];
      const note = output.notes[q.question];
      return `- "${q.question}" → ${answer !== undefined ? `"${answer}"` : "(not answered)"}${note ? ` (their note: ${note})` : ""}`;
    });
    return {
      type: "tool_result",
      tool_use_id: toolUseID,
      content: `The user answered your questions:\n${lines.join("\n")}\nGo on with these answers in mind.`,
    };
  },
});
