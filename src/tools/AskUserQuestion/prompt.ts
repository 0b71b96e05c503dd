export const ASK_USER_QUESTION_TOOL_NAME = "AskUserQuestion";

/** The picker adds this entry to every question, for an answer none of the options gives. */
export const OTHER_LABEL = "Other";

export function askUserQuestionDescription(): string {
  return "Ask the user 1 to 4 multiple-choice questions when you need their decision to go on, and get their answers back.";
}

export function askUserQuestionPrompt(): string {
  return `Ask the user questions when a choice is theirs to make (a library, an approach, a behaviour they want) and guessing would waste work. Each question is shown as a picker; the user picks an option, several with multiSelect, or types their own answer under "${OTHER_LABEL}", which is always offered.

- questions: 1 to 4, each with:
  - question: the whole question, ending with a question mark;
  - header: a very short label for it (at most 12 characters), such as "Library" or "Approach";
  - options: 2 to 4 distinct choices, each { label (1 to 5 words), description (what choosing it means) }; do not add an "${OTHER_LABEL}" option yourself;
  - multiSelect: true when the user may pick more than one.
- Ask only what you cannot find out by reading the code; do not ask whether your plan is ready (in plan mode, ExitPlanMode is that question).
- The result maps each question to the chosen label(s) (several joined with ", ") or to the text the user typed.
- If the call fails because no one can answer, do not ask again: decide yourself and say which assumption you made.`;
}
