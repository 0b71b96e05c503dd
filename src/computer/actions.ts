/** The computer tool's actions as xdotool and ImageMagick calls, in the model's coordinates. */
import { modelSize, regionToScreen, toModel, toScreen, type Point, type Size } from "./scaling.js";
import { runX, type ComputerDisplay } from "./x11.js";

export const COMPUTER_ACTIONS = [
  "screenshot",
  "left_click",
  "right_click",
  "middle_click",
  "double_click",
  "triple_click",
  "mouse_move",
  "left_click_drag",
  "left_mouse_down",
  "left_mouse_up",
  "scroll",
  "type",
  "key",
  "hold_key",
  "wait",
  "zoom",
  "cursor_position",
] as const;
export type ComputerAction = (typeof COMPUTER_ACTIONS)[number];

/** Actions that only look: they change nothing on the screen. */
export const OBSERVING_ACTIONS: ReadonlySet<ComputerAction> = new Set(["screenshot", "zoom", "cursor_position", "wait"]);

export type ComputerInput = {
  action: ComputerAction;
  coordinate?: [number, number];
  start_coordinate?: [number, number];
  text?: string;
  scroll_direction?: "up" | "down" | "left" | "right";
  scroll_amount?: number;
  duration?: number;
  region?: [number, number, number, number];
};

export interface Screenshot {
  base64: string;
  width: number;
  height: number;
}

export interface ComputerOutput {
  action: ComputerAction;
  text: string;
  image?: Screenshot;
}

export const MAX_TYPED_CHARS = 5_000;
export const MAX_WAIT_SECONDS = 30;
export const MAX_SCROLL_AMOUNT = 50;

const CLICK_BUTTON: Partial<Record<ComputerAction, { button: number; repeat: number }>> = {
  left_click: { button: 1, repeat: 1 },
  right_click: { button: 3, repeat: 1 },
  middle_click: { button: 2, repeat: 1 },
  double_click: { button: 1, repeat: 2 },
  triple_click: { button: 1, repeat: 3 },
};

const SCROLL_BUTTON = { up: 4, down: 5, left: 6, right: 7 } as const;

function inside(point: readonly number[], model: Size): boolean {
  return point[0] >= 0 && point[1] >= 0 && point[0] < model.width && point[1] < model.height;
}

/** What is wrong with the input for its action, in words the model can act on; undefined when it is fine. */
export function checkComputerInput(input: ComputerInput, model: Size): string | undefined {
  const bounds = `the screen is ${model.width}x${model.height}: x from 0 to ${model.width - 1}, y from 0 to ${model.height - 1}`;
  for (const key of ["coordinate", "start_coordinate"] as const) {
    const point = input[key];
    if (point && !inside(point, model)) return `${key} [${point.join(", ")}] is outside the screen; ${bounds}. Take a screenshot and use coordinates from it.`;
  }
  const need = (name: string, what: string) => `The ${input.action} action needs ${name}: ${what}.`;
  switch (input.action) {
    case "mouse_move":
      return input.coordinate ? undefined : need("coordinate", "[x, y] to move the pointer to");
    case "left_click_drag":
      if (!input.start_coordinate) return need("start_coordinate", "[x, y] where the drag starts");
      return input.coordinate ? undefined : need("coordinate", "[x, y] where the drag ends");
    case "scroll":
      if (!input.scroll_direction) return need("scroll_direction", "up, down, left or right");
      if (input.scroll_amount !== undefined && (input.scroll_amount < 1 || input.scroll_amount > MAX_SCROLL_AMOUNT)) return `scroll_amount must be from 1 to ${MAX_SCROLL_AMOUNT} (wheel clicks).`;
      return undefined;
    case "type":
      if (input.text === undefined || input.text === "") return need("text", "the text to type");
      return input.text.length > MAX_TYPED_CHARS ? `text is ${input.text.length} characters; type at most ${MAX_TYPED_CHARS} per call.` : undefined;
    case "key":
    case "hold_key":
      if (input.text === undefined || input.text.trim() === "") return need("text", 'the key or combination in xdotool names, e.g. "Return", "ctrl+s", "alt+Tab"');
      if (!/^[A-Za-z0-9_+\- ]+$/.test(input.text)) return `text ${JSON.stringify(input.text)} is not an xdotool key name: use names such as Return, Escape, ctrl+shift+t, Page_Down, F5 (to write characters, use the type action).`;
      if (input.action === "key") return undefined;
      return input.duration === undefined || input.duration <= 0 || input.duration > MAX_WAIT_SECONDS ? `hold_key needs duration, in seconds, above 0 and at most ${MAX_WAIT_SECONDS}.` : undefined;
    case "wait":
      return input.duration === undefined || input.duration < 0 || input.duration > MAX_WAIT_SECONDS ? `wait needs duration, in seconds, from 0 to ${MAX_WAIT_SECONDS}.` : undefined;
    case "zoom": {
      const r = input.region;
      if (!r) return need("region", "[x0, y0, x1, y1], the top-left and bottom-right corners of the area to see at full resolution");
      if (!inside([r[0], r[1]], model) || !inside([r[2], r[3]], model)) return `region [${r.join(", ")}] is outside the screen; ${bounds}.`;
      return r[2] < r[0] || r[3] < r[1] ? `region [${r.join(", ")}] must be [x0, y0, x1, y1] with x1 >= x0 and y1 >= y0.` : undefined;
    }
    default:
      if (input.text !== undefined && !/^[A-Za-z0-9_+\- ]*$/.test(input.text)) return `For ${input.action}, text may only name modifier keys to hold (e.g. "shift", "ctrl").`;
      return undefined;
  }
}

/** Waits `ms`, or less when the signal aborts (then it throws). */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error("The action was interrupted."));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error("The action was interrupted."));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The whole screen as PNG, scaled to the model's size. */
export async function takeScreenshot(display: ComputerDisplay, signal?: AbortSignal): Promise<Screenshot> {
  const { screen, model } = display;
  const resize = model.width === screen.width && model.height === screen.height ? [] : ["-resize", `${model.width}x${model.height}!`];
  const png = await runX(display.display, "import", ["-window", "root", ...resize, "png:-"], signal);
  return { base64: png.toString("base64"), width: model.width, height: model.height };
}

/** A region of the screen at full resolution (shrunk only if it exceeds the model's image limit). */
async function zoom(display: ComputerDisplay, region: [number, number, number, number], signal?: AbortSignal): Promise<Screenshot> {
  const rect = regionToScreen(region, display.screen, display.model);
  const fit = modelSize({ width: rect.width, height: rect.height });
  const resize = fit.width === rect.width && fit.height === rect.height ? [] : ["-resize", `${fit.width}x${fit.height}!`];
  const png = await runX(display.display, "import", ["-window", "root", "-crop", `${rect.width}x${rect.height}+${rect.x}+${rect.y}`, "+repage", ...resize, "png:-"], signal);
  return { base64: png.toString("base64"), width: fit.width, height: fit.height };
}

export async function cursorPosition(display: ComputerDisplay, signal?: AbortSignal): Promise<Point> {
  const out = (await runX(display.display, "xdotool", ["getmouselocation", "--shell"], signal)).toString();
  const x = Number(/^X=(\d+)/m.exec(out)?.[1]);
  const y = Number(/^Y=(\d+)/m.exec(out)?.[1]);
  if (!Number.isFinite(x) || !Number.isFinite(y)) throw new Error(`xdotool did not report the pointer: ${out.trim()}`);
  return toModel({ x, y }, display.screen, display.model);
}

function modifiersOf(text: string | undefined): string[] {
  return (text ?? "").split(/[+\s]+/).filter(Boolean);
}

/** How long the screen is given to redraw after an input action before the screenshot that answers it. */
const SETTLE_MS = 300;

/** Runs one checked action. Keys and buttons it pressed are released even when it is interrupted. */
export async function performAction(input: ComputerInput, display: ComputerDisplay, signal?: AbortSignal): Promise<ComputerOutput> {
  const x = (...args: string[]) => runX(display.display, "xdotool", args, signal);
  const release = (...args: string[]) => runX(display.display, "xdotool", args).catch(() => undefined);
  const at = (point: [number, number]) => {
    const p = toScreen({ x: point[0], y: point[1] }, display.screen, display.model);
    return [String(p.x), String(p.y)];
  };
  const action = input.action;
  const answer = async (text: string): Promise<ComputerOutput> => {
    await pause(SETTLE_MS, signal);
    return { action, text, image: await takeScreenshot(display, signal) };
  };
  const where = input.coordinate ? ` at [${input.coordinate.join(", ")}]` : " at the pointer";
  switch (action) {
    case "screenshot":
      return { action, text: `Screenshot of the whole screen, ${display.model.width}x${display.model.height}.`, image: await takeScreenshot(display, signal) };
    case "zoom": {
      const image = await zoom(display, input.region!, signal);
      return { action, text: `The region [${input.region!.join(", ")}] at ${image.width}x${image.height}.`, image };
    }
    case "cursor_position": {
      const p = await cursorPosition(display, signal);
      return { action, text: `The pointer is at [${p.x}, ${p.y}].` };
    }
    case "wait":
      await pause(input.duration! * 1000, signal);
      return answer(`Waited ${input.duration} s.`);
    case "mouse_move":
      await x("mousemove", "--sync", ...at(input.coordinate!));
      return answer(`Moved the pointer to [${input.coordinate!.join(", ")}].`);
    case "left_click_drag":
      await x("mousemove", "--sync", ...at(input.start_coordinate!), "mousedown", "1");
      try {
        await x("mousemove", "--sync", ...at(input.coordinate!));
      } finally {
        await release("mouseup", "1");
      }
      return answer(`Dragged from [${input.start_coordinate!.join(", ")}] to [${input.coordinate!.join(", ")}].`);
    case "left_mouse_down":
    case "left_mouse_up":
      await x(...(input.coordinate ? ["mousemove", "--sync", ...at(input.coordinate)] : []), action === "left_mouse_down" ? "mousedown" : "mouseup", "1");
      return answer(`${action === "left_mouse_down" ? "Pressed" : "Released"} the left button${where}.`);
    case "scroll": {
      const amount = input.scroll_amount ?? 3;
      await x(...(input.coordinate ? ["mousemove", "--sync", ...at(input.coordinate)] : []), "click", "--repeat", String(amount), "--delay", "30", String(SCROLL_BUTTON[input.scroll_direction!]));
      return answer(`Scrolled ${input.scroll_direction} ${amount}${where}.`);
    }
    case "type":
      // Short chunks, so an interrupt stops typing within one of them.
      for (let i = 0; i < input.text!.length; i += 50) await x("type", "--delay", "12", "--", input.text!.slice(i, i + 50));
      return answer(`Typed ${input.text!.length} characters.`);
    case "key":
      await x("key", "--delay", "30", "--", ...input.text!.trim().split(/\s+/));
      return answer(`Pressed ${input.text!.trim()}.`);
    case "hold_key": {
      const keys = input.text!.trim().split(/\s+/);
      await x("keydown", "--", ...keys);
      try {
        await pause(input.duration! * 1000, signal);
      } finally {
        await release("keyup", "--", ...keys);
      }
      return answer(`Held ${input.text!.trim()} for ${input.duration} s.`);
    }
    default: {
      const click = CLICK_BUTTON[action]!;
      const mods = modifiersOf(input.text);
      if (mods.length) await x("keydown", "--", ...mods);
      try {
        await x(...(input.coordinate ? ["mousemove", "--sync", ...at(input.coordinate)] : []), "click", "--repeat", String(click.repeat), "--delay", "80", String(click.button));
      } finally {
        if (mods.length) await release("keyup", "--", ...mods);
      }
      return answer(`${action.replace("_", " ")}${where}${mods.length ? ` holding ${mods.join("+")}` : ""}.`);
    }
  }
}
