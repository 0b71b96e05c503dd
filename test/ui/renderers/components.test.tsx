import { stripVTControlCharacters } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { structuredPatch } from "diff";
import { Text } from "ink";
import {
  CollapsedText,
  Diff,
  Markdown,
  ResultGutter,
  ToolUseLine,
  collapseLines,
  colorEnabled,
  describeDiffStats,
  diffStats,
  displayPath,
  isDiffTruncated,
  renderMarkdown,
} from "../../../src/ui/components/index.js";
import type { EditOutput } from "../../../src/tools/Edit/index.js";
import { sessionAfterRead } from "../../tools/files/harness.js";
import { draw, numberedLines } from "./support.js";

const ESC = "\u001b[";
const savedEnv = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };

afterEach(() => {
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

const SAMPLE = [
  "# Release notes",
  "",
  "Some **bold** text and `inline code` in a paragraph that is long enough to need wrapping at a narrow width of forty columns.",
  "",
  "## Details",
  "",
  "- first item",
  "- second item",
  "",
  "```ts",
  "const answer: number = 42; // the answer",
  "```",
].join("\n");

describe("colorEnabled", () => {
  it("is off for a non-empty NO_COLOR and for FORCE_COLOR=0, on otherwise", () => {
    expect(colorEnabled({})).toBe(true);
    expect(colorEnabled({ NO_COLOR: "1" })).toBe(false);
    expect(colorEnabled({ NO_COLOR: "" })).toBe(true);
    expect(colorEnabled({ FORCE_COLOR: "0" })).toBe(false);
    expect(colorEnabled({ FORCE_COLOR: "false" })).toBe(false);
    expect(colorEnabled({ FORCE_COLOR: "1" })).toBe(true);
  });
});

describe("Markdown", () => {
  it("draws headings, lists and inline code as terminal text", () => {
    const plain = renderMarkdown(SAMPLE, 80, false);
    expect(plain).toContain("# Release notes");
    expect(plain).toContain("## Details");
    expect(plain).toContain("* first item");
    expect(plain).toContain("inline code");
    expect(plain).not.toContain("**bold**");
    expect(plain).not.toContain("```");
  });

  it("highlights a code block when colour is on (keywords styled, the text intact)", () => {
    const colored = renderMarkdown(SAMPLE, 80, true);
    const codeLine = colored.split("\n").find((l) => l.includes("answer"));
    expect(codeLine).toBeDefined();
    expect(codeLine).toContain(`${ESC}34mconst`);
    expect(stripVTControlCharacters(codeLine!).trim()).toBe("const answer: number = 42; // the answer");
    // the heading is styled, not marked with #
    expect(colored).toMatch(/\u001b\[[0-9;]*mRelease notes/);
  });

  it("has no escape codes at all under NO_COLOR or FORCE_COLOR=0 (tables included)", () => {
    const table = `${SAMPLE}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n`;
    delete process.env.FORCE_COLOR;
    process.env.NO_COLOR = "1";
    expect(renderMarkdown(table, 80)).not.toContain("\u001b");
    expect(draw(<Markdown columns={80}>{table}</Markdown>)).not.toContain("\u001b");
    delete process.env.NO_COLOR;
    process.env.FORCE_COLOR = "0";
    expect(renderMarkdown(table, 80)).not.toContain("\u001b");
    delete process.env.FORCE_COLOR;
    expect(renderMarkdown(table, 80)).toContain("\u001b");
  });

  it("wraps paragraphs to the columns it is given", () => {
    const text = `${SAMPLE}\n\n- a list item that is long enough to need wrapping at a narrow width of forty columns`;
    const lines = draw(<Markdown columns={40} color={false}>{text}</Markdown>, 100).split("\n");
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line.trimEnd().length).toBeLessThanOrEqual(40);
    expect(lines.join(" ")).toContain("forty");
  });

  it("leaves a code block without a known language unhighlighted (highlight.js would guess, slowly)", () => {
    const colored = renderMarkdown("```\nconst x = 1;\n```\n\n```nosuchlang\nconst y = 2;\n```", 80, true);
    expect(colored).toContain("  const x = 1;");
    expect(colored).toContain("  const y = 2;");
  });

  it("never throws on odd input (unterminated fences, html, empty)", () => {
    for (const text of ["", "```js\nunterminated", "<div>html</div>", "| broken | table", "\u0000\u001b[31mred"]) {
      expect(() => renderMarkdown(text, 30, true)).not.toThrow();
    }
  });
});

describe("Diff", () => {
  it("draws the structuredPatch of a real edit with line numbers and +/- markers", async () => {
    const original = `${numberedLines(30)}\n`;
    const s = await sessionAfterRead("notes.txt", original);
    const r = await s.run("Edit", { file_path: "notes.txt", old_string: "line 15\nline 16", new_string: "line fifteen\nline 16\nline 16b" });
    expect(r.outcome).toBe("success");
    const output = r.output as EditOutput;
    expect(diffStats(output.structuredPatch)).toEqual({ added: 2, removed: 1 });
    expect(describeDiffStats(diffStats(output.structuredPatch))).toBe("Added 2 lines, removed 1 line");
    const frame = draw(<Diff hunks={output.structuredPatch} />);
    const lines = frame.split("\n");
    expect(lines).toContain("15 - line 15");
    expect(lines).toContain("15 + line fifteen");
    expect(lines).toContain("17 + line 16b");
    expect(lines).toContain("12   line 12");
    expect(frame).not.toContain("ctrl+o");
  });

  it("separates hunks and collapses beyond maxLines, whole when expanded", () => {
    const before = `${numberedLines(100)}\n`;
    const after = before.replace("line 5\n", "line five\n").replace("line 80\n", "line eighty\n");
    const { hunks } = structuredPatch("f", "f", before, after, "", "", { context: 3 });
    expect(hunks).toHaveLength(2);
    const whole = draw(<Diff hunks={hunks} expanded />);
    expect(whole).toContain("…");
    expect(whole).toContain("80 + line eighty");
    const collapsed = draw(<Diff hunks={hunks} maxLines={5} />);
    expect(collapsed).not.toContain("line eighty");
    expect(collapsed).toMatch(/… \+\d+ lines \(ctrl\+o to expand\)/);
    expect(isDiffTruncated(hunks, 5)).toBe(true);
    expect(isDiffTruncated(hunks, 1000)).toBe(false);
  });

  it("wraps a long line under its own text, past the line number and sign, within the width", () => {
    const { hunks } = structuredPatch("f", "f", "keep\nold\n", `keep\n${"new words ".repeat(12).trim()}\n`);
    const rows = draw(<Diff hunks={hunks} />, 40).split("\n");
    const added = rows.findIndex((row) => row.startsWith("2 + new words"));
    expect(added).toBeGreaterThan(0);
    expect(rows[added + 1]).toMatch(/^ {4}\S/);
    expect(rows.every((row) => row.length <= 40)).toBe(true);
  });

  it("draws without line numbers for a proposed change", () => {
    const { hunks } = structuredPatch("a", "b", "x\n", "y\n");
    const frame = draw(<Diff hunks={hunks} lineNumbers={false} />);
    expect(frame.split("\n")).toEqual(["- x", "+ y"]);
  });
});

describe("the result gutter", () => {
  it("keeps its width beside a long line, which wraps within the width at its spaces", () => {
    const text = `${"some words ".repeat(8).trim()} ${"z".repeat(50)}`;
    const rows = draw(
      <ResultGutter>
        <Text>{text}</Text>
      </ResultGutter>,
      40,
    ).split("\n");
    expect(rows[0]).toMatch(/^ {2}⎿ {2}some words/);
    expect(rows.slice(1).every((row) => row.startsWith("     ") && !row.startsWith("      "))).toBe(true);
    expect(rows.every((row) => Array.from(row).length <= 40)).toBe(true);
    // the words are whole: each row ends at a word's end (the long word alone is split)
    expect(rows.filter((row) => !row.includes("zzz")).every((row) => /words?$/.test(row.trimEnd()))).toBe(true);
  });
});

describe("CollapsedText and ToolUseLine", () => {
  it("shows the first lines and how many are hidden, all when expanded", () => {
    const text = numberedLines(25);
    const collapsed = draw(<CollapsedText text={text} maxLines={10} />);
    expect(collapsed).toContain("line 10");
    expect(collapsed).not.toContain("line 11");
    expect(collapsed).toContain("… +15 lines (ctrl+o to expand)");
    const whole = draw(<CollapsedText text={text} maxLines={10} expanded />);
    expect(whole).toContain("line 25");
    expect(whole).not.toContain("ctrl+o");
    expect(collapseLines(["a"], 1, false)).toEqual({ shown: ["a"], hiddenLines: 0 });
    expect(draw(<CollapsedText text={"a\nb"} maxLines={1} />)).toContain("… +1 line (ctrl+o to expand)");
  });

  it("draws name, summary and a status dot", () => {
    expect(draw(<ToolUseLine name="Read" summary="src/a.ts" status="success" />)).toBe("● Read (src/a.ts)");
    expect(draw(<ToolUseLine name="Bash" status="streaming" />)).toBe("● Bash");
  });

  it("shows paths relative to the working directory when inside it", () => {
    expect(displayPath("/w/p/src/a.ts", "/w/p")).toBe("src/a.ts");
    expect(displayPath("/etc/passwd", "/w/p")).toBe("/etc/passwd");
    expect(displayPath("/w/p2/a", "/w/p")).toBe("/w/p2/a");
    expect(displayPath("rel/a.ts", "/w/p")).toBe("rel/a.ts");
  });
});
