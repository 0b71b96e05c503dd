import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createEmptyPermissionContext } from "../../../src/core/context.js";
import { hashContent } from "../../../src/core/fileStateCache.js";
import type { ImageBlock } from "../../../src/core/messages.js";
import { runToolsToMessage } from "../../../src/core/executor/index.js";
import { ReadTool } from "../../../src/tools/Read/index.js";
import { readLineWindow } from "../../../src/tools/Read/window.js";
import { assistantMessage, tempDir } from "../../helpers.js";
import { session, touch } from "../files/harness.js";
import { makeNotebook, makePdf, makePng } from "./fixtures.js";

const numbered = (from: number, lines: string[]) => lines.map((l, i) => `${from + i}\t${l}`).join("\n");
const hasPdftotext = spawnSync("pdftotext", ["-v"]).error === undefined;

describe("Read text", () => {
  it("numbers lines from 1 with a tab, with no footer when the whole file was shown", async () => {
    const s = session();
    s.write("a.txt", "alpha\nbeta\ngamma\n");
    const r = await s.run("Read", { file_path: "a.txt" });
    expect(r.outcome).toBe("success");
    expect(r.text).toBe(numbered(1, ["alpha", "beta", "gamma"]));
  });

  it("counts a last line without a newline", async () => {
    const s = session();
    s.write("a.txt", "one\ntwo");
    expect((await s.run("Read", { file_path: "a.txt" })).text).toBe("1\tone\n2\ttwo");
  });

  it("shows 2000 lines by default and says where to continue", async () => {
    const s = session();
    s.write("long.txt", Array.from({ length: 2500 }, (_, i) => `row ${i + 1}`).join("\n") + "\n");
    const r = await s.run("Read", { file_path: "long.txt" });
    expect(r.text).toContain("2000\trow 2000\n\n[Lines 1-2000 of 2500. To continue, call Read with offset=2001.]");
    expect(r.text).not.toContain("row 2001");
  });

  it("shows a window given by offset and limit", async () => {
    const s = session();
    s.write("long.txt", Array.from({ length: 300 }, (_, i) => `row ${i + 1}`).join("\n") + "\n");
    const r = await s.run("Read", { file_path: "long.txt", offset: 100, limit: 3 });
    expect(r.text).toBe(`${numbered(100, ["row 100", "row 101", "row 102"])}\n\n[Lines 100-102 of 300. To continue, call Read with offset=103.]`);
  });

  it("cuts lines longer than 2000 characters and marks them", async () => {
    const s = session();
    s.write("wide.txt", `short\n${"x".repeat(5000)}\n`);
    const r = await s.run("Read", { file_path: "wide.txt" });
    expect(r.text).toContain(`2\t${"x".repeat(2000)} … [line truncated at 2000 characters; the full line is 5000 bytes]`);
    expect(r.text).toContain("1 line was longer than 2000 characters and cut");
  });

  it("says when a file is empty, and when offset is past its end", async () => {
    const s = session();
    s.write("empty.txt", "");
    expect((await s.run("Read", { file_path: "empty.txt" })).text).toContain("exists but is empty (0 lines)");
    s.write("three.txt", "a\nb\nc\n");
    const r = await s.run("Read", { file_path: "three.txt", offset: 10 });
    expect(r.outcome).toBe("success");
    expect(r.text).toContain("has 3 lines, so offset 10 is past its end. Use an offset from 1 to 3.");
  });

  it("shows CRLF files without the CRs and decodes UTF-16LE with a BOM", async () => {
    const s = session();
    s.write("crlf.txt", "one\r\ntwo\r\n");
    expect((await s.run("Read", { file_path: "crlf.txt" })).text).toBe("1\tone\n2\ttwo");
    s.write("u16.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("grüße\r\nwelt\n", "utf16le")]));
    const r = await s.run("Read", { file_path: "u16.txt" });
    expect(r.text).toContain("1\tgrüße\n2\twelt\n");
    expect(r.text).toContain("Encoding: UTF-16LE with BOM");
  });

  it("stops a window early when the result would get too large, and says so", async () => {
    const s = session();
    s.write("wide.txt", Array.from({ length: 200 }, () => "y".repeat(1900)).join("\n"));
    const r = await s.run("Read", { file_path: "wide.txt", limit: 200 });
    expect(r.text).toMatch(/\[Lines 1-5\d of 200\. The window ended early because the result reached 100000 characters\. To continue, call Read with offset=5\d\.\]/);
  });

  it("refuses a file over 256 KB read without a window, and says how to read it in parts", async () => {
    const s = session();
    s.write("big.txt", Array.from({ length: 3000 }, () => "z".repeat(99)).join("\n"));
    const r = await s.run("Read", { file_path: "big.txt" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.block.is_error).toBe(true);
    expect(r.text).toMatch(/^<tool_use_error>.*big\.txt is 293\.0 KB, more than the 256\.0 KB Read shows without a window\. Read it in parts with offset and limit/s);
    expect((await s.run("Read", { file_path: "big.txt", offset: 1, limit: 2 })).text).toContain("[Lines 1-2 of 3000.");
  });
});

describe("Read refusals", () => {
  it("refuses binary files, by content and by extension", async () => {
    const s = session();
    s.write("blob.dat2", Buffer.from([1, 2, 0, 3, 4]));
    const r = await s.run("Read", { file_path: "blob.dat2" });
    expect(r.outcome).toBe("tool_error");
    expect(r.text).toContain("is a binary file (it contains NUL bytes");
    s.write("archive.zip", "PK not really");
    expect((await s.run("Read", { file_path: "archive.zip" })).text).toContain("its extension marks it as one");
  });

  it("refuses device files, FIFOs and directories", async () => {
    const s = session();
    for (const device of ["/dev/zero", "/dev/stdin", "/dev/random"]) {
      const r = await s.run("Read", { file_path: device });
      expect(r.outcome, device).toBe("invalid_input");
      expect(r.text, device).toContain("Read only reads regular files");
    }
    execFileSync("mkfifo", [s.file("pipe")]);
    expect((await s.run("Read", { file_path: "pipe" })).text).toContain("is a FIFO (named pipe)");
    fs.mkdirSync(s.file("dir"));
    expect((await s.run("Read", { file_path: "dir" })).text).toContain("is a directory");
  });

  it("names the cwd and suggests a similar path for a missing file", async () => {
    const s = session();
    s.write("src/utils/helpers.ts", "x\n");
    const r = await s.run("Read", { file_path: "src/utils/helper.ts" });
    expect(r.text).toContain(`File does not exist: ${s.file("src/utils/helper.ts")}. The current working directory is ${s.dir}.`);
    expect(r.text).toContain(`Did you mean ${s.file("src/utils/helpers.ts")}?`);
    const moved = await s.run("Read", { file_path: "lib/helpers.ts" });
    expect(moved.text).toContain(`Did you mean ${s.file("src/utils/helpers.ts")}?`);
    const leadingSlash = await s.run("Read", { file_path: "/src/utils/helpers.ts" });
    expect(leadingSlash.text).toContain(`Did you mean ${s.file("src/utils/helpers.ts")}?`);
  });

  it("never suggests a path a Read rule denies, and refuses denied paths before touching them", async () => {
    const dir = tempDir();
    const permissionContext = {
      ...createEmptyPermissionContext(dir),
      rules: [{ source: "session" as const, ruleBehavior: "deny" as const, ruleValue: { toolName: "Read", ruleContent: "secrets/**" } }],
    };
    const s = session({ cwd: dir, permissionContext });
    s.write("secrets/token.txt", "hunter2\n");
    const typo = await s.run("Read", { file_path: "secrets/tokn.txt" });
    expect(typo.outcome).toBe("invalid_input");
    expect(typo.text).not.toContain("token.txt");
    const elsewhere = await s.run("Read", { file_path: "other/token.txt" });
    expect(elsewhere.text).not.toContain("Did you mean");
    expect((await s.run("Read", { file_path: "secrets/token.txt" })).text).toContain("denied");
  });

  it("rejects pages for files that are not PDFs, and malformed page ranges", async () => {
    const s = session();
    s.write("a.txt", "x\n");
    expect((await s.run("Read", { file_path: "a.txt", pages: "1" })).text).toContain("pages only applies to PDF files");
    s.write("d.pdf", makePdf(["one"]));
    expect((await s.run("Read", { file_path: "d.pdf", pages: "3-1" })).text).toContain("ends before it starts");
  });
});

describe("Read images, notebooks and PDFs", () => {
  it("returns a PNG as an image block with its size", async () => {
    const s = session();
    const png = makePng(3, 2);
    s.write("pic.png", png);
    const r = await s.run("Read", { file_path: "pic.png" });
    const blocks = r.block.content as Array<{ type: string }>;
    expect(blocks.map((b) => b.type)).toEqual(["text", "image"]);
    expect((blocks[1] as ImageBlock).source).toEqual({ type: "base64", media_type: "image/png", data: png.toString("base64") });
    expect(r.text).toContain("image/png, 3×2 px");
  });

  it("trusts magic bytes over the extension", async () => {
    const s = session();
    s.write("actually-jpeg.png", Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(20)]));
    const r = await s.run("Read", { file_path: "actually-jpeg.png" });
    expect(((r.block.content as Array<{ type: string }>)[1] as ImageBlock).source.media_type).toBe("image/jpeg");
    s.write("pointer.png", "version https://git-lfs.github.com/spec/v1\n");
    expect((await s.run("Read", { file_path: "pointer.png" })).text).toContain("1\tversion https://git-lfs");
  });

  it("refuses images over the size cap with a way out", async () => {
    const s = session();
    s.write("big.png", Buffer.concat([makePng(1, 1), Buffer.alloc(4 * 1024 * 1024)]));
    const r = await s.run("Read", { file_path: "big.png" });
    expect(r.outcome).toBe("tool_error");
    expect(r.text).toContain("Make a smaller copy");
  });

  it("renders a notebook as cells with ids and outputs, images as blocks", async () => {
    const s = session();
    const png = makePng(1, 1);
    s.write("nb.ipynb", JSON.stringify(makeNotebook(png), null, 1));
    const r = await s.run("Read", { file_path: "nb.ipynb" });
    const text = r.text;
    expect(text).toContain("Jupyter notebook with 2 cells (language: python)");
    expect(text).toContain('<cell id="intro" type="markdown">\n# Title\nSome text\n</cell>');
    expect(text).toContain('<cell id="calc" type="code" execution_count="3">\nx = 40 + 2\nprint(x)\nx\n</cell>');
    expect(text).toContain("[stdout]\n42\n");
    expect(text).toContain("[result]\n42");
    expect(text).toContain("[error] ZeroDivisionError: division by zero\nZeroDivisionError: division by zero");
    expect(text).not.toContain("\u001b[");
    const blocks = r.block.content as Array<{ type: string }>;
    expect(blocks.filter((b) => b.type === "image")).toHaveLength(1);
  });

  it.skipIf(!hasPdftotext)("extracts PDF text page by page with pdftotext (skipped when poppler is absent)", async () => {
    const s = session();
    s.write("doc.pdf", makePdf(["Hello page one", "Second page here", "Third"]));
    const all = await s.run("Read", { file_path: "doc.pdf" });
    expect(all.outcome).toBe("success");
    expect(all.text).toMatch(/--- Page 1 ---\n\s*Hello page one/);
    expect(all.text).toMatch(/--- Page 3 ---\n\s*Third/);
    expect(all.text).toContain("[Pages 1-3 of 3.]");
    const one = await s.run("Read", { file_path: "doc.pdf", pages: "2" });
    expect(one.text).toContain("Second page here");
    expect(one.text).not.toContain("Hello page one");
    expect(one.text).toContain('For more, call Read with pages: "3-3"');
    expect((await s.run("Read", { file_path: "doc.pdf", pages: "9" })).text).toContain("The PDF has 3 pages; page 9 does not exist.");
  });

  it("explains how to get PDF text when pdftotext is missing", async () => {
    const s = session();
    s.write("doc.pdf", makePdf(["x"]));
    const savedPath = process.env.PATH;
    process.env.PATH = tempDir("empty-path-");
    try {
      const r = await s.run("Read", { file_path: "doc.pdf" });
      expect(r.outcome).toBe("tool_error");
      expect(r.text).toContain("poppler-utils");
    } finally {
      process.env.PATH = savedPath;
    }
  });
});

describe("Read state and the unchanged stub", () => {
  it("records a full read with content, hash and whole-file coverage", async () => {
    const s = session();
    const p = s.write("a.txt", "alpha\nbeta\n");
    await s.run("Read", { file_path: "a.txt" });
    const state = s.ctx.readFileState.get(p);
    expect(state).toMatchObject({ contentHash: hashContent(fs.readFileSync(p)), content: "alpha\nbeta\n", size: 11, offset: 1, limit: 2000, coversWholeFile: true });
  });

  it("records the whole file's hash for a windowed read, without content", async () => {
    const s = session();
    const p = s.write("long.txt", Array.from({ length: 100 }, (_, i) => `l${i}`).join("\n"));
    await s.run("Read", { file_path: "long.txt", offset: 10, limit: 5 });
    const state = s.ctx.readFileState.get(p);
    expect(state).toMatchObject({ contentHash: hashContent(fs.readFileSync(p)), offset: 10, limit: 5, coversWholeFile: false });
    expect(state?.content).toBeUndefined();
  });

  it("returns a short stub when the same window of an unchanged file is read again", async () => {
    const s = session();
    s.write("a.txt", "alpha\n");
    expect((await s.run("Read", { file_path: "a.txt" })).text).toContain("1\talpha");
    const again = await s.run("Read", { file_path: "a.txt" });
    expect(again.text).toContain("has not changed since you last read it");
    expect(again.text).not.toContain("alpha");
    expect((await s.run("Read", { file_path: "a.txt", limit: 1 })).text).toContain("1\talpha");
    touch(s.file("a.txt"));
    expect((await s.run("Read", { file_path: "a.txt", limit: 1 })).text).toContain("has not changed");
    fs.writeFileSync(s.file("a.txt"), "ALPHA\n");
    expect((await s.run("Read", { file_path: "a.txt", limit: 1 })).text).toContain("1\tALPHA");
  });

  it("never returns the stub after the file was written by Edit", async () => {
    const s = session();
    s.write("a.txt", "alpha\n");
    await s.run("Read", { file_path: "a.txt" });
    await s.run("Edit", { file_path: "a.txt", old_string: "alpha", new_string: "beta" });
    expect((await s.run("Read", { file_path: "a.txt" })).text).toContain("1\tbeta");
  });
});

describe("the streaming window", () => {
  async function windowOf(content: Buffer, options: Partial<Parameters<typeof readLineWindow>[1]> = {}) {
    const dir = tempDir();
    fs.writeFileSync(`${dir}/f`, content);
    const handle = await fsp.open(`${dir}/f`, "r");
    try {
      return await readLineWindow(handle, { encoding: "utf8", offset: 1, limit: 2000, maxLineChars: 2000, maxOutputChars: 1e9, hash: true, ...options });
    } finally {
      await handle.close();
    }
  }

  it("gets the same lines whatever the chunk size (boundaries inside lines and inside characters)", async () => {
    const text = "ä1\nzwei€\n\ndrei 😀 end\r\nlast";
    for (const chunkBytes of [2, 4, 6, 10, 64]) {
      const w = await windowOf(Buffer.from(text), { chunkBytes });
      expect(w.lines, `chunk ${chunkBytes}`).toEqual(["ä1", "zwei€", "", "drei 😀 end", "last"]);
      expect(w.totalLines).toBe(5);
      expect(w.contentHash).toBe(hashContent(Buffer.from(text)));
    }
  });

  it("splits UTF-16LE on aligned newlines only", async () => {
    // U+0A0A is "\n\n" as bytes when misaligned; it must not split the line.
    const text = "a\u0a0ab\nc\n";
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    for (const chunkBytes of [2, 4, 8]) {
      const w = await windowOf(bytes, { encoding: "utf16le", chunkBytes });
      expect(w.lines).toEqual(["a\u0a0ab", "c"]);
      expect(w.totalLines).toBe(2);
    }
  });

  it("jumps straight to a window with the line index of an earlier full pass", async () => {
    const lines = Array.from({ length: 5_000 }, (_, i) => `entry ${i + 1} ${"·".repeat(i % 7)}`);
    const content = Buffer.from(`${lines.join("\n")}\nno newline at the end`);
    const full = await windowOf(content, { offset: 1, limit: 1, chunkBytes: 1024 });
    expect(full.index?.totalLines).toBe(5_001);
    expect(full.index?.checkpoints.length).toBeGreaterThan(10);
    for (const [offset, limit] of [[4_990, 20], [1, 3], [2_500, 2], [5_001, 5]]) {
      const direct = await windowOf(content, { offset, limit, chunkBytes: 1024 });
      const jumped = await windowOf(content, { offset, limit, chunkBytes: 1024, index: full.index, hash: false });
      expect(jumped.lines, `offset ${offset}`).toEqual(direct.lines);
      expect(jumped.totalLines).toBe(5_001);
      expect(jumped.contentHash).toBe(full.contentHash);
    }
    const past = await windowOf(content, { offset: 9_999, limit: 5, index: full.index });
    expect(past).toMatchObject({ lines: [], totalLines: 5_001 });
  });

  it("jumps with the index in UTF-16 too", async () => {
    const text = Array.from({ length: 300 }, (_, i) => `zeile ${i} äöü`).join("\r\n");
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    const full = await windowOf(bytes, { encoding: "utf16le", offset: 1, limit: 1, chunkBytes: 64 });
    const jumped = await windowOf(bytes, { encoding: "utf16le", offset: 250, limit: 3, chunkBytes: 64, index: full.index });
    expect(jumped.lines).toEqual(["zeile 249 äöü", "zeile 250 äöü", "zeile 251 äöü"]);
  });

  it("keeps only the window's lines while counting all of them", async () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => `line number ${i + 1}`);
    const w = await windowOf(Buffer.from(`${lines.join("\n")}\n`), { offset: 49_990, limit: 5, chunkBytes: 4096 });
    expect(w.lines).toEqual(lines.slice(49_989, 49_994));
    expect(w.totalLines).toBe(50_000);
  });
});

describe("Read tool definition", () => {
  it("is read-only, concurrency-safe and never persisted", () => {
    expect(ReadTool.isReadOnly({ file_path: "x" })).toBe(true);
    expect(ReadTool.isConcurrencySafe({ file_path: "x" })).toBe(true);
    expect(ReadTool.maxResultSizeChars).toBe(Number.POSITIVE_INFINITY);
  });

  it("reads several files in one parallel batch", async () => {
    const s = session();
    s.write("a.txt", "A\n");
    s.write("b.txt", "B\n");
    const uses = ["a.txt", "b.txt", "missing.txt"].map((f, i) => ({ type: "tool_use" as const, id: `r${i}`, name: "Read", input: { file_path: f } }));
    const { message, results } = await runToolsToMessage(uses, assistantMessage(), async () => ({ behavior: "allow" }), s.ctx);
    expect(results.map((r) => r.outcome)).toEqual(["success", "success", "invalid_input"]);
    expect((message.content as Array<{ content: string }>)[1].content).toContain("1\tB");
  });
});

describe("suggestions respect read access", () => {
  it("does not suggest names outside the working directories", async () => {
    const outside = tempDir("toolgate-outside-");
    fs.writeFileSync(`${outside}/private-notes.txt`, "x");
    const s = session();
    const r = await s.run("Read", { file_path: `${outside}/private-note.txt` });
    expect(r.text).toContain("File does not exist");
    expect(r.text).not.toContain("private-notes.txt");
  });
});
