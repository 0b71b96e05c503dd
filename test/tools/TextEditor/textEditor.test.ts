import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { createEmptyPermissionContext, rewindFiles } from "../../../src/core/context.js";
import type { PermissionRule } from "../../../src/core/permissionTypes.js";
import { TextEditorTool, inTextEditorTerms } from "../../../src/tools/TextEditor/index.js";
import { getBuiltinTools } from "../../../src/tools/index.js";
import { rejectAll, tempDir } from "../../helpers.js";
import { FILE_TOOLS, session } from "../files/harness.js";

const TOOL = "str_replace_based_edit_tool";
const tools = [...FILE_TOOLS, TextEditorTool];

function editor(options: Parameters<typeof session>[0] = {}) {
  return session({ tools, ...options });
}

const rule = (ruleBehavior: "allow" | "deny" | "ask", toolName: string, ruleContent?: string): PermissionRule => ({
  source: "session",
  ruleBehavior,
  ruleValue: ruleContent === undefined ? { toolName } : { toolName, ruleContent },
});

describe("str_replace_based_edit_tool", () => {
  it("is a registered built-in under Anthropic's exact name", () => {
    expect(getBuiltinTools().map((t) => t.name)).toContain(TOOL);
    expect(TextEditorTool.name).toBe(TOOL);
  });

  it("view shows numbered lines, honours view_range and counts as reading the file", async () => {
    const s = editor();
    s.write("a.txt", "one\ntwo\nthree\nfour\n");
    const part = await s.run(TOOL, { command: "view", path: "a.txt", view_range: [2, 3] });
    expect(part.outcome).toBe("success");
    expect(part.text).toContain("2\ttwo\n3\tthree");
    expect(part.text).not.toContain("1\tone");
    const rest = await s.run(TOOL, { command: "view", path: "a.txt", view_range: [3, -1] });
    expect(rest.text).toContain("4\tfour");
    expect(rest.text).not.toContain("2\ttwo");
    const edit = await s.run(TOOL, { command: "str_replace", path: "a.txt", old_str: "two", new_str: "2" });
    expect(edit.outcome).toBe("success");
    expect(s.read("a.txt")).toBe("one\n2\nthree\nfour\n");
  });

  it("view of a directory lists two levels, leaving out hidden entries and paths a Read rule denies", async () => {
    const dir = tempDir();
    const s = editor({ cwd: dir, permissionContext: { ...createEmptyPermissionContext(dir), rules: [rule("deny", "Read", "./secret/**")] } });
    s.write("src/lib/deep/x.ts", "");
    s.write("src/main.ts", "");
    s.write(".git/config", "");
    s.write("secret/key.txt", "");
    const r = await s.run(TOOL, { command: "view", path: "." });
    expect(r.outcome).toBe("success");
    expect(r.text).toContain("src/\nsrc/lib/\nsrc/main.ts");
    expect(r.text).not.toContain("src/lib/deep");
    expect(r.text).not.toContain(".git");
    expect(r.text).not.toContain("key.txt");
  });

  it("refuses a bad view_range and a view_range on a directory", async () => {
    const s = editor();
    s.write("a.txt", "x\n");
    expect((await s.run(TOOL, { command: "view", path: "a.txt", view_range: [3, 2] })).text).toContain("not a range of lines");
    expect((await s.run(TOOL, { command: "view", path: ".", view_range: [1, 2] })).text).toContain("only applies to files");
  });

  it("create makes a new file with its parent directories, and never overwrites one", async () => {
    const s = editor();
    const r = await s.run(TOOL, { command: "create", path: "new/dir/f.py", file_text: "print(1)\n" });
    expect(r.outcome).toBe("success");
    expect(s.read("new/dir/f.py")).toBe("print(1)\n");
    s.write("old.txt", "keep me\n");
    await s.run(TOOL, { command: "view", path: "old.txt" });
    const again = await s.run(TOOL, { command: "create", path: "old.txt", file_text: "lost\n" });
    expect(again.outcome).toBe("invalid_input");
    expect(again.text).toContain("create only makes new files");
    expect(s.read("old.txt")).toBe("keep me\n");
  });

  it("says which parameter a command is missing", async () => {
    const s = editor();
    s.write("a.txt", "x\n");
    expect((await s.run(TOOL, { command: "create", path: "b.txt" })).text).toContain("needs file_text");
    expect((await s.run(TOOL, { command: "str_replace", path: "a.txt", new_str: "y" })).text).toContain("needs old_str");
    expect((await s.run(TOOL, { command: "insert", path: "a.txt", new_str: "y" })).text).toContain("needs insert_line");
    expect((await s.run(TOOL, { command: "insert", path: "a.txt", insert_line: 0 })).text).toContain("needs new_str");
    expect((await s.run(TOOL, { command: "delete", path: "a.txt" })).outcome).toBe("invalid_input");
  });

  it("str_replace needs a view first, and speaks of old_str when old_str is ambiguous", async () => {
    const s = editor();
    s.write("a.txt", "x = 1\nx = 1\n");
    const unread = await s.run(TOOL, { command: "str_replace", path: "a.txt", old_str: "x = 1", new_str: "x = 2" });
    expect(unread.outcome).toBe("invalid_input");
    expect(unread.text).toContain("view it");
    await s.run(TOOL, { command: "view", path: "a.txt" });
    const two = await s.run(TOOL, { command: "str_replace", path: "a.txt", old_str: "x = 1", new_str: "x = 2" });
    expect(two.outcome).toBe("invalid_input");
    expect(two.text).toContain("old_str matches 2 places");
    expect(two.text).not.toContain("replace_all");
    expect(two.text).not.toContain("old_string");
    expect(s.read("a.txt")).toBe("x = 1\nx = 1\n");
  });

  it("str_replace with new_str omitted deletes the lines, and keeps CRLF line endings", async () => {
    const s = editor();
    s.write("w.txt", "a\r\nb\r\nc\r\n");
    await s.run(TOOL, { command: "view", path: "w.txt" });
    expect((await s.run(TOOL, { command: "str_replace", path: "w.txt", old_str: "b" })).outcome).toBe("success");
    expect(s.read("w.txt")).toBe("a\r\nc\r\n");
  });

  it("insert puts text after a line: at the top, in the middle, at the end, after an unterminated last line", async () => {
    const s = editor();
    s.write("a.txt", "one\ntwo\n");
    await s.run(TOOL, { command: "view", path: "a.txt" });
    expect((await s.run(TOOL, { command: "insert", path: "a.txt", insert_line: 0, new_str: "zero" })).outcome).toBe("success");
    expect(s.read("a.txt")).toBe("zero\none\ntwo\n");
    await s.run(TOOL, { command: "insert", path: "a.txt", insert_line: 2, new_str: "one and a half\n" });
    expect(s.read("a.txt")).toBe("zero\none\none and a half\ntwo\n");
    await s.run(TOOL, { command: "insert", path: "a.txt", insert_line: 4, insert_text: "three" });
    expect(s.read("a.txt")).toBe("zero\none\none and a half\ntwo\nthree\n");
    s.write("u.txt", "a\r\nb");
    await s.run(TOOL, { command: "view", path: "u.txt" });
    await s.run(TOOL, { command: "insert", path: "u.txt", insert_line: 2, new_str: "c" });
    expect(s.read("u.txt")).toBe("a\r\nb\r\nc");
    const past = await s.run(TOOL, { command: "insert", path: "u.txt", insert_line: 9, new_str: "z" });
    expect(past.outcome).toBe("invalid_input");
    expect(past.text).toContain("has 3 lines");
  });

  it("insert refuses a file changed since it was viewed", async () => {
    const s = editor();
    s.write("a.txt", "one\n");
    await s.run(TOOL, { command: "view", path: "a.txt" });
    s.write("a.txt", "one\nsomeone else's line\n");
    const r = await s.run(TOOL, { command: "insert", path: "a.txt", insert_line: 1, new_str: "mine" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("has changed since you last read it");
    expect(s.read("a.txt")).toBe("one\nsomeone else's line\n");
  });

  it("undo_edit steps back one edit per call, then says there is nothing left to undo", async () => {
    const s = editor();
    s.write("a.txt", "v1\n");
    await s.run(TOOL, { command: "view", path: "a.txt" });
    await s.run(TOOL, { command: "str_replace", path: "a.txt", old_str: "v1", new_str: "v2" }, "m1");
    await s.run(TOOL, { command: "str_replace", path: "a.txt", old_str: "v2", new_str: "v3" }, "m1");
    expect(s.read("a.txt")).toBe("v3\n");
    expect((await s.run(TOOL, { command: "undo_edit", path: "a.txt" }, "m2")).outcome).toBe("success");
    expect(s.read("a.txt")).toBe("v2\n");
    expect((await s.run(TOOL, { command: "undo_edit", path: "a.txt" }, "m3")).outcome).toBe("success");
    expect(s.read("a.txt")).toBe("v1\n");
    const none = await s.run(TOOL, { command: "undo_edit", path: "a.txt" }, "m4");
    expect(none.outcome).toBe("invalid_input");
    expect(none.text).toContain("no edit of");
    // The undos were checkpointed too: rewinding to before m3 brings back v2.
    rewindFiles(s.ctx, "m3");
    expect(s.read("a.txt")).toBe("v2\n");
  });

  it("undo_edit of a create removes the file; rewind brings it back", async () => {
    const s = editor();
    await s.run(TOOL, { command: "create", path: "n.txt", file_text: "hello\n" }, "m1");
    expect((await s.run(TOOL, { command: "undo_edit", path: "n.txt" }, "m2")).text).toContain("file was removed");
    expect(fs.existsSync(s.file("n.txt"))).toBe(false);
    rewindFiles(s.ctx, "m2");
    expect(s.read("n.txt")).toBe("hello\n");
  });

  it("undo_edit refuses when the file changed after the edit, so the later change is not lost", async () => {
    const s = editor();
    s.write("a.txt", "v1\n");
    await s.run(TOOL, { command: "view", path: "a.txt" });
    await s.run(TOOL, { command: "str_replace", path: "a.txt", old_str: "v1", new_str: "v2" });
    s.write("a.txt", "v2\nthe user's line\n");
    const r = await s.run(TOOL, { command: "undo_edit", path: "a.txt" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("has changed since this tool's last edit");
    expect(s.read("a.txt")).toBe("v2\nthe user's line\n");
  });

  it("writes are checkpointed, so rewind restores the file", async () => {
    const s = editor();
    s.write("a.txt", "before\n");
    await s.run(TOOL, { command: "view", path: "a.txt" });
    await s.run(TOOL, { command: "insert", path: "a.txt", insert_line: 1, new_str: "after" }, "m9");
    expect(s.read("a.txt")).toBe("before\nafter\n");
    rewindFiles(s.ctx, "m9");
    expect(s.read("a.txt")).toBe("before\n");
  });
});

describe("str_replace_based_edit_tool permissions: judged on the command given", () => {
  function guarded(rules: PermissionRule[]) {
    const dir = tempDir();
    return editor({ cwd: dir, canUseTool: rejectAll, permissionContext: { ...createEmptyPermissionContext(dir), rules } });
  }

  it("a rule that allows the tool's views does not allow create, str_replace, insert or undo_edit", async () => {
    const s = guarded([rule("allow", "Read", "./**")]);
    s.write("a.txt", "x\n");
    expect((await s.run(TOOL, { command: "view", path: "a.txt" })).outcome).toBe("success");
    for (const input of [
      { command: "create", path: "b.txt", file_text: "y\n" },
      { command: "str_replace", path: "a.txt", old_str: "x", new_str: "y" },
      { command: "insert", path: "a.txt", insert_line: 0, new_str: "y" },
    ]) {
      expect((await s.run(TOOL, input)).outcome).toBe("denied");
    }
    expect(fs.existsSync(s.file("b.txt"))).toBe(false);
    expect(s.read("a.txt")).toBe("x\n");
  });

  it("an Edit deny rule refuses every writing command on the path; view still works", async () => {
    const s = guarded([rule("deny", "Edit", "./secret/**"), rule("allow", "Edit", "./**")]);
    s.write("secret/k.txt", "k\n");
    expect((await s.run(TOOL, { command: "view", path: "secret/k.txt" })).outcome).toBe("success");
    const replaced = await s.run(TOOL, { command: "str_replace", path: "secret/k.txt", old_str: "k", new_str: "K" });
    expect(replaced.outcome).not.toBe("success");
    expect(replaced.text).toContain("denied");
    expect((await s.run(TOOL, { command: "create", path: "secret/new.txt", file_text: "n\n" })).outcome).not.toBe("success");
    expect((await s.run(TOOL, { command: "undo_edit", path: "secret/k.txt" })).text).toContain("denied");
    expect(s.read("secret/k.txt")).toBe("k\n");
    expect(fs.existsSync(s.file("secret/new.txt"))).toBe(false);
  });

  it("a Read deny rule refuses view of the file and of a directory", async () => {
    const s = guarded([rule("deny", "Read", "./private/**"), rule("deny", "Read", "./private")]);
    s.write("private/p.txt", "p\n");
    expect((await s.run(TOOL, { command: "view", path: "private/p.txt" })).outcome).not.toBe("success");
    expect((await s.run(TOOL, { command: "view", path: "private" })).outcome).not.toBe("success");
  });

  it("a symlink into a denied directory does not let create or str_replace through", async () => {
    const s = guarded([rule("deny", "Edit", "./secret/**"), rule("allow", "Edit", "./**")]);
    s.write("secret/k.txt", "k\n");
    fs.symlinkSync(s.file("secret"), s.file("link"));
    await s.run(TOOL, { command: "view", path: "link/k.txt" });
    expect((await s.run(TOOL, { command: "str_replace", path: "link/k.txt", old_str: "k", new_str: "K" })).outcome).not.toBe("success");
    expect((await s.run(TOOL, { command: "create", path: "link/new.txt", file_text: "n\n" })).outcome).not.toBe("success");
    expect(s.read("secret/k.txt")).toBe("k\n");
    expect(fs.existsSync(s.file("secret/new.txt"))).toBe(false);
  });

  it("isReadOnly and isConcurrencySafe only for view", () => {
    expect(TextEditorTool.isReadOnly({ command: "view", path: "a" })).toBe(true);
    expect(TextEditorTool.isReadOnly({ command: "create", path: "a", file_text: "x" })).toBe(false);
    expect(TextEditorTool.isConcurrencySafe({ command: "undo_edit", path: "a" })).toBe(false);
  });
});

describe("inTextEditorTerms", () => {
  it("renames Edit's parameters and drops the replace_all advice", () => {
    const text = inTextEditorTerms(
      "old_string matches 3 places in f, at lines 1, 2, 3. Without replace_all, Edit changes exactly one place. Either add surrounding lines to old_string so that it matches only the place you mean, or set replace_all to true to change all 3.",
    );
    expect(text).toBe("old_str matches 3 places in f, at lines 1, 2, 3. str_replace changes exactly one place: add surrounding lines to old_str so that it matches only the place you mean (or make one call per place).");
  });
});
