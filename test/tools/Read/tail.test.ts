import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hashContent } from "../../../src/core/fileStateCache.js";
import { diagnoseNoMatch } from "../../../src/tools/Edit/diagnose.js";
import { findLineFromEnd } from "../../../src/tools/Read/tail.js";
import { clearLineIndexMemory } from "../../../src/tools/Read/lineIndexStore.js";
import { readLineWindow } from "../../../src/tools/Read/window.js";
import type { TextEncoding } from "../../../src/tools/files/encoding.js";
import { tempDir } from "../../helpers.js";
import { session } from "../files/harness.js";

const numbered = (from: number, lines: string[]) => lines.map((l, i) => `${from + i}\t${l}`).join("\n");

/** `count` lines of about 100 bytes: `row N` and filler. */
function rows(count: number, first = 1): string {
  const pad = "-".repeat(90);
  let out = "";
  for (let i = first; i < first + count; i++) out += `row ${i} ${pad}\n`;
  return out;
}

/** A file just over the size above which Read no longer hashes on a tail read (16 MiB). */
function largeLog(s: ReturnType<typeof session>, name: string): { path: string; lines: number } {
  const lines = 170_000;
  const p = s.write(name, rows(lines));
  expect(fs.statSync(p).size).toBeGreaterThan(16 * 1024 * 1024);
  return { path: p, lines };
}

describe("findLineFromEnd", () => {
  async function check(bytes: Buffer, encoding: TextEncoding, text: string) {
    const dir = tempDir();
    const file = path.join(dir, "f");
    fs.writeFileSync(file, bytes);
    const handle = await fsp.open(file, "r");
    try {
      // The reference: a forward pass over the whole file.
      const all = await readLineWindow(handle, { encoding, offset: 1, limit: 1e9, maxLineChars: 1e6, maxOutputChars: 1e12, hash: false });
      expect(all.lines.join("\n"), "decoding sanity").toBe(text.replace(/\r?\n$/, "").replaceAll("\r\n", "\n"));
      for (const back of [1, 2, 3, all.totalLines - 1, all.totalLines, all.totalLines + 1, 1000].filter((b) => b >= 1)) {
        for (const blockBytes of [2, 4, 6, 64, 65536]) {
          const found = await findLineFromEnd(handle, bytes.length, encoding, back, undefined, blockBytes);
          const label = `${encoding} back=${back} block=${blockBytes}`;
          if (back >= all.totalLines) {
            expect(found, label).toEqual({ byte: bytes.length > 2 && encoding.startsWith("utf16") ? 2 : 0, linesToEnd: all.totalLines, totalLines: all.totalLines });
          } else {
            expect(found.linesToEnd, label).toBe(back);
            expect(found.totalLines, label).toBeUndefined();
          }
          const window = await readLineWindow(handle, {
            encoding,
            offset: 1,
            limit: 1e9,
            maxLineChars: 1e6,
            maxOutputChars: 1e12,
            hash: false,
            index: { totalLines: found.linesToEnd, checkpoints: [{ line: 1, byte: found.byte }] },
          });
          expect(window.lines, label).toEqual(all.lines.slice(all.totalLines - found.linesToEnd));
        }
      }
    } finally {
      await handle.close();
    }
  }

  it("finds the same lines a forward pass numbers, with or without a final newline, CRLF and empty lines", async () => {
    for (const text of ["a\nbb\n\nccc\nd\n", "a\nbb\n\nccc\nd", "one\r\ntwo\r\n\r\nthree\r\n", "\n\n\n", "x", "ä€😀\nzwei\n"]) {
      await check(Buffer.from(text), "utf8", text);
    }
  });

  it("counts only aligned UTF-16 newlines, in both byte orders", async () => {
    // U+0A0A is two 0x0A bytes; misaligned, "b\u0a0a" also holds a 0x0A 0x00 pair across code units.
    const text = "a\u0a0ab\nc\u0a00\n\nlast\u0a0a";
    await check(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]), "utf16le", text);
    await check(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]), "utf16be", text);
  });

  it("says an empty file has no lines", async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "e"), "");
    const handle = await fsp.open(path.join(dir, "e"), "r");
    expect(await findLineFromEnd(handle, 0, "utf8", 5)).toEqual({ byte: 0, linesToEnd: 0, totalLines: 0 });
    await handle.close();
  });
});

describe("lines decoded together", () => {
  async function linesOf(bytes: Buffer, chunkBytes: number, encoding: TextEncoding = "utf8") {
    const file = path.join(tempDir(), "f");
    fs.writeFileSync(file, bytes);
    const handle = await fsp.open(file, "r");
    try {
      return (await readLineWindow(handle, { encoding, offset: 1, limit: 100, maxLineChars: 2000, maxOutputChars: 1e9, hash: false, chunkBytes })).lines;
    } finally {
      await handle.close();
    }
  }

  it("give the same lines as decoding each alone: invalid bytes before a newline, a U+FEFF inside the text", async () => {
    const bytes = Buffer.concat([Buffer.from("a"), Buffer.from([0xe2, 0x0a]), Buffer.from("b"), Buffer.from([0xff, 0x0a]), Buffer.from("\uFEFFc\r\nd\n")]);
    for (const chunkBytes of [2, 3, 5, 64 * 1024]) {
      expect(await linesOf(bytes, chunkBytes), `chunk ${chunkBytes}`).toEqual(["a\uFFFD", "b\uFFFD", "\uFEFFc", "d"]);
    }
    // The file's own byte-order mark is not text; a U+FEFF at the start of a later line is.
    expect(await linesOf(Buffer.from("\uFEFFx\n\uFEFFy\n"), 64 * 1024, "utf8-bom")).toEqual(["x", "\uFEFFy"]);
  });
});

describe("Read with a negative offset", () => {
  it("shows the last lines of a small file with their real line numbers, as a positive offset would", async () => {
    const s = session();
    const p = s.write("log.txt", Array.from({ length: 3000 }, (_, i) => `entry ${i + 1}`).join("\n") + "\n");
    const r = await s.run("Read", { file_path: "log.txt", offset: -3, limit: 2 });
    expect(r.text).toBe(`${numbered(2998, ["entry 2998", "entry 2999"])}\n\n[Lines 2998-2999 of 3000. To continue, call Read with offset=3000.]`);
    const last = await s.run("Read", { file_path: "log.txt", offset: -1 });
    expect(last.text).toBe(`${numbered(3000, ["entry 3000"])}\n\n[Lines 3000-3000 of 3000.]`);
    // A read of the whole file hashed it: the state is as good as a positive window's for Edit and staleness.
    expect(s.ctx.readFileState.get(p)).toMatchObject({ contentHash: hashContent(fs.readFileSync(p)), offset: -1, limit: 2000, coversWholeFile: false });
  });

  it("starts at line 1 when the offset reaches back past the start", async () => {
    const s = session();
    const p = s.write("short.txt", "a\nb\nc");
    const r = await s.run("Read", { file_path: "short.txt", offset: -50 });
    expect(r.text).toBe(numbered(1, ["a", "b", "c"]));
    expect(s.ctx.readFileState.get(p)).toMatchObject({ content: "a\nb\nc", coversWholeFile: true });
    s.write("empty.txt", "");
    expect((await s.run("Read", { file_path: "empty.txt", offset: -5 })).text).toContain("exists but is empty (0 lines)");
  });

  it("numbers the end of a large file from the end without reading it all, and says the total is a lower bound", async () => {
    const s = session();
    const { path: p } = largeLog(s, "big.log");
    const r = await s.run("Read", { file_path: "big.log", offset: -3 });
    const shown = ["row 169998", "row 169999", "row 170000"].map((l) => `${l} ${"-".repeat(90)}`);
    expect(r.text).toBe(
      `${numbered(-3, shown)}\n\n[Lines -3 to -1, numbered from the end (-1 is the last line): the lines before them were not counted, so the file has at least 4 lines. For the lines before these, call Read with offset=-6 and limit=3.]`,
    );
    const middle = await s.run("Read", { file_path: "big.log", offset: -100_000, limit: 2 });
    expect(middle.text).toContain(`-100000\trow 70001 `);
    expect(middle.text).toContain(`-99999\trow 70002 `);
    expect(middle.text).toContain("To continue, call Read with offset=-99998.");
    // A deliberate window, not an automatic partial view: Edit accepts it; only a full read covers the whole file.
    expect(s.ctx.readFileState.get(p)).toMatchObject({ offset: -100_000, limit: 2, coversWholeFile: false });
    expect(s.ctx.readFileState.get(p)?.isPartialView).toBeFalsy();
  });

  it("says unchanged for the same tail window of an unchanged file, and shows new lines after an append", async () => {
    const s = session();
    const { path: p } = largeLog(s, "grow.log");
    expect((await s.run("Read", { file_path: "grow.log", offset: -2 })).text).toContain("-1\trow 170000 ");
    const again = await s.run("Read", { file_path: "grow.log", offset: -2 });
    expect(again.text).toContain("has not changed since you last read it with the same window (2 lines from the end, up to 2000 lines)");
    fs.appendFileSync(p, "appended line\n");
    const after = await s.run("Read", { file_path: "grow.log", offset: -2 });
    expect(after.text).toContain("-2\trow 170000 ");
    expect(after.text).toContain("-1\tappended line");
  });

  it("lets Edit change a line it showed, and refuses once the file changed after the read", async () => {
    const s = session();
    const { path: p } = largeLog(s, "edit.log");
    await s.run("Read", { file_path: "edit.log", offset: -1 });
    const edited = await s.run("Edit", { file_path: "edit.log", old_string: "row 170000 ", new_string: "row LAST " });
    expect(edited.outcome).toBe("success");
    expect(fs.readFileSync(p, "utf8").endsWith(`row LAST ${"-".repeat(90)}\n`)).toBe(true);

    await s.run("Read", { file_path: "edit.log", offset: -1 });
    fs.appendFileSync(p, "written by someone else\n");
    const stale = await s.run("Edit", { file_path: "edit.log", old_string: "row LAST ", new_string: "row again " });
    expect(stale.outcome).not.toBe("success");
    expect(stale.text).toContain("has changed since you last read it");
  });

  it("recognises negative line-number prefixes pasted into Edit's old_string", () => {
    expect(diagnoseNoMatch("a\nb\nc\n", "-2\tb\n-1\tc", "x").lineNumberPrefixes).toEqual({ matchLine: 2 });
  });

  it("keeps the line index on disk for later sessions, and ignores a corrupt or foreign one", async () => {
    const home = tempDir("toolgate-home-");
    const dir = tempDir();
    const file = path.join(dir, "huge.log");
    // Just over the 64 MiB from which Read keeps line indexes.
    const lines = 700_000;
    fs.writeFileSync(file, rows(lines));
    const first = session({ cwd: dir, home });
    expect((await first.run("Read", { file_path: "huge.log", offset: 350_000, limit: 1 })).text).toContain(`[Lines 350000-350000 of ${lines}.`);
    const indexDir = path.join(home, "cache", "line-index");
    const [stored] = fs.readdirSync(indexDir);
    expect(stored).toMatch(/^\d+-\d+-\d+-[\d.]+\.json$/);
    expect(fs.statSync(path.join(indexDir, stored)).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(fs.readFileSync(path.join(indexDir, stored), "utf8")))).toEqual(["format", "dev", "ino", "size", "mtimeMs", "totalLines", "contentHash", "checkpoints"]);

    // A new session of a new process (no index in memory) gets the real numbers of the tail from the stored index.
    clearLineIndexMemory();
    const second = session({ cwd: dir, home });
    const tail = await second.run("Read", { file_path: "huge.log", offset: -2 });
    expect(tail.text).toContain(`${lines - 1}\trow ${lines - 1} `);
    expect(tail.text).toContain(`[Lines ${lines - 1}-${lines} of ${lines}.]`);

    const indexPath = path.join(indexDir, stored);
    const good = fs.readFileSync(indexPath, "utf8");
    const fromEnd = async () => {
      clearLineIndexMemory();
      return (await session({ cwd: dir, home }).run("Read", { file_path: "huge.log", offset: -2 })).text;
    };
    fs.writeFileSync(indexPath, good.slice(0, good.length / 2));
    expect(await fromEnd()).toContain("-1\trow 700000 ");
    // The same version key, but checkpoints that do not fall on line starts: an index of some other file.
    const foreign = JSON.parse(good);
    foreign.checkpoints = foreign.checkpoints.map((c: { line: number; byte: number }, i: number) => (i === 0 ? c : { line: c.line, byte: c.byte - 7 }));
    fs.writeFileSync(indexPath, JSON.stringify(foreign));
    expect(await fromEnd()).toContain("-1\trow 700000 ");
    // An index of another version of the file (another size) is not used either.
    fs.writeFileSync(indexPath, JSON.stringify({ ...JSON.parse(good), size: 1 }));
    expect(await fromEnd()).toContain("-1\trow 700000 ");
    fs.writeFileSync(indexPath, good);
    expect(await fromEnd()).toContain(`[Lines ${lines - 1}-${lines} of ${lines}.]`);
  });
});
