import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import type { PermissionMode } from "../../core/permissionTypes.js";
import { EXIT_PLAN_MODE_TOOL_NAME, exitPlanModeDescription, exitPlanModePrompt } from "./prompt.js";

export { EXIT_PLAN_MODE_TOOL_NAME };

const inputSchema = () =>
  z.strictObject({
    plan: z.string().trim().min(1, "write the plan (markdown) in plan").max(100_000, "keep the plan under 100,000 characters").describe("The plan, in markdown"),
  });

export type ExitPlanModeInput = z.infer<ReturnType<typeof inputSchema>>;

export interface ExitPlanModeOutput {
  plan: string;
  /** The mode the session is in now that the plan was approved. */
  mode: PermissionMode;
}

/**
 * Leaving plan mode is the user's call: the tool always asks, so the permission dialog (or the SDK host's
 * can_use_tool) shows the plan; a yes runs the call, which leaves plan mode; a no is a deny whose message
 * carries the user's feedback. With no one to ask, the non-interactive deny keeps the session in plan mode.
 */
export const ExitPlanModeTool = buildTool<ExitPlanModeInput, ExitPlanModeOutput>({
  name: EXIT_PLAN_MODE_TOOL_NAME,
  searchHint: "plan mode approve plan start implementing",
  maxResultSizeChars: 10_000,
  inputSchema,
  description: () => exitPlanModeDescription(),
  prompt: () => exitPlanModePrompt(),
  // It changes the session's mode, never a file: plan mode must let it through to the question.
  isReadOnly: () => true,
  describeInput: (input) => {
    const plan = typeof input.plan === "string" ? input.plan : "";
    const first = plan.split("\n").find((l) => l.trim()) ?? "";
    return first.replace(/^#+\s*/, "").slice(0, 80) || "plan";
  },
  toAutoClassifierInput: () => "",
  async validateInput(_input, context) {
    const mode = context.getAppState().toolPermissionContext.mode;
    if (mode !== "plan") {
      return { result: false, errorCode: 1, message: `The session is not in plan mode (it is in ${mode} mode), so there is no plan mode to exit. Go on with the task; do not call ExitPlanMode again.` };
    }
    return { result: true };
  },
  checkPermissions: async (input) => ({
    behavior: "ask",
    message: "Leaving plan mode needs the user's approval of the plan.",
    decisionReason: { type: "tool", reason: "a plan needs the user's approval" },
    suggestions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }],
    updatedInput: input,
  }),
  async call(input, context) {
    // "Yes, and accept edits" already switched the mode; a plain yes leaves plan mode for default.
    const current = context.getAppState().toolPermissionContext.mode;
    const mode: PermissionMode = current === "plan" ? "default" : current;
    if (current === "plan") context.setAppState((prev) => ({ ...prev, toolPermissionContext: { ...prev.toolPermissionContext, mode } }));
    return { data: { plan: input.plan, mode } };
  },
  mapToolResultToToolResultBlockParam(output, toolUseID) {
    const edits = output.mode === "acceptEdits" ? " File edits are accepted without asking from now on." : "";
    return {
      type: "tool_result",
      tool_use_id: toolUseID,
      content: `The user approved your plan and the session left plan mode (now ${output.mode} mode).${edits} Start on the work now, following the plan; keep a task list with TodoWrite if it has several steps.\n\nThe approved plan:\n${output.plan}`,
    };
  },
});
