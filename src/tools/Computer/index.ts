import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import type { Tool } from "../../core/Tool.js";
import type { ToolResultBlockParam } from "../../core/messages.js";
import type { PermissionResult } from "../../core/permissionTypes.js";
import { ruleSuggestions } from "../../permissions/index.js";
import { checkComputerInput, COMPUTER_ACTIONS, OBSERVING_ACTIONS, pause, performAction, type ComputerInput, type ComputerOutput } from "../../computer/actions.js";
import type { ComputerDisplay } from "../../computer/x11.js";
import { COMPUTER_DESCRIPTION, COMPUTER_TOOL_NAME, computerPrompt } from "./prompt.js";

export { COMPUTER_TOOL_NAME };

/** Actions are spaced at least this far apart: at most ten a second, whatever the model sends. */
export const MIN_ACTION_INTERVAL_MS = 100;

const point = z.tuple([z.number().int(), z.number().int()]);

const inputSchema = z.strictObject({
  action: z.enum(COMPUTER_ACTIONS).describe("The action to perform"),
  coordinate: point.optional().describe("[x, y] in screenshot pixels: where to click, move or scroll; the end of a drag"),
  start_coordinate: point.optional().describe("left_click_drag: [x, y] where the drag starts"),
  text: z.string().optional().describe("type: the text; key and hold_key: xdotool key names; clicks: modifier keys to hold"),
  scroll_direction: z.enum(["up", "down", "left", "right"]).optional().describe("scroll: the direction"),
  scroll_amount: z.number().int().optional().describe("scroll: wheel clicks (default 3)"),
  duration: z.number().optional().describe("wait and hold_key: seconds"),
  region: z.tuple([z.number().int(), z.number().int(), z.number().int(), z.number().int()]).optional().describe("zoom: [x0, y0, x1, y1] in screenshot pixels"),
});

function describeAction(input: Partial<ComputerInput>): string {
  const parts: string[] = [input.action ?? "?"];
  if (input.start_coordinate) parts.push(`from [${input.start_coordinate.join(", ")}]`);
  if (input.coordinate) parts.push(`${input.start_coordinate ? "to " : "at "}[${input.coordinate.join(", ")}]`);
  if (input.region) parts.push(`region [${input.region.join(", ")}]`);
  if (input.scroll_direction) parts.push(`${input.scroll_direction} ${input.scroll_amount ?? 3}`);
  if (input.text !== undefined) parts.push(input.action === "type" ? `text ${JSON.stringify(input.text)}` : input.text);
  if (input.duration !== undefined) parts.push(`${input.duration} s`);
  return parts.join(" ");
}

/**
 * The computer tool bound to one display. Looking (screenshot, zoom, cursor_position, wait) is allowed on a
 * virtual display toolgate started itself; on the person's own display it asks like everything else, because a
 * screenshot shows whatever is open there. Clicks, typing and keys always ask unless a `computer` rule allows them.
 */
export function createComputerTool(display: ComputerDisplay): Tool<ComputerInput, ComputerOutput> {
  let nextActionAt = 0;
  const displayNumber = /^:(\d+)/.exec(display.display)?.[1];
  return buildTool<ComputerInput, ComputerOutput>({
    name: COMPUTER_TOOL_NAME,
    searchHint: "computer use screen screenshot mouse click keyboard type gui desktop x11",
    maxResultSizeChars: Infinity,
    inputSchema,
    display: { width: display.model.width, height: display.model.height, ...(displayNumber ? { number: Number(displayNumber) } : {}) },
    description: () => COMPUTER_DESCRIPTION,
    prompt: () => computerPrompt(display.model.width, display.model.height),
    userFacingName: () => "Computer",
    describeInput: describeAction,
    isReadOnly: (input) => OBSERVING_ACTIONS.has(input.action),
    isConcurrencySafe: () => false,
    interruptBehavior: () => "cancel",
    toAutoClassifierInput: describeAction,
    async validateInput(input) {
      const problem = checkComputerInput(input, display.model);
      return problem ? { result: false, message: problem, errorCode: 1 } : { result: true };
    },
    // `computer(left_click)`, `computer(type)`: a rule naming actions (comma-separated) matches those actions.
    async preparePermissionMatcher(input) {
      return (ruleContent) => ruleContent.split(",").some((name) => name.trim() === input.action);
    },
    async checkPermissions(input): Promise<PermissionResult> {
      if (input.action === "wait" || (display.virtual && OBSERVING_ACTIONS.has(input.action))) return { behavior: "allow", updatedInput: input };
      const where = display.virtual ? `the virtual display ${display.display}` : `your display ${display.display}`;
      return {
        behavior: "passthrough",
        message: `The model wants to ${describeAction(input)} on ${where}.`,
        suggestions: ruleSuggestions({ toolName: COMPUTER_TOOL_NAME, ruleContent: input.action }),
      };
    },
    async call(input, context) {
      const signal = context.abortController.signal;
      const wait = nextActionAt - Date.now();
      if (wait > 0) await pause(wait, signal);
      try {
        return { data: await performAction(input, display, signal) };
      } finally {
        nextActionAt = Date.now() + MIN_ACTION_INTERVAL_MS;
      }
    },
    mapToolResultToToolResultBlockParam(output, toolUseID): ToolResultBlockParam {
      if (!output.image) return { type: "tool_result", tool_use_id: toolUseID, content: output.text };
      return {
        type: "tool_result",
        tool_use_id: toolUseID,
        content: [
          { type: "text", text: output.text },
          { type: "image", source: { type: "base64", media_type: "image/png", data: output.image.base64 } },
        ],
      };
    },
  });
}
