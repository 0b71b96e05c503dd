/** `toolgate exec --computer-use`: the real CLI starts Xvfb and the app, runs computer calls, and stops both. */
import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { probeDisplay } from "../../src/computer/x11.js";
import { cliArgs, cliEnv } from "../cliCommand.js";
import { tempDir } from "../helpers.js";

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
