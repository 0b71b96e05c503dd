import { describe, expect, it } from "vitest";
import { renderer as readRenderer } from "../../../src/tools/Read/ui.js";
import { renderer as editRenderer } from "../../../src/tools/Edit/ui.js";
import { renderer as multiEditRenderer } from "../../../src/tools/MultiEdit/ui.js";
import { renderer as writeRenderer } from "../../../src/tools/Write/ui.js";
import { renderer as notebookRenderer } from "../../../src/tools/NotebookEdit/ui.js";
import type { ReadOutput } from "../../../src/tools/Read/index.js";
import type { EditOutput } from "../../../src/tools/Edit/index.js";
import type { GroupedUse } from "../../../src/ui/toolRenderer.js";
import { session, sessionAfterRead } from "../../tools/files/harness.js";
import { draw, expectPartialsDraw, numberedLines, renderOptions, rendered } from "./support.js";

describe("Read renderer", () => {
  it("shows the path relative to the cwd and the window asked for, also for partial input", () => {
    const options = renderOptions({ cwd: "/w/p" });
    expect(draw(readRenderer.renderToolUseMessage({ file_path: "/w/p/src/a.ts", offset: 10, limit: 20 }, options))).toBe("src/a.ts · lines 10-29");
    expect(draw(readRenderer.renderToolUseMessage({ file_path: "/w/p/doc.pdf", pages: "2-3" }, options))).toBe("doc.pdf · pages 2-3");
    expect(draw(readRenderer.renderToolUseMessage({ file_path: "/w/p/log", offset: -100 }, options))).toBe("log · last 100 lines");
    const frames = expectPartialsDraw(readRenderer, { file_path: "/w/p/src/index.ts", offset: 5, limit: 3 }, options);
    expect(frames[0]).toBe("");
    expect(frames[1]).toBe("src"); // "/w/p/src/" cut mid-path
  });

  it("says how many lines a real read returned and of how many", async () => {
    const s = session();
    s.write("big.txt", `${numberedLines(50)}\n`);
    const whole = await s.run("Read", { file_path: "big.txt" });
    expect(draw(readRenderer.renderToolResultMessage!(rendered<ReadOutput>(whole), { file_path: "big.txt" }, renderOptions()))).toBe("  ⎿  Read 50 lines");
    const part = await s.run("Read", { file_path: "big.txt", offset: 11, limit: 5 });
    expect(draw(readRenderer.renderToolResultMessage!(rendered<ReadOutput>(part), { file_path: "big.txt" }, renderOptions()))).toBe("  ⎿  Read 5 lines (11-15 of 50)");
    expect(readRenderer.isResultTruncated!(rendered<ReadOutput>(part), { file_path: "big.txt" })).toBe(false);
  });

  it("draws a real error and a rejection", async () => {
    const s = session();
    const missing = await s.run("Read", { file_path: "nope.txt" });
    expect(missing.block.is_error).toBe(true);
    const frame = draw(readRenderer.renderToolUseErrorMessage!(missing.text, { file_path: "nope.txt" }, renderOptions()));
    expect(frame).toContain("nope.txt");
    expect(frame).not.toContain("tool_use_error");
    const rejected = draw(readRenderer.renderToolUseRejectedMessage!({ file_path: "/work/project/.env" }, { ...renderOptions(), reason: "denied by rule Read(.env)" }));
    expect(rejected).toContain("Rejected: read .env");
    expect(rejected).toContain("denied by rule Read(.env)");
  });

  it("groups parallel reads: 'Read 3 files', each path with its state", async () => {
    const s = session();
    s.write("a.txt", "one\n");
    s.write("b.txt", "one\ntwo\n");
    const a = await s.run("Read", { file_path: "a.txt" });
    const b = await s.run("Read", { file_path: "b.txt" });
    const c = await s.run("Read", { file_path: "c.txt" });
    const options = renderOptions({ cwd: s.dir });
    const uses: GroupedUse<{ file_path: string }, ReadOutput>[] = [
      { toolUseID: "1", input: { file_path: `${s.dir}/a.txt` }, progress: [], result: rendered(a) },
      { toolUseID: "2", input: { file_path: "b.txt" }, progress: [], result: rendered(b) },
      { toolUseID: "3", input: { file_path: "c.txt" }, progress: [], result: rendered(c) },
      { toolUseID: "4", input: { file_path: "d.t" }, progress: [] },
    ];
    const frame = draw(readRenderer.renderGroupedToolUse!(uses, options));
    expect(frame.split("\n")).toEqual([
      "● Read (4 files)",
      "  ⎿  a.txt · Read 1 line",
      "  ⎿  b.txt · Read 2 lines",
      "  ⎿  c.txt · failed",
      "  ⎿  d.t · reading…",
    ]);
    expect(readRenderer.renderGroupedToolUse!(uses.slice(0, 1), options)).toBeNull();
  });
});

describe("Edit renderer", () => {
  it("draws the diff of a real edit, collapsed when long and whole when expanded", async () => {
    const s = await sessionAfterRead("app.ts", `${numberedLines(60)}\n`);
    const r = await s.run("Edit", { file_path: "app.ts", old_string: numberedLines(30).split("\n").slice(9, 30).join("\n"), new_string: "replaced" });
    expect(r.outcome).toBe("success");
    const result = rendered<EditOutput>(r);
    const input = { file_path: s.file("app.ts"), old_string: "x", new_string: "replaced", replace_all: false };
    const collapsed = draw(editRenderer.renderToolResultMessage!(result, input, renderOptions({ cwd: s.dir })));
    expect(collapsed).toContain("Added 1 line, removed 21 lines");
    expect(collapsed).toContain("10 - line 10");
    expect(collapsed).toMatch(/\+\d+ lines \(ctrl\+o to expand\)/);
    expect(editRenderer.isResultTruncated!(result, input)).toBe(true);
    const expanded = draw(editRenderer.renderToolResultMessage!(result, input, renderOptions({ cwd: s.dir, expanded: true })));
    expect(expanded).toContain("10 + replaced");
    expect(expanded).toContain("30 - line 30");
    expect(expanded).not.toContain("ctrl+o");
  });

  it("names a creation and draws the file's lines", async () => {
    const s = session();
    const r = await s.run("Edit", { file_path: "new.txt", old_string: "", new_string: "hello\nworld\n" });
    expect(r.outcome).toBe("success");
    const input = { file_path: "new.txt", old_string: "", new_string: "hello\nworld\n", replace_all: false };
    expect(editRenderer.userFacingName!(input)).toBe("Create");
    const frame = draw(editRenderer.renderToolResultMessage!(rendered<EditOutput>(r), input, renderOptions({ cwd: s.dir })));
    expect(frame).toContain("Created new.txt");
    expect(frame).toContain("1 + hello");
  });

  it("draws partial input, the proposed change when rejected, and an error", async () => {
    const frames = expectPartialsDraw(editRenderer, { file_path: "/work/project/src/a.ts", old_string: "const a = 1;", new_string: "const a = 2;", replace_all: false });
    expect(frames.at(-1)).toBe("src/a.ts");
    expect(draw(editRenderer.renderToolUseMessage({ file_path: "a.ts", replace_all: true }, renderOptions()))).toBe("a.ts · every occurrence");
    const rejected = draw(editRenderer.renderToolUseRejectedMessage!({ file_path: "/work/project/a.ts", old_string: "old line", new_string: "new line" }, { ...renderOptions(), reason: "The user said no" }));
    expect(rejected.split("\n")).toEqual(["  ⎿  Rejected: update a.ts", "     The user said no", "     - old line", "     + new line"]);
    const s = await sessionAfterRead("a.txt", "abc\n");
    const r = await s.run("Edit", { file_path: "a.txt", old_string: "zzz", new_string: "y" });
    expect(r.block.is_error).toBe(true);
    const error = draw(editRenderer.renderToolUseErrorMessage!(r.text, { file_path: "a.txt" }, renderOptions()));
    expect(error).toContain("old_string was not found");
  });
});

describe("MultiEdit, Write and NotebookEdit renderers", () => {
  it("MultiEdit: a real multi-edit's diff, the edit count in the summary, partial edits arrays", async () => {
    const s = await sessionAfterRead("m.txt", "alpha\nbeta\ngamma\n");
    const input = { file_path: "m.txt", edits: [{ old_string: "alpha", new_string: "ALPHA", replace_all: false }, { old_string: "gamma", new_string: "GAMMA", replace_all: false }] };
    const r = await s.run("MultiEdit", input);
    expect(r.outcome).toBe("success");
    const frame = draw(multiEditRenderer.renderToolResultMessage!(rendered(r), input, renderOptions()));
    expect(frame).toContain("Added 2 lines, removed 2 lines");
    expect(frame).toContain("1 + ALPHA");
    expect(frame).toContain("3 + GAMMA");
    expect(draw(multiEditRenderer.renderToolUseMessage(input, renderOptions()))).toBe("m.txt · 2 edits");
    expectPartialsDraw(multiEditRenderer, input);
    const rejected = draw(multiEditRenderer.renderToolUseRejectedMessage!(input, renderOptions()));
    expect(rejected).toContain("+ GAMMA");
  });

  it("Write: a new file's first lines collapsed, an overwrite as a diff", async () => {
    const s = session();
    const content = `${numberedLines(40)}\n`;
    const created = await s.run("Write", { file_path: "w.txt", content });
    const input = { file_path: s.file("w.txt"), content };
    const frame = draw(writeRenderer.renderToolResultMessage!(rendered(created), input, renderOptions({ cwd: s.dir })));
    expect(frame).toContain("Wrote 40 lines to w.txt");
    expect(frame).toContain("line 10");
    expect(frame).not.toContain("line 11");
    expect(frame).toContain("… +30 lines (ctrl+o to expand)");
    expect(writeRenderer.isResultTruncated!(rendered(created), input)).toBe(true);
    await s.run("Read", { file_path: "w.txt" });
    const updated = await s.run("Write", { file_path: "w.txt", content: content.replace("line 7\n", "line seven\n") });
    const diff = draw(writeRenderer.renderToolResultMessage!(rendered(updated), input, renderOptions({ cwd: s.dir })));
    expect(diff).toContain("7 + line seven");
    expect(diff).toContain("7 - line 7");
    expectPartialsDraw(writeRenderer, { file_path: "w.txt", content: "abc\ndef" });
  });

  it("NotebookEdit: a real cell replacement as a diff", async () => {
    const notebook = {
      cells: [{ cell_type: "code", id: "c1", metadata: {}, source: ["print(1)\n"], outputs: [], execution_count: null }],
      metadata: { language_info: { name: "python" } },
      nbformat: 4,
      nbformat_minor: 5,
    };
    const s = await sessionAfterRead("n.ipynb", JSON.stringify(notebook, null, 1));
    const input = { notebook_path: "n.ipynb", cell_id: "c1", new_source: "print(2)", edit_mode: "replace" as const };
    const r = await s.run("NotebookEdit", input);
    expect(r.outcome).toBe("success");
    const frame = draw(notebookRenderer.renderToolResultMessage!(rendered(r), input, renderOptions()));
    expect(frame).toContain("Replaced code cell c1");
    expect(frame).toMatch(/\+ .*print\(2\)/);
    expect(frame).toMatch(/- .*print\(1\)/);
    expect(draw(notebookRenderer.renderToolUseMessage(input, renderOptions()))).toBe("n.ipynb · c1");
    expectPartialsDraw(notebookRenderer, input);
  });
});
