/** `toolgate exec --computer-use`: the real CLI starts Xvfb and the app, runs computer calls, and stops both. */
import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { probeDisplay } from "../../src/computer/x11.js";
import { cliArgs, cliEnv } from "../cliCommand.js";
import { tempDir } from "../helpers.js";
import { agentEnv, project, runCli, serveModel } from "./agentRun.js";

const hasX = spawnSync("sh", ["-c", "command -v Xvfb && command -v xdotool && command -v xterm && command -v import"]).status === 0;

function execCli(args: string[], lines: unknown[]): Promise<{ code: number | null; results: Array<{ tool_use_id: string; content: unknown; is_error?: boolean }>; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...cliEnv, TOOLGATE_HOME: tempDir() };
  delete env.DISPLAY;
  const child = spawn(process.execPath, [...cliArgs, "exec", "--no-sandbox", ...args], { cwd: tempDir(), env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return new Promise((resolve) => {
    child.on("close", (code) => {
      const results = stdout.trim().split("\n").filter(Boolean).flatMap((line) => (JSON.parse(line) as { content: never[] }).content);
      resolve({ code, results, stderr });
    });
  });
}

const textOf = (content: unknown) => (typeof content === "string" ? content : (content as Array<{ type: string; text?: string }>).map((b) => b.text ?? "").join("\n"));

describe.skipIf(!hasX)("toolgate exec --computer-use", () => {
  it("screenshots the virtual display, denies an unallowed click headless, runs an allowed one, and leaves no Xvfb behind", async () => {
    const use = (id: string, input: object) => ({ type: "tool_use", id, name: "computer", input });
    const run = await execCli(["--computer-use-app", "xterm", "--allowedTools", "computer(mouse_move)"], [
      use("shot", { action: "screenshot" }),
      use("click", { action: "left_click", coordinate: [10, 10] }),
      use("move", { action: "mouse_move", coordinate: [321, 123] }),
      use("where", { action: "cursor_position" }),
    ]);
    expect(run.code, run.stderr).toBe(0);
    const [shot, click, move, where] = run.results;
    expect((shot.content as Array<{ type: string }>).map((b) => b.type)).toEqual(["text", "image"]);
    expect(click.is_error).toBe(true);
    expect(textOf(click.content)).toContain('"computer(left_click)"');
    expect(move.is_error).toBeFalsy();
    expect(textOf(where.content)).toContain("[321, 123]");
    const display = /virtual display (:\d+)/.exec(textOf(click.content))![1];
    expect(await probeDisplay(display)).toBeUndefined();
  }, 60_000);
});

describe.skipIf(!hasX)("toolgate -p --computer-use against the scripted model", () => {
  it("sends the native computer tool with the display's size to a Claude model and returns the screenshot to it", async () => {
    const dir = project();
    const server = await serveModel({
      turns: [
        { content: [{ type: "tool_use", id: "s1", name: "computer", input: { action: "screenshot" } }] },
        { content: [{ type: "text", text: "I see a terminal." }] },
      ],
    });
    const env = agentEnv(server, dir);
    delete env.DISPLAY;
    const run = await runCli(["-p", "look at the screen", "--cwd", dir, "--model", "claude-sonnet-4-5", "--no-sandbox", "--computer-use-app", "xterm"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("I see a terminal.");
    const [first, second] = server.requests();
    expect(first.headers["anthropic-beta"]).toContain("computer-use-2025-01-24");
    expect((first.body.tools as Array<Record<string, unknown>>).find((t) => t.name === "computer")).toMatchObject({ type: "computer_20250124", display_width_px: 1280, display_height_px: 800 });
    const results = (second.body.messages as Array<{ content: Array<{ type: string; content?: Array<{ type: string }> }> }>).flatMap((m) => m.content).filter((b) => b.type === "tool_result");
    expect(results.at(-1)!.content!.map((b) => b.type)).toEqual(["text", "image"]);
  }, 60_000);
});
