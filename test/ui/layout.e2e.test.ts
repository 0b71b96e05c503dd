/**
 * Tool results and answers laid out within the terminal's width by the UI itself, in a real terminal (tmux): no
 * line is wider than the terminal, and tmux's `capture-pane -J`, which joins the lines the terminal had to wrap,
 * changes nothing (a long word the terminal broke would come back whole there). At 100 and 60 columns, and
 * after the terminal is resized.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { FakeModelScript } from "../../scripts/fake-model.mjs";
import { closedAfterEach, hasTmux, Terminal } from "./tmux.js";

// A start of the real CLI takes seconds on a loaded 2-core machine; every wait below polls the screen.
vi.setConfig({ testTimeout: 180_000 });

const { terminals, serve } = closedAfterEach();

const READY = "ask anything";
const DEEP_DIR = "src/a/rather/long/directory/path/that/keeps/on/going/and/going/deeper/still";
const LONG_WORD = `unbroken${"x".repeat(140)}end`;
const WORDS = "a long line of many short words ".repeat(7).trim();

/** A project with a file to search and one to edit, both with lines longer than any terminal here. */
function project(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-layout-")));
  fs.mkdirSync(path.join(dir, DEEP_DIR), { recursive: true });
  fs.writeFileSync(path.join(dir, DEEP_DIR, "module_with_a_long_name.ts"), `export const value = needleIdentifier_${"y".repeat(90)};\n`);
  fs.writeFileSync(path.join(dir, "src/app.ts"), `export const a = 1;\n// ${WORDS}\n`);
  return dir;
}

/** Every kind of long line: answer text, command output, a search result, a diff, the Write dialog's preview and labels. */
function turns(dir: string): FakeModelScript["turns"] {
  return [
    {
      content: [
        { type: "text", text: `Here is a long paragraph. ${WORDS}. And one long token: ${LONG_WORD}` },
        { type: "tool_use", id: "toolu_printf", name: "Bash", input: { command: `printf '%s\\n' 'short line' '${WORDS}' '${LONG_WORD}'` } },
      ],
    },
    { content: [{ type: "tool_use", id: "toolu_grep", name: "Grep", input: { pattern: "needleIdentifier", output_mode: "content" } }] },
    { content: [{ type: "tool_use", id: "toolu_read", name: "Read", input: { file_path: path.join(dir, "src/app.ts") } }] },
    {
      content: [
        { type: "tool_use", id: "toolu_edit", name: "Edit", input: { file_path: path.join(dir, "src/app.ts"), old_string: "export const a = 1;", new_string: `export const a = 2; // ${WORDS} ${LONG_WORD}` } },
      ],
    },
    {
      content: [
        { type: "tool_use", id: "toolu_write", name: "Write", input: { file_path: path.join(dir, DEEP_DIR, "another_module_with_a_long_name.ts"), content: `// ${WORDS}\n// ${LONG_WORD}\n` } },
      ],
    },
    { content: [{ type: "text", text: "All shown." }] },
  ];
}

async function start(dir: string, script: FakeModelScript, columns: number): Promise<Terminal> {
  const server = await serve(script);
  // the home directory (and the transcript in it) outside the project, so the search finds only the project's file
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-layout-home-"));
  const env = {
    TOOLGATE_HOME: home,
    HOME: home,
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: server.url,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    TERM: "xterm-256color",
  };
  // the Edit is allowed by a rule; the Write asks, so its dialog is drawn too
  const terminal = new Terminal(dir, env, ["--no-sandbox", "--allowedTools", "Bash(printf:*)", "--allowedTools", "Edit(./src/app.ts)"], { columns, rows: 30 });
  terminals.push(terminal);
  return terminal;
}

const linesOf = (capture: string) => capture.split("\n").map((line) => line.trimEnd());

/** No line is wider than the terminal, and none was wrapped by the terminal rather than by the UI. */
function expectLaidOutWithin(columns: number, plain: string, joined: string): void {
  const lines = linesOf(plain);
  const tooWide = lines.filter((line) => Array.from(line).length > columns);
  expect(tooWide).toEqual([]);
  expect(linesOf(joined)).toEqual(lines);
}

/** From the last line that starts with `marker` on (what was drawn after it). */
function after(capture: string, marker: string): string {
  const lines = capture.split("\n");
  const at = lines.findLastIndex((line) => line.startsWith(marker));
  expect(at).toBeGreaterThanOrEqual(0);
  return lines.slice(at).join("\n");
}

/** Sends the prompt, approves the Write when its dialog shows (checking the dialog's layout first), waits for the end. */
async function runAndApprove(t: Terminal, prompt: string, columns: number): Promise<void> {
  await t.write(`${prompt}\r`);
  await t.waitFor("Allow Write?");
  expectLaidOutWithin(columns, after(t.all(), `> ${prompt}`), after(t.allJoined(), `> ${prompt}`));
  await t.key("1");
  await t.waitFor("All shown.", { all: true });
}

describe.skipIf(!hasTmux)("tool results within the terminal's width", () => {
  for (const columns of [100, 60]) {
    it(`at ${columns} columns every line fits and no word is broken by the terminal`, async () => {
      const dir = project();
      const t = await start(dir, { turns: turns(dir) }, columns);
      await t.waitFor(READY);
      await runAndApprove(t, "show it all", columns);
      const all = t.all();
      // everything was drawn: the answer, the output, the match, the diff, the written file
      for (const text of ["And one long token:", "short line", "Found 1 line in 1 file", "Added 1 line, removed 1 line", "Wrote 2 lines to"]) expect(all).toContain(text);
      // the long word is split by the UI into rows that fill the width (the first starts where the text does)
      expect(all).toMatch(new RegExp(`unbrokenx{${columns - 40},}`));
      expectLaidOutWithin(columns, all, t.allJoined());
    });
  }

  it("after the terminal is resized from 100 to 60 columns, what is drawn next fits the new width", async () => {
    const dir = project();
    const t = await start(dir, { turns: [{ content: [{ type: "text", text: "Before the resize." }] }, ...turns(dir)] }, 100);
    await t.waitFor(READY);
    await t.write("first\r");
    await t.waitFor("Before the resize.", { all: true });
    t.resize(60, 30);
    // the prompt's box is drawn again at the new width
    await t.waitFor(/^╰─{58}╯$/m);
    await runAndApprove(t, "second", 60);
    expectLaidOutWithin(60, after(t.all(), "> second"), after(t.allJoined(), "> second"));
  });
});
