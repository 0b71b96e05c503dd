export const EXIT_PLAN_MODE_TOOL_NAME = "ExitPlanMode";

/** Sent with each prompt while the session is in plan mode, so the model knows before a write is denied. */
export function planModeReminder(): string {
  return `<system-reminder>
The session is in plan mode: the user wants a plan before any change. Only read-only tools run (reading, searching, TodoWrite, AskUserQuestion); anything that changes a file or runs a changing command is denied. Investigate, then present the plan with ${EXIT_PLAN_MODE_TOOL_NAME} and wait for the user's approval; for a question that needs no change, just answer.
</system-reminder>`;
}

export function exitPlanModeDescription(): string {
  return "In plan mode: present your finished plan to the user and ask to leave plan mode and start the work.";
}

export function exitPlanModePrompt(): string {
  return `Use this only in plan mode, once your plan is ready: it shows the plan to the user, who approves it (plan mode ends and you may change files) or sends you back to keep planning with their feedback.

- plan: the plan in markdown, concise and concrete: the files you will change, how, and how you will check the result.
- Call it for tasks where you will write code. For research or questions that change nothing, just answer; there is no plan to approve.
- Do not ask "is this plan okay?" in text or with another tool first: calling ExitPlanMode is that question.
- If the result says the plan was not approved, read the user's feedback, stay in plan mode, revise the plan and call ExitPlanMode again.`;
}
