/**
 * The computer tool on a real X server: Xvfb started by the test or by the session, xterm in it, xdotool for
 * input. Waits are on events (a window mapped, the pixels changed), never on fixed sleeps.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSession, type Session } from "../../src/session/index.js";
import { runToolUse, type ToolResultUpdate } from "../../src/core/pipeline/index.js";
import type { CanUseToolFn, ToolUseContext } from "../../src/core/Tool.js";
import { buildPermissionContext, createNonInteractiveCanUseTool, hasPermissionsToUseTool } from "../../src/permissions/index.js";
import { loadSettings } from "../../src/session/settings.js";
import { openExistingDisplay, startVirtualDisplay, probeDisplay, type ComputerDisplay } from "../../src/computer/x11.js";
import { toScreen } from "../../src/computer/scaling.js";
import { createComputerTool } from "../../src/tools/Computer/index.js";
import { approveAll, assistantMessage, tempDir, testContext } from "../helpers.js";

const hasX = spawnSync("sh", ["-c", "command -v Xvfb && command -v xdotool && command -v xterm && command -v import"]).status === 0;

let nextId = 0;
async function run(context: ToolUseContext, input: unknown, canUseTool: CanUseToolFn = approveAll) {
  const results: ToolResultUpdate[] = [];
  for await (const update of runToolUse({ type: "tool_use", id: `toolu_cu_${nextId++}`, name: "computer", input }, assistantMessage(), canUseTool, context)) {
    if (update.type !== "progress") results.push(update);
  }
  expect(results).toHaveLength(1);
  const content = results[0].block.content;
  const blocks = typeof content === "string" ? [{ type: "text" as const, text: content }] : content;
  const text = blocks.map((b) => (b.type === "text" ? b.text : "")).join("\n");
  const image = blocks.find((b) => b.type === "image") as { source: { data: string } } | undefined;
  return { text, isError: results[0].block.is_error === true, png: image ? Buffer.from(image.source.data, "base64") : undefined };
}

function xdotool(display: string, ...args: string[]): string {
  return execFileSync("xdotool", args, { env: { ...process.env, DISPLAY: display }, timeout: 20_000 }).toString();
}

/** The raw grey pixels of a PNG's rectangle (ImageMagick), to compare two screenshots. */
function pixels(png: Buffer, rect: { x: number; y: number; width: number; height: number }): Buffer {
  return execFileSync("convert", ["png:-", "-crop", `${rect.width}x${rect.height}+${rect.x}+${rect.y}`, "+repage", "-colorspace", "Gray", "-depth", "8", "gray:-"], { input: png });
}

function differingBytes(a: Buffer, b: Buffer): number {
  let n = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) n++;
  return n + Math.abs(a.length - b.length);
}

function envWithoutDisplay(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.DISPLAY;
  return env;
}

/** Waits until xterm's window is mapped; its geometry on the screen. */
function xtermWindow(display: string): { x: number; y: number; width: number; height: number } {
  const out = xdotool(display, "search", "--sync", "--onlyvisible", "--class", "xterm", "getwindowgeometry", "--shell");
  const num = (key: string) => Number(new RegExp(`^${key}=(\\d+)`, "m").exec(out)![1]);
  return { x: num("X"), y: num("Y"), width: num("WIDTH"), height: num("HEIGHT") };
}

describe.skipIf(!hasX)("the computer tool on a session's virtual display", () => {
  let session: Session;
  beforeAll(async () => {
    session = await createSession({
      cwd: tempDir(),
      home: tempDir(),
      env: envWithoutDisplay(),
      sandbox: false,
      allowedTools: ["computer"],
      computerUse: true,
      computerUseApp: "xterm -geometry 60x10+0+0",
    });
  }, 60_000);
  afterAll(async () => {
    await session?.close();
  });

  it("a DISPLAY that answers is used only with --computer-use: never offered by default", async () => {
    const env = { ...envWithoutDisplay(), DISPLAY: session.computer!.display };
    const plain = await createSession({ cwd: tempDir(), home: tempDir(), env, sandbox: false });
    expect(plain.context.options.tools.some((t) => t.name === "computer")).toBe(false);
    expect(plain.computer).toBeUndefined();
    await plain.close();
    const asked = await createSession({ cwd: tempDir(), home: tempDir(), env, sandbox: false, computerUse: true });
    expect(asked.context.options.tools.some((t) => t.name === "computer")).toBe(true);
    expect(asked.computer).toMatchObject({ display: session.computer!.display, virtual: false });
    await asked.close();
    // closing a session on someone else's display leaves that display running
    expect(xdotool(session.computer!.display, "getdisplaygeometry").trim()).toMatch(/^\d+ \d+$/);
  });

  it("types into xterm: the pixels of its window change", async () => {
    const display = session.computer!;
    expect(display.virtual).toBe(true);
    expect(session.context.options.tools.some((t) => t.name === "computer")).toBe(true);
    const win = xtermWindow(display.display);
    const before = await run(session.context, { action: "screenshot" });
    expect(before.isError).toBe(false);
    const area = { x: win.x, y: win.y, width: Math.min(win.width, display.model.width - win.x), height: Math.min(win.height, display.model.height - win.y) };
    // Focus follows the pointer on a display without a window manager.
    expect((await run(session.context, { action: "mouse_move", coordinate: [win.x + 20, win.y + 20] })).isError).toBe(false);
    const typed = await run(session.context, { action: "type", text: "echo hello-toolgate" });
    expect(typed.text).toContain("Typed 19 characters");
    expect((await run(session.context, { action: "key", text: "Return" })).isError).toBe(false);
    const original = pixels(before.png!, area);
    let after: Buffer = original;
    for (let i = 0; i < 100 && differingBytes(original, after) === 0; i++) after = pixels((await run(session.context, { action: "screenshot" })).png!, area);
    expect(differingBytes(original, after)).toBeGreaterThan(50);
  }, 60_000);

  it("moves and reports the pointer; refuses coordinates off the screen and unknown actions", async () => {
    const { model } = session.computer!;
    await run(session.context, { action: "mouse_move", coordinate: [model.width - 1, model.height - 1] });
    expect((await run(session.context, { action: "cursor_position" })).text).toContain(`[${model.width - 1}, ${model.height - 1}]`);
    const off = await run(session.context, { action: "left_click", coordinate: [model.width, 5] });
    expect(off.isError).toBe(true);
    expect(off.text).toContain(`x from 0 to ${model.width - 1}`);
    const unknown = await run(session.context, { action: "jump" });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain("action");
    const missing = await run(session.context, { action: "type" });
    expect(missing.text).toContain("needs text");
    const zoom = await run(session.context, { action: "zoom", region: [0, 0, 99, 49] });
    expect(zoom.png!.readUInt32BE(16)).toBe(100);
    expect(zoom.png!.readUInt32BE(20)).toBe(50);
  }, 60_000);

  it("stops Xvfb and the app when the session closes", async () => {
    const probe = await createSession({ cwd: tempDir(), home: tempDir(), env: envWithoutDisplay(), sandbox: false, computerUse: true, computerUseApp: "xterm" });
    const { display, pid } = probe.computer!;
    expect(await probeDisplay(display)).toBeDefined();
    await probe.close();
    expect(() => process.kill(pid!, 0)).toThrow();
    expect(await probeDisplay(display)).toBeUndefined();
  }, 60_000);
});

describe.skipIf(!hasX)("the computer tool's permissions and scaling on a large screen", () => {
  let display: ComputerDisplay;
  let context: ToolUseContext;
  beforeAll(async () => {
    display = await startVirtualDisplay({ width: 2560, height: 1600 });
    context = testContext({ tools: [createComputerTool(display)] });
  }, 60_000);
  afterAll(async () => {
    await display?.close();
  });

  it("scales the screenshot and maps the model's coordinates to the pixel meant", async () => {
    expect(display.model.width).toBeLessThan(2560);
    const shot = await run(context, { action: "screenshot" });
    expect(shot.png!.readUInt32BE(16)).toBe(display.model.width);
    expect(shot.png!.readUInt32BE(20)).toBe(display.model.height);
    for (const [x, y] of [[0, 0], [100, 200], [display.model.width - 1, display.model.height - 1], [777, 333]]) {
      expect((await run(context, { action: "left_click", coordinate: [x, y] })).isError).toBe(false);
      const real = toScreen({ x, y }, display.screen, display.model);
      expect(xdotool(display.display, "getmouselocation", "--shell")).toContain(`X=${real.x}\nY=${real.y}\n`);
      expect((await run(context, { action: "cursor_position" })).text).toContain(`[${x}, ${y}]`);
    }
  }, 60_000);

  it("asks before clicking or typing, showing what; denies without anyone to ask; looking needs no approval on a virtual display", async () => {
    const asked: string[] = [];
    const recordAndDeny: CanUseToolFn = async (_tool, _input, _ctx, _msg, _id, decision) => {
      asked.push(decision.behavior === "ask" ? decision.message : decision.behavior);
      return { behavior: "deny", message: "The user said no." };
    };
    expect((await run(context, { action: "type", text: "rm -rf /" }, recordAndDeny)).isError).toBe(true);
    expect(asked[0]).toContain('type text "rm -rf /"');
    expect((await run(context, { action: "left_click", coordinate: [5, 6] }, recordAndDeny)).isError).toBe(true);
    expect(asked[1]).toContain("left_click at [5, 6]");
    const headless = await run(context, { action: "key", text: "ctrl+c" }, createNonInteractiveCanUseTool());
    expect(headless.isError).toBe(true);
    expect(headless.text).toContain("computer(key)");
    expect((await run(context, { action: "screenshot" }, recordAndDeny)).isError).toBe(false);
    expect(asked).toHaveLength(2);
  }, 60_000);

  it("on the person's own display a screenshot asks too, and a computer(screenshot) rule allows it alone", async () => {
    const own = (await openExistingDisplay(display.display))!;
    expect(own.virtual).toBe(false);
    let asked = "";
    const deny: CanUseToolFn = async (_tool, _input, _ctx, _msg, _id, decision) => {
      asked = decision.behavior === "ask" ? decision.message : decision.behavior;
      return { behavior: "deny", message: "no" };
    };
    const ownContext = testContext({ tools: [createComputerTool(own)] });
    expect((await run(ownContext, { action: "screenshot" }, deny)).isError).toBe(true);
    expect(asked).toContain(`screenshot on your display ${display.display}`);
    const [cwd, home] = [tempDir(), tempDir()];
    const loaded = loadSettings({ cwd, home, managedSettingsPath: `${home}/none.json`, env: {} });
    const permissionContext = buildPermissionContext({ loaded, cwd, allowedTools: ["computer(screenshot)"], nonInteractive: true });
    const allowed = testContext({ tools: [createComputerTool(own)], cwd, home, permissionContext, permissionDecider: hasPermissionsToUseTool });
    expect((await run(allowed, { action: "screenshot" }, createNonInteractiveCanUseTool())).png).toBeDefined();
    expect((await run(allowed, { action: "left_click", coordinate: [1, 1] }, createNonInteractiveCanUseTool())).isError).toBe(true);
  }, 30_000);

  it("stops a long action on interrupt", async () => {
    const controller = new AbortController();
    const interrupted = testContext({ tools: [createComputerTool(display)], abortController: controller });
    const started = Date.now();
    const pending = run(interrupted, { action: "wait", duration: 20 });
    setTimeout(() => controller.abort(), 200);
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 30_000);
});

describe("without the X programs", () => {
  it("--computer-use says why the tool is not offered, and offers no computer tool", async () => {
    const saved = process.env.PATH;
    process.env.PATH = tempDir();
    try {
      const session = await createSession({ cwd: tempDir(), home: tempDir(), env: envWithoutDisplay(), sandbox: false, computerUse: true });
      expect(session.warnings.join("\n")).toContain("--computer-use: the computer tool is not offered: Xvfb could not start");
      expect(session.context.options.tools.some((t) => t.name === "computer")).toBe(false);
      expect(session.computer).toBeUndefined();
      await session.close();
    } finally {
      process.env.PATH = saved;
    }
  });

  it("without --computer-use and without DISPLAY, no tool and no warning", async () => {
    const session = await createSession({ cwd: tempDir(), home: tempDir(), env: envWithoutDisplay(), sandbox: false });
    expect(session.context.options.tools.some((t) => t.name === "computer")).toBe(false);
    expect(session.warnings.join("\n")).not.toContain("computer");
    await session.close();
  });
});
