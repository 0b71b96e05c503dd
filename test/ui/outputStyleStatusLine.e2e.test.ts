/**
 * Output styles and the status line command in the real CLI (tmux, scripted model): `/output-style` opens a
 * picker, the pick is saved to local settings and reaches the system prompt; `-p` honours the setting; the
 * statusLine command gets the session JSON and its line is shown, re-run on a mode change; a failing command
 * leaves the UI working; an untrusted folder's statusLine never runs.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { cliArgs, closedAfterEach, hasTmux, Terminal, tuiEnv, tuiProject } from "./tmux.js";
import { cliEnv } from "../cliCommand.js";

vi.setConfig({ testTimeout: 180_000 });

const { terminals, serve } = closedAfterEach();

const project = () => tuiProject("toolgate-tui-style-");

const systemOf = (request: { body: unknown }) => JSON.stringify((request.body as { system: unknown }).system);

describe.skipIf(!hasTmux)("output styles and the status line", () => {
  it("/output-style picks a style, saves it and sends it; -p honours the setting", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "Arr, done." }] }, { content: [{ type: "text", text: "Printed." }] }] });
    const { dir, home } = project();
    fs.mkdirSync(path.join(dir, ".toolgate", "output-styles"), { recursive: true });
    fs.writeFileSync(path.join(dir, ".toolgate", "output-styles", "pirate.md"), "---\nname: pirate\ndescription: answers like a pirate\n---\nSpeak like a pirate in every answer.\n");
    const terminal = new Terminal(dir, tuiEnv(home, server.url), ["--no-sandbox"], { columns: 100, rows: 30 });
    terminals.push(terminal);
    await terminal.waitFor("ask anything");
    await terminal.write("/output-style\r");
    await terminal.waitFor("Output style (now: default)");
    const screen = await terminal.waitFor("pirate (project) · answers like a pirate");
    expect(screen).toContain("explanatory");
    expect(screen).toContain("learning");
    for (let i = 0; i < 3; i++) await terminal.key("Down");
    await terminal.key("Enter");
    await terminal.waitFor("output style: pirate (from the next request; saved to");
    const local = JSON.parse(fs.readFileSync(path.join(dir, ".toolgate", "settings.local.json"), "utf8"));
    expect(local.outputStyle).toBe("pirate");

    await terminal.write("hello\r");
    await terminal.waitFor("Arr, done.");
    expect(systemOf(server.requests()[0]!)).toContain("Speak like a pirate in every answer.");

    await terminal.write("/output-style nosuch\r");
    await terminal.waitFor('there is no output style "nosuch"');

    // -p reads the same setting (the local settings file just written)
    // async: the scripted model server runs in this process
    const printed = await promisify(execFile)(process.execPath, [...cliArgs, "-p", "hi", "--no-sandbox"], { cwd: dir, env: { ...cliEnv, ...tuiEnv(home, server.url) }, encoding: "utf8" });
    expect(printed.stdout).toContain("Printed.");
    expect(systemOf(server.requests()[1]!)).toContain("Speak like a pirate in every answer.");
  });

  it("the statusLine command gets the session JSON, is shown, follows changes, and a failing one breaks nothing", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "Fine." }] }] });
    const { dir, home } = project();
    const script = path.join(home, "status.mjs");
    fs.writeFileSync(
      script,
      `let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => { const j = JSON.parse(s); if (j.permission_mode === "plan") process.exit(4); console.log("SL " + j.model.id + " style=" + j.output_style.name + " mode=" + j.permission_mode + " dir=" + (j.workspace.current_dir === ${JSON.stringify(dir)}) + " sid=" + (j.session_id.length > 8) + " v=" + j.version); });\n`,
    );
    fs.writeFileSync(path.join(home, "settings.json"), JSON.stringify({ statusLine: { type: "command", command: `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}` } }));
    const terminal = new Terminal(dir, tuiEnv(home, server.url), ["--no-sandbox", "--model", "claude-sonnet-4-5"], { columns: 120, rows: 30 });
    terminals.push(terminal);
    await terminal.waitFor(/SL claude-sonnet-4-5 style=default mode=default dir=true sid=true v=\d/);
    await terminal.key("BTab");
    await terminal.waitFor("mode=acceptEdits");
    // plan mode makes the script fail: the failure is shown, the UI keeps working
    await terminal.key("BTab");
    await terminal.waitFor("status line command failed: exit code 4");
    await terminal.write("hi\r");
    await terminal.waitFor("Fine.");
    await terminal.key("BTab");
    await terminal.waitFor("SL claude-sonnet-4-5 style=default mode=default");
  });

  it("a project's statusLine in a folder you did not trust never runs", async () => {
    const server = await serve({ turns: [] });
    const { dir, home } = project();
    const marker = path.join(dir, "status-ran");
    fs.mkdirSync(path.join(dir, ".toolgate"));
    fs.writeFileSync(path.join(dir, ".toolgate", "settings.json"), JSON.stringify({ statusLine: { type: "command", command: `touch ${marker}; echo PROJECT-SL` } }));
    const terminal = new Terminal(dir, tuiEnv(home, server.url), ["--no-sandbox"], { columns: 100, rows: 30 });
    terminals.push(terminal);
    const question = await terminal.waitFor("statusLine");
    expect(question).toContain("touch");
    await terminal.key("Escape");
    await terminal.waitFor("ask anything");
    await terminal.write("/help\r");
    await terminal.waitFor("/output-style");
    expect(terminal.screen()).not.toContain("PROJECT-SL");
    expect(fs.existsSync(marker)).toBe(false);
  });
});
