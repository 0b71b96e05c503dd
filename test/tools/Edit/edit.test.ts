import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { createEmptyPermissionContext } from "../../../src/core/context.js";
import { hashContent } from "../../../src/core/fileStateCache.js";
import type { CanUseToolFn, HookRunner } from "../../../src/core/Tool.js";
import { runToolsToMessage } from "../../../src/core/executor/index.js";
import { EditTool } from "../../../src/tools/Edit/index.js";
import { prepareFileEdit } from "../../../src/tools/Edit/editFile.js";
import { buildStructuredPatch } from "../../../src/tools/files/patch.js";
import { assistantMessage, tempDir } from "../../helpers.js";
import { resultText, session, sessionAfterRead, touch } from "../files/harness.js";

describe("Edit validation, in SPEC order", () => {
  it("1. refuses identical old_string and new_string", async () => {
    const s = await sessionAfterRead("a.txt", "same\n");
    const r = await s.run("Edit", { file_path: "a.txt", old_string: "same", new_string: "same" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("identical");
    expect(s.read("a.txt")).toBe("same\n");
  });

  it("2. refuses a path denied by an Edit rule, before looking at the file", async () => {
    const dir = tempDir();
    const permissionContext = {
      ...createEmptyPermissionContext(dir),
      rules: [{ source: "session" as const, ruleBehavior: "deny" as const, ruleValue: { toolName: "Edit", ruleContent: "secret/**" } }],
    };
    const s = session({ cwd: dir, permissionContext });
    const r = await s.run("Edit", { file_path: "secret/missing.txt", old_string: "a", new_string: "b" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("denied");
    expect(r.text).not.toContain("does not exist");
    expect(r.errorLabel).toBe("validation:2");
  });

  it("3. refuses a file over 1 GiB (a 1.1 GiB sparse file) without reading it", async () => {
    const s = session();
    const big = s.file("huge.log");
    fs.closeSync(fs.openSync(big, "w"));
    fs.truncateSync(big, Math.round(1.1 * 1024 ** 3));
    const r = await s.run("Edit", { file_path: "huge.log", old_string: "a", new_string: "b" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toMatch(/1\.10 GB.*up to 1 GiB/);
    expect(r.errorLabel).toBe("validation:3");
    expect(fs.statSync(big).size).toBe(Math.round(1.1 * 1024 ** 3));
  });

  it("4. refuses a missing file, naming the cwd and a similar existing file", async () => {
    const s = session();
    s.write("src/config.ts", "x\n");
    const r = await s.run("Edit", { file_path: "src/confg.ts", old_string: "x", new_string: "y" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain(`File does not exist: ${s.file("src/confg.ts")}`);
    expect(r.text).toContain(`The current working directory is ${s.dir}`);
    expect(r.text).toContain(`Did you mean ${s.file("src/config.ts")}?`);
  });

  it("5. an empty old_string creates a new file (and its directories) without a read", async () => {
    const s = session();
    const r = await s.run("Edit", { file_path: "new/dir/file.txt", old_string: "", new_string: "hello\n" });
    expect(r.outcome).toBe("success");
    expect(r.text).toContain("Created new/dir/file.txt");
    expect(s.read("new/dir/file.txt")).toBe("hello\n");
    expect((r.output as { strategy: string }).strategy).toBe("create");
  });

  it("5. an empty old_string is refused when the file has content, allowed when it is only whitespace", async () => {
    const s = session();
    s.write("full.txt", "content\n");
    const refused = await s.run("Edit", { file_path: "full.txt", old_string: "", new_string: "x" });
    expect(refused.outcome).toBe("invalid_input");
    expect(refused.text).toContain("already exists and is not empty");
    expect(s.read("full.txt")).toBe("content\n");
    s.write("blank.txt", "  \n\n");
    const allowed = await s.run("Edit", { file_path: "blank.txt", old_string: "", new_string: "filled\n" });
    expect(allowed.outcome).toBe("success");
    expect(s.read("blank.txt")).toBe("filled\n");
  });

  it("6. sends notebooks to NotebookEdit", async () => {
    const s = session();
    s.write("n.ipynb", JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 }));
    const r = await s.run("Edit", { file_path: "n.ipynb", old_string: "cells", new_string: "x" });
    expect(r.text).toContain("NotebookEdit");
  });

  it("7. refuses a file not read in this session", async () => {
    const s = session();
    s.write("a.txt", "alpha\n");
    const r = await s.run("Edit", { file_path: "a.txt", old_string: "alpha", new_string: "beta" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("must be read before it is edited");
    expect(r.text).toContain("Call Read on it");
  });

  it("7. refuses a file the session saw only as an automatic partial view", async () => {
    const s = session();
    const p = s.write("a.txt", "alpha\n");
    s.ctx.readFileState.set(p, { contentHash: hashContent(fs.readFileSync(p)), mtimeMs: fs.statSync(p).mtimeMs, size: 6, timestamp: Date.now(), isPartialView: true });
    const r = await s.run("Edit", { file_path: "a.txt", old_string: "alpha", new_string: "beta" });
    expect(r.text).toContain("automatic partial view");
  });

  it("8. refuses a file that really changed since it was read", async () => {
    const s = await sessionAfterRead("a.txt", "alpha\nbeta\n");
    fs.writeFileSync(s.file("a.txt"), "alpha\nBETA\n");
    touch(s.file("a.txt"));
    const r = await s.run("Edit", { file_path: "a.txt", old_string: "alpha", new_string: "gamma" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("has changed since you last read it");
    expect(r.text).toContain("Read the file again");
    expect(s.read("a.txt")).toBe("alpha\nBETA\n");
  });

  it("8. allows a file whose mtime moved but whose content is identical (a formatter's touch)", async () => {
    const s = await sessionAfterRead("a.txt", "alpha\nbeta\n");
    touch(s.file("a.txt"), 60_000);
    const r = await s.run("Edit", { file_path: "a.txt", old_string: "alpha", new_string: "gamma" });
    expect(r.outcome).toBe("success");
    expect(s.read("a.txt")).toBe("gamma\nbeta\n");
  });

  it("8. catches a same-size change even when the mtime is put back", async () => {
    const s = await sessionAfterRead("a.txt", "alpha\n");
    const { mtime } = fs.statSync(s.file("a.txt"));
    fs.writeFileSync(s.file("a.txt"), "ALPHA\n");
    fs.utimesSync(s.file("a.txt"), mtime, mtime);
    const r = await s.run("Edit", { file_path: "a.txt", old_string: "ALPHA", new_string: "x" });
    expect(r.text).toContain("has changed since you last read it");
  });

  it("9. no match: shows the closest region with line numbers and its first differing line", async () => {
    const content = "function a() {\n\tconst x = 1;\n\treturn x;\n}\n\nfunction b() {}\n";
    const s = await sessionAfterRead("f.js", content);
    const r = await s.run("Edit", { file_path: "f.js", old_string: "function a() {\n  const x = 2;\n  return x;\n}", new_string: "z" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("old_string was not found");
    expect(r.text).toMatch(/closest part of the file is lines 1-4/);
    expect(r.text).toContain("1\tfunction a() {");
    expect(r.text).toContain("First difference, at line 2 of the file (line 2 of old_string)");
    expect(r.text).toContain(JSON.stringify("\tconst x = 1;"));
    expect(r.errorLabel).toBe("validation:9");
  });

  it("9. no match: says when new_string is already in the file", async () => {
    const s = await sessionAfterRead("f.js", "const answer = 42;\n");
    const r = await s.run("Edit", { file_path: "f.js", old_string: "const answer = 41;", new_string: "const answer = 42;" });
    expect(r.text).toContain("new_string already appears in the file at line 1");
  });

  it("9. no match: recognises Read's line-number prefixes pasted into old_string", async () => {
    const s = await sessionAfterRead("f.js", "one\ntwo\nthree\n");
    const r = await s.run("Edit", { file_path: "f.js", old_string: "2\ttwo\n3\tthree", new_string: "x" });
    expect(r.text).toContain("line-number prefixes");
    expect(r.text).toContain("Without them it matches at line 2");
  });

  it("10. refuses several matches without replace_all, with the count and lines", async () => {
    const s = await sessionAfterRead("a.txt", "x = 1\ny\nx = 1\nz\nx = 1\n");
    const r = await s.run("Edit", { file_path: "a.txt", old_string: "x = 1", new_string: "x = 2" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("matches 3 places");
    expect(r.text).toContain("at lines 1, 3, 5");
    expect(r.text).toContain("replace_all");
    expect(r.errorLabel).toBe("validation:10");
  });

  it("refuses a directory, a read-only file and a binary file", async () => {
    const s = session();
    fs.mkdirSync(s.file("d"));
    expect((await s.run("Edit", { file_path: "d", old_string: "a", new_string: "b" })).text).toContain("is a directory");

    const ro = await sessionAfterRead("ro.txt", "locked\n");
    fs.chmodSync(ro.file("ro.txt"), 0o444);
    const r = await ro.run("Edit", { file_path: "ro.txt", old_string: "locked", new_string: "open" });
    expect(r.text).toContain("read-only (mode 0444)");
    expect(ro.read("ro.txt")).toBe("locked\n");

    const bin = session();
    const p = bin.write("data.txt", Buffer.from([0x61, 0x00, 0x62, 0x0a]));
    bin.ctx.readFileState.set(p, { contentHash: hashContent(fs.readFileSync(p)), mtimeMs: fs.statSync(p).mtimeMs, size: 4, timestamp: Date.now() });
    expect((await bin.run("Edit", { file_path: "data.txt", old_string: "a", new_string: "c" })).text).toContain("binary file");
  });
});

describe("Edit writes", () => {
  it("says the file was updated without echoing the region, unless settings edit.showEditedRegion asks", async () => {
    const plain = await sessionAfterRead("a.txt", "one\ntwo\nthree\n");
    const r = await plain.run("Edit", { file_path: "a.txt", old_string: "two", new_string: "2" });
    expect(r.text).toBe(`The file a.txt has been updated.`);
    const asked = session({ settings: { edit: { showEditedRegion: true } } });
    asked.write("b.txt", "one\ntwo\nthree\n");
    await asked.run("Read", { file_path: "b.txt" });
    const shown = await asked.run("Edit", { file_path: "b.txt", old_string: "two", new_string: "2" });
    expect(shown.text).toBe("The file b.txt has been updated. The edited region now reads:\n1\tone\n2\t2\n3\tthree");
    const multi = await asked.run("MultiEdit", { file_path: "b.txt", edits: [{ old_string: "one", new_string: "1" }] });
    expect(multi.text).toContain("Applied 1 edit to b.txt.\nThe changed region now reads:\n1\t1\n");
  });

  it("replaces literally: $& and $1 stay as written", async () => {
    const s = await sessionAfterRead("a.txt", "price = OLD;\n");
    await s.run("Edit", { file_path: "a.txt", old_string: "OLD", new_string: "$& + $1 + $$" });
    expect(s.read("a.txt")).toBe("price = $& + $1 + $$;\n");
  });

  it("replace_all changes every occurrence and says how many", async () => {
    const s = await sessionAfterRead("a.txt", "foo foo\nfoo\n");
    const r = await s.run("Edit", { file_path: "a.txt", old_string: "foo", new_string: "bar", replace_all: true });
    expect(r.text).toContain("Replaced 3 occurrences");
    expect(s.read("a.txt")).toBe("bar bar\nbar\n");
  });

  it("deleting a whole line removes its line break", async () => {
    const s = await sessionAfterRead("a.txt", "keep\ndrop me\nkeep too\n");
    await s.run("Edit", { file_path: "a.txt", old_string: "drop me", new_string: "" });
    expect(s.read("a.txt")).toBe("keep\nkeep too\n");
  });

  it("keeps CRLF line endings, for the replaced lines and the new ones", async () => {
    const s = await sessionAfterRead("w.txt", "one\r\ntwo\r\nthree\r\n");
    const r = await s.run("Edit", { file_path: "w.txt", old_string: "one\ntwo", new_string: "ONE\nTWO\nTWO-AND-A-HALF" });
    expect(r.outcome).toBe("success");
    expect(fs.readFileSync(s.file("w.txt"), "latin1")).toBe("ONE\r\nTWO\r\nTWO-AND-A-HALF\r\nthree\r\n");
  });

  it("leaves the endings of untouched lines alone in a mixed file", async () => {
    const s = await sessionAfterRead("m.txt", "a\r\nb\nc\r\nd\r\n");
    await s.run("Edit", { file_path: "m.txt", old_string: "c", new_string: "C\nC2" });
    expect(fs.readFileSync(s.file("m.txt"), "latin1")).toBe("a\r\nb\nC\r\nC2\r\nd\r\n");
  });

  it("keeps a UTF-16LE file with its BOM", async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo wörld\r\nzweite Zeile\r\n", "utf16le")]);
    const s = await sessionAfterRead("u16.txt", bytes);
    const r = await s.run("Edit", { file_path: "u16.txt", old_string: "wörld", new_string: "Welt ✓" });
    expect(r.outcome).toBe("success");
    const out = fs.readFileSync(s.file("u16.txt"));
    expect([...out.subarray(0, 2)]).toEqual([0xff, 0xfe]);
    expect(out.subarray(2).toString("utf16le")).toBe("héllo Welt ✓\r\nzweite Zeile\r\n");
  });

  it("keeps a UTF-8 BOM", async () => {
    const s = await sessionAfterRead("bom.txt", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("first\nsecond\n")]));
    await s.run("Edit", { file_path: "bom.txt", old_string: "second", new_string: "2nd" });
    const out = fs.readFileSync(s.file("bom.txt"));
    expect([...out.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(out.subarray(3).toString("utf8")).toBe("first\n2nd\n");
  });

  it("keeps a legacy single-byte encoding, and refuses characters it cannot hold", async () => {
    const text = "Café crème, naïve façade, déjà vu — voilà.\nDeuxième ligne très française.\n";
    const s = await sessionAfterRead("latin.txt", iconv.encode(text, "windows-1252"));
    const ok = await s.run("Edit", { file_path: "latin.txt", old_string: "Deuxième", new_string: "Troisième" });
    expect(ok.outcome).toBe("success");
    expect(iconv.decode(fs.readFileSync(s.file("latin.txt")), "windows-1252")).toBe(text.replace("Deuxième", "Troisième"));
    const bad = await s.run("Edit", { file_path: "latin.txt", old_string: "Troisième", new_string: "日本語" });
    expect(bad.text).toContain("cannot represent");
  });

  it("matches straight quotes against curly ones and keeps the file's style, naming the strategy", async () => {
    const s = await sessionAfterRead("prose.md", "He said \u201Cit\u2019s fine\u201D.\n");
    const r = await s.run("Edit", { file_path: "prose.md", old_string: `He said "it's fine".`, new_string: `He said "it's great".` });
    expect(r.text).toContain("curly and straight quotes");
    expect((r.output as { strategy: string }).strategy).toBe("quote_normalized");
    expect(s.read("prose.md")).toBe("He said \u201Cit\u2019s great\u201D.\n");
  });

  it("reports the indentation shift it applied", async () => {
    const s = await sessionAfterRead("p.py", "class A:\n    def f(self):\n        return 1\n");
    const r = await s.run("Edit", { file_path: "p.py", old_string: "def f(self):\n    return 1", new_string: "def f(self):\n    return 2" });
    expect(r.text).toContain("indented 4 spaces more than old_string");
    expect(s.read("p.py")).toBe("class A:\n    def f(self):\n        return 2\n");
  });

  it("writes through a symlink: the target changes, the link stays a link", async () => {
    const s = session();
    const target = s.write("real/target.txt", "old value\n");
    fs.symlinkSync(target, s.file("link.txt"));
    await s.run("Read", { file_path: "link.txt" });
    const r = await s.run("Edit", { file_path: "link.txt", old_string: "old", new_string: "new" });
    expect(r.outcome).toBe("success");
    expect(fs.lstatSync(s.file("link.txt")).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(target, "utf8")).toBe("new value\n");
  });

  it("keeps the permission mode (0755 stays 0755)", async () => {
    const s = await sessionAfterRead("run.sh", "#!/bin/sh\necho old\n");
    fs.chmodSync(s.file("run.sh"), 0o755);
    touch(s.file("run.sh"));
    await s.run("Edit", { file_path: "run.sh", old_string: "echo old", new_string: "echo new" });
    expect(fs.statSync(s.file("run.sh")).mode & 0o7777).toBe(0o755);
    expect(s.read("run.sh")).toBe("#!/bin/sh\necho new\n");
  });

  it("returns the structured patch (3 lines of context) and the original file", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const s = await sessionAfterRead("p.txt", `${lines.join("\n")}\n`);
    const r = await s.run("Edit", { file_path: "p.txt", old_string: "line 10", new_string: "LINE TEN" });
    const output = r.output as { structuredPatch: Array<{ oldStart: number; lines: string[] }>; originalFile: string; filePath: string };
    expect(output.filePath).toBe("p.txt");
    expect(output.originalFile).toBe(`${lines.join("\n")}\n`);
    expect(output.structuredPatch).toEqual([
      { oldStart: 7, oldLines: 7, newStart: 7, newLines: 7, lines: [" line 7", " line 8", " line 9", "-line 10", "+LINE TEN", " line 11", " line 12", " line 13"] },
    ]);
  });

  it("writes the file inside call() before its promise is awaited (no yielding await in the critical section)", async () => {
    const s = await sessionAfterRead("sync.txt", "before\n");
    const context = { ...s.ctx, toolUseID: "toolu_sync" };
    const input = { file_path: "sync.txt", old_string: "before", new_string: "after", replace_all: false };
    const pending = EditTool.call(input, context, async () => ({ behavior: "allow" }), assistantMessage("m_sync"));
    expect(s.read("sync.txt")).toBe("after\n");
    await pending;
  });

  it("refuses in call() when the file changes while permission is being asked", async () => {
    const s = session();
    s.write("race.txt", "original\n");
    await s.run("Read", { file_path: "race.txt" });
    const sneaky: CanUseToolFn = async () => {
      fs.writeFileSync(s.file("race.txt"), "changed by the user\n");
      return { behavior: "allow" };
    };
    const racing = session({ cwd: s.dir, readFileState: s.ctx.readFileState, canUseTool: sneaky });
    const r = await racing.run("Edit", { file_path: "race.txt", old_string: "original", new_string: "mine" });
    expect(r.outcome).toBe("tool_error");
    expect(r.text).toContain("has changed since you last read it");
    expect(s.read("race.txt")).toBe("changed by the user\n");
  });
});

describe("Edit end to end through runTools", () => {
  it("Read, then Edit, then Edit again without re-reading", async () => {
    const s = session();
    s.write("app.ts", "const a = 1;\nconst b = 2;\n");
    const uses = [
      { type: "tool_use" as const, id: "t1", name: "Read", input: { file_path: "app.ts" } },
      { type: "tool_use" as const, id: "t2", name: "Edit", input: { file_path: "app.ts", old_string: "const a = 1;", new_string: "const a = 10;" } },
      { type: "tool_use" as const, id: "t3", name: "Edit", input: { file_path: "app.ts", old_string: "const b = 2;", new_string: "const b = 20;" } },
    ];
    const { message } = await runToolsToMessage(uses, assistantMessage("m_e2e"), async () => ({ behavior: "allow" }), s.ctx);
    const blocks = message.content as Array<{ type: string; is_error?: boolean; content: unknown }>;
    expect(blocks.map((b) => b.is_error ?? false)).toEqual([false, false, false]);
    expect(resultText(blocks[2] as never)).toContain("has been updated");
    expect(s.read("app.ts")).toBe("const a = 10;\nconst b = 20;\n");
  });
});

function preparedWith(options: Parameters<typeof prepareFileEdit>[2]) {
  return (content: string | Buffer, old: string, replacement: string, replaceAll = false) => {
    const s = session();
    const p = s.write("big.txt", content);
    const raw = fs.readFileSync(p);
    s.ctx.readFileState.set(p, { contentHash: hashContent(raw), mtimeMs: fs.statSync(p).mtimeMs, size: raw.length, timestamp: Date.now() });
    return prepareFileEdit({ toolName: "Edit", filePath: p, edits: [{ old_string: old, new_string: replacement, replace_all: replaceAll }] }, s.ctx, options);
  };
}

describe("large UTF-8 files try an exact match on the bytes first", () => {
  const prepared = preparedWith({ fastPathMinBytes: 1 });

  it("splices an exact match without decoding the file", () => {
    const r = prepared("alpha\nbeta\ngamma\n", "beta", "BETA");
    if (!r.ok) throw new Error(r.message);
    expect(r.edit.newBytes.toString()).toBe("alpha\nBETA\ngamma\n");
    expect(r.edit.newText).toBeUndefined();
  });

  it("falls back to the decoded cascade when the bytes cannot decide", () => {
    const quoted = prepared("say \u201Chi\u201D\n", 'say "hi"', 'say "bye"');
    expect(quoted.ok && quoted.edit.applied[0].strategy).toBe("quote_normalized");
    expect(quoted.ok && quoted.edit.newBytes.toString()).toBe("say \u201Cbye\u201D\n");
    const crlf = prepared("a\r\nb\nc\r\n", "b\nc", "B\nC");
    expect(crlf.ok && crlf.edit.newText).toBe("a\r\nB\r\nC\r\n");
  });

  it("refuses an ambiguous exact match outright", () => {
    const r = prepared("x\ny\nx\n", "x", "z");
    expect(!r.ok && r.message).toContain("matches 2 places");
  });
});

describe("files too large to decode are edited as bytes", () => {
  const prepared = preparedWith({ byteModeMinBytes: 1 });

  it("splices an exact match into the bytes, with a patch and whole-file line numbers", () => {
    const r = prepared("a\nb\nc\nd\ne\nf\ng\nh\n", "f", "F");
    expect(r.ok && r.edit.newBytes.toString()).toBe("a\nb\nc\nd\ne\nF\ng\nh\n");
    expect(r.ok && r.edit.newText).toBeUndefined();
    if (!r.ok) throw new Error(r.message);
    expect(buildStructuredPatch(r.edit.oldSource, r.edit.newSource, r.edit.ranges)[0]).toMatchObject({ oldStart: 3, lines: [" c", " d", " e", "-f", "+F", " g", " h"] });
  });

  it("finds a multi-line old_string in a CRLF file and inserts CRLF", () => {
    const r = prepared("one\r\ntwo\r\nthree\r\n", "one\ntwo", "1\n2");
    expect(r.ok && r.edit.newBytes.toString()).toBe("1\r\n2\r\nthree\r\n");
  });

  it("refuses several matches and says when only exact matching was possible", () => {
    const twice = prepared("x\nx\n", "x", "y");
    expect(!twice.ok && twice.message).toContain("matches 2 places");
    const none = prepared("he said \u201Chi\u201D\n", 'he said "hi"', "x");
    expect(!none.ok && none.message).toContain("Only exact matching is available at this size");
    expect(!none.ok && none.message).not.toContain("No part of the file resembles");
  });

  it("deletes whole lines with their line break and keeps a BOM", () => {
    const r = prepared(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("keep\r\ndrop\r\nkeep\r\n")]), "drop", "");
    expect(r.ok && [...r.edit.newBytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(r.ok && r.edit.newBytes.subarray(3).toString()).toBe("keep\r\nkeep\r\n");
  });
});

describe("Edit tool definition", () => {
  it("is a writer: not read-only, not concurrency-safe, 100 000 char results", () => {
    const input = { file_path: "x", old_string: "a", new_string: "b", replace_all: false };
    expect(EditTool.isReadOnly(input)).toBe(false);
    expect(EditTool.isConcurrencySafe(input)).toBe(false);
    expect(EditTool.maxResultSizeChars).toBe(100_000);
  });

  it("backfills ~ and absolute paths for hooks and permission checks; results echo the model's path", async () => {
    const s = await sessionAfterRead("rel.txt", "a\n");
    const home = { file_path: "~/notes.txt", old_string: "a", new_string: "b", replace_all: false };
    EditTool.backfillObservableInput?.(home, s.ctx);
    expect(home.file_path).toBe(path.join(os.homedir(), "notes.txt"));
    const relative = { file_path: "rel.txt", old_string: "a", new_string: "b", replace_all: false };
    EditTool.backfillObservableInput?.(relative, s.ctx);
    expect(relative.file_path).toBe(s.file("rel.txt"));
    const r = await s.run("Edit", { file_path: "rel.txt", old_string: "a", new_string: "b" });
    expect((r.output as { filePath: string }).filePath).toBe("rel.txt");
  });

  it("hooks see the absolute path of a relative file_path", async () => {
    const seen: unknown[] = [];
    const outcome = async () => ({ additionalContext: [], notices: [] });
    const hookRunner: HookRunner = {
      preToolUse: async ({ input }) => {
        seen.push(input.file_path);
        return outcome();
      },
      postToolUse: outcome,
      postToolUseFailure: outcome,
      permissionRequest: outcome,
    };
    const s = session({ hookRunner });
    s.write("h.txt", "x\n");
    await s.run("Read", { file_path: "h.txt" });
    await s.run("Edit", { file_path: "./h.txt", old_string: "x", new_string: "y" });
    expect(seen).toEqual([s.file("h.txt"), s.file("h.txt")]);
  });
});
