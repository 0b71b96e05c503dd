/** The prompt: multi-line editing, history (persisted per project), big pastes, `@path` completion. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { render, cleanup } from "ink-testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { PromptInput } from "../../src/ui/PromptInput.js";
import { historyFile, PromptHistory } from "../../src/ui/promptHistory.js";
import { listProjectFiles, matchFiles } from "../../src/ui/fileMentions.js";
import { deleteBackward, expandPastes, EMPTY_INPUT, insertPaste } from "../../src/ui/inputBuffer.js";

afterEach(() => cleanup());

const tick = (ms = 60) => new Promise((r) => setTimeout(r, ms));
const UP = "\u001B[A";
const DOWN = "\u001B[B";

function tmp(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-input-")));
}

async function mount(options: { history?: PromptHistory; listFiles?: () => Promise<readonly string[]> } = {}) {
  const sent: string[] = [];
  const ui = render(<PromptInput history={options.history ?? new PromptHistory()} listFiles={options.listFiles} onSubmit={(t) => sent.push(t)} />);
  await tick();
  const press = async (...keys: string[]) => {
    for (const key of keys) {
      ui.stdin.write(key);
      await tick();
    }
  };
  const type = (text: string) => press(...text);
  return { ui, sent, press, type };
}

describe("prompt input", () => {
  it("Enter sends; a backslash before Enter, Alt+Enter and Ctrl+J make new lines instead", async () => {
    const { sent, press, type, ui } = await mount();
    await type("one\\");
    await press("\r");
    await type("two");
    await press("\u001B\r");
    await type("three");
    await press("\n");
    await type("four");
    expect(sent).toEqual([]);
    expect(ui.lastFrame()).toContain("three");
    await press("\r");
    expect(sent).toEqual(["one\ntwo\nthree\nfour"]);
  });

  it("an empty prompt is not sent", async () => {
    const { sent, press } = await mount();
    await press(" ", "\r");
    expect(sent).toEqual([]);
  });

  it("↑/↓ browse the history, which is kept per project in the data home across sessions", async () => {
    const dir = tmp();
    const file = historyFile(path.join(dir, "home"), path.join(dir, "project"));
    const first = await mount({ history: new PromptHistory(file) });
    await first.type("first");
    await first.press("\r");
    await first.type("second\\");
    await first.press("\r");
    await first.type("line");
    await first.press("\r");
    first.ui.unmount();
    expect(fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l))).toEqual(["first", "second\nline"]);

    const next = await mount({ history: new PromptHistory(file) });
    await next.type("draft");
    await next.press(UP);
    expect(next.ui.lastFrame()).toContain("line");
    // At the first line of a multi-line entry ↑ goes on to the older entry.
    await next.press(UP, UP);
    expect(next.ui.lastFrame()).toContain("first");
    await next.press(DOWN, DOWN, DOWN);
    expect(next.ui.lastFrame()).toContain("draft");
    await next.press(UP, UP, UP, "\r");
    expect(next.sent).toEqual(["first"]);
  });

  it("a big paste shows as a placeholder and is sent whole", async () => {
    const { sent, press, type, ui } = await mount();
    const pasted = Array.from({ length: 40 }, (_, i) => `row ${i + 1}`).join("\r");
    await type("look: ");
    await press(pasted);
    expect(ui.lastFrame()).toContain("[Pasted text #1 +40 lines]");
    expect(ui.lastFrame()).not.toContain("row 17");
    await press("\r");
    expect(sent).toEqual([`look: ${pasted.replace(/\r/g, "\n")}`]);
  });

  it("backspace removes a paste placeholder as a whole, with its text", () => {
    const state = insertPaste(EMPTY_INPUT, "a\nb\nc\nd");
    expect(state.text).toBe("[Pasted text #1 +4 lines]");
    const removed = deleteBackward(state);
    expect(removed.text).toBe("");
    expect(expandPastes(removed)).toBe("");
  });

  it("a short paste goes in as typed text", async () => {
    const { sent, press } = await mount();
    await press("hello there", "\r");
    expect(sent).toEqual(["hello there"]);
  });

  it("Tab completes an @path mention from the project's files (ripgrep, gitignore honoured)", async () => {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, "src/components"), { recursive: true });
    fs.writeFileSync(path.join(dir, "src/components/Button.tsx"), "");
    fs.writeFileSync(path.join(dir, "src/components/Banner.tsx"), "");
    fs.writeFileSync(path.join(dir, "README.md"), "");
    fs.writeFileSync(path.join(dir, ".gitignore"), "build/\n");
    fs.mkdirSync(path.join(dir, "build"));
    fs.writeFileSync(path.join(dir, "build/Button.js"), "");
    fs.mkdirSync(path.join(dir, ".git"));
    const files = await listProjectFiles(dir);
    expect(files).toContain("src/components/Button.tsx");
    expect(files).not.toContain("build/Button.js");

    const { sent, press, type, ui } = await mount({ listFiles: () => listProjectFiles(dir) });
    await type("fix @src/comp");
    await press("\t");
    await tick(300);
    // Two matches: completed as far as they agree, both listed.
    expect(ui.lastFrame()).toContain("fix @src/components/B");
    expect(ui.lastFrame()).toContain("@src/components/Banner.tsx");
    await type("u");
    await press("\t");
    await tick(300);
    await press("\r");
    expect(sent).toEqual(["fix @src/components/Button.tsx"]);
  });

  it("matchFiles puts names that start with the query first and is bounded", () => {
    const files = ["a/zeta.ts", "lib/util.ts", "util/index.ts", ...Array.from({ length: 50 }, (_, i) => `x/utility${i}.ts`)];
    const found = matchFiles(files, "util", 5);
    expect(found).toHaveLength(5);
    expect(found[0]).toBe("lib/util.ts");
  });
});
