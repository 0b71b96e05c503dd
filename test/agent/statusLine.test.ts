import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readStatusLineSetting, runStatusLineCommand, type StatusLineInput } from "../../src/agent/statusLine.js";
import { statusLineText } from "../../src/ui/useStatusLineCommand.js";

const input: StatusLineInput = {
  hook_event_name: "Status",
  session_id: "s1",
  transcript_path: "/t.jsonl",
  cwd: "/w",
  model: { id: "m1", display_name: "m1" },
  workspace: { current_dir: "/w", project_dir: "/w" },
  version: "0.1.0",
  output_style: { name: "default" },
  permission_mode: "default",
};
const options = { cwd: os.tmpdir(), env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } };

describe("the status line command", () => {
  it("gets the session JSON on stdin; its first non-empty line is the status line", async () => {
    const script = `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log("\\n"+j.model.display_name+" in "+j.workspace.current_dir+" "+j.output_style.name);console.log("second")})'`;
    expect(await runStatusLineCommand(script, input, options)).toEqual({ ok: true, line: "m1 in /w default" });
  });

  it("a failing, hanging or missing command is an outcome, not an exception", async () => {
    expect(await runStatusLineCommand("echo partial; exit 3", input, options)).toEqual({ ok: false, error: "exit code 3" });
    const started = Date.now();
    const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-sl-")), "child-alive");
    // the child of the shell is ended too (its own process group)
    expect(await runStatusLineCommand(`(sleep 3; touch ${marker}) & sleep 30`, input, { ...options, timeoutMs: 300 })).toEqual({ ok: false, error: "timed out after 300 ms" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await runStatusLineCommand("toolgate-no-such-command-xyz", input, options)).ok).toBe(false);
    // a command that does not read its stdin is fine
    expect(await runStatusLineCommand("echo hi", input, options)).toEqual({ ok: true, line: "hi" });
    await new Promise((r) => setTimeout(r, 3_500));
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("keeps colours, drops other escape sequences, reads the setting", () => {
    expect(statusLineText("\u001b[31mred\u001b[0m \u001b]0;title\u0007x\u001b[2J")).toBe("\u001b[31mred\u001b[0m x\u001b[0m");
    expect(statusLineText("plain")).toBe("plain");
    expect(readStatusLineSetting({ statusLine: { type: "command", command: "x", padding: 2 } })).toEqual({ command: "x", padding: 2 });
    expect(readStatusLineSetting({ statusLine: { type: "static", command: "x" } })).toBeUndefined();
    expect(readStatusLineSetting({})).toBeUndefined();
  });
});
