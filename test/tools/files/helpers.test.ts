import fs from "node:fs";
import path from "node:path";
import iconv from "iconv-lite";
import { structuredPatch } from "diff";
import { describe, expect, it } from "vitest";
import { hashContent, type FileState } from "../../../src/core/fileStateCache.js";
import { decodeText, encodeText, sniffEncoding, UnrepresentableTextError } from "../../../src/tools/files/encoding.js";
import { checkStaleness } from "../../../src/tools/files/fileState.js";
import { dominantLineEnding, spliceOriginal, toLfView, toOriginalIndex } from "../../../src/tools/files/lineEndings.js";
import { buildStructuredPatch, diffRange } from "../../../src/tools/files/patch.js";
import { editDistance, suggestSimilarPath } from "../../../src/tools/files/similarPath.js";
import { blockedDevicePath } from "../../../src/tools/files/fileKind.js";
import { numberLines, numberText } from "../../../src/tools/files/readFormat.js";
import { tempDir } from "../../helpers.js";

describe("encodings", () => {
  it("recognises BOMs, UTF-8, binary and legacy encodings", () => {
    expect(sniffEncoding(Buffer.from([0xef, 0xbb, 0xbf, 0x61]), true)).toEqual({ kind: "text", encoding: "utf8-bom" });
    expect(sniffEncoding(Buffer.from([0xff, 0xfe, 0x61, 0x00]), true)).toEqual({ kind: "text", encoding: "utf16le" });
    expect(sniffEncoding(Buffer.from([0xfe, 0xff, 0x00, 0x61]), true)).toEqual({ kind: "text", encoding: "utf16be" });
    expect(sniffEncoding(Buffer.from("plain ascii\n"), true)).toEqual({ kind: "text", encoding: "utf8" });
    expect(sniffEncoding(Buffer.from("a\0b"), true).kind).toBe("binary");
    expect(sniffEncoding(Buffer.from("plain text saved as UTF-16", "utf16le"), true)).toMatchObject({ kind: "binary", reason: expect.stringContaining("UTF-16 text without a byte-order mark") });
    const latin = iconv.encode("Ça coûte très cher, déjà payé à l'hôtel — merci beaucoup.", "windows-1252");
    expect(sniffEncoding(latin, true)).toMatchObject({ kind: "text" });
    expect(sniffEncoding(Buffer.from([0x61, 0xff, 0xfe, 0xfd, 0x80, 0x81]), true).kind).not.toBe("text");
  });

  it("accepts a UTF-8 prefix cut inside a character", () => {
    const bytes = Buffer.from("héllo wörld ✓");
    expect(sniffEncoding(bytes.subarray(0, bytes.length - 1), false)).toEqual({ kind: "text", encoding: "utf8" });
  });

  it("round-trips every supported encoding, BOM included", () => {
    const text = "grüße ✓ 😀\r\nzwei\n";
    for (const encoding of ["utf8", "utf8-bom", "utf16le", "utf16be"]) {
      const bytes = encodeText(text, encoding);
      expect(sniffEncoding(bytes, true)).toEqual({ kind: "text", encoding });
      expect(decodeText(bytes, encoding)).toBe(text);
    }
  });

  it("refuses to encode characters a legacy encoding cannot hold", () => {
    expect(() => encodeText("naïve 日本", "windows-1252")).toThrow(UnrepresentableTextError);
    expect(() => encodeText("naïve 日本", "windows-1252")).toThrow(/U\+65E5/);
  });
});

describe("line endings", () => {
  it("maps LF positions back to the original exactly", () => {
    const view = toLfView("a\r\nb\nc\r\n");
    expect(view.lf).toBe("a\nb\nc\n");
    expect(view.crlfAt).toEqual([1, 5]);
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => toOriginalIndex(view, i))).toEqual([0, 1, 3, 4, 5, 6, 8]);
    expect(dominantLineEnding(view)).toBe("CRLF");
  });

  it("splices replacements with the dominant ending and keeps the rest", () => {
    const view = toLfView("a\r\nb\nc\r\nd\r\n");
    expect(spliceOriginal(view, [{ start: 4, end: 6, text: "X\nY\n" }], "CRLF")).toBe("a\r\nb\nX\r\nY\r\nd\r\n");
  });
});

describe("structured patches on windows", () => {
  it("equal the diff package's patch of the whole texts", () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i}`);
    const before = `${lines.join("\n")}\n`;
    const after = before.replace("line 10\n", "LINE 10\nextra\n").replace("line 150\n", "").replace("line 199\n", "line 199");
    const ranges = [
      { oldStart: before.indexOf("line 10\n"), oldEnd: before.indexOf("line 10\n") + 8, newStart: after.indexOf("LINE 10"), newEnd: after.indexOf("LINE 10") + 14 },
      ...diffRange(before.slice(before.indexOf("line 140")), after.slice(after.indexOf("line 140"))).map((r) => ({
        oldStart: r.oldStart + before.indexOf("line 140"),
        oldEnd: r.oldEnd + before.indexOf("line 140"),
        newStart: r.newStart + after.indexOf("line 140"),
        newEnd: r.newEnd + after.indexOf("line 140"),
      })),
    ];
    expect(buildStructuredPatch(before, after, ranges)).toEqual(structuredPatch("", "", before, after, "", "", { context: 3 }).hunks);
  });

  it("handles a new file and an emptied one", () => {
    expect(buildStructuredPatch("", "a\nb\n", diffRange("", "a\nb\n"))).toEqual(structuredPatch("", "", "", "a\nb\n", "", "", { context: 3 }).hunks);
    expect(buildStructuredPatch("a\n", "", diffRange("a\n", ""))).toEqual(structuredPatch("", "", "a\n", "", "", "", { context: 3 }).hunks);
  });
});

describe("staleness", () => {
  const state = (content: string, extra: Partial<FileState> = {}): FileState => ({ contentHash: hashContent(content), mtimeMs: 1000, size: content.length, timestamp: 0, ...extra });

  it("compares content: a touch is fine, a change is not", () => {
    expect(checkStaleness(state("abc"), { mtimeMs: 2000, size: 3 }, () => Buffer.from("abc"))).toEqual({ stale: false, touched: true });
    expect(checkStaleness(state("abc"), { mtimeMs: 1000, size: 3 }, () => Buffer.from("abd"))).toEqual({ stale: true });
    expect(checkStaleness(state("abc"), { mtimeMs: 2000, size: 4 }, () => Buffer.from("abcd"))).toEqual({ stale: true });
  });

  it("falls back to mtime and size for files recorded without a hash", () => {
    const unhashed = state("abc", { contentHash: "" });
    expect(checkStaleness(unhashed, { mtimeMs: 1000, size: 3 }, () => Buffer.from("zzz"))).toEqual({ stale: false, touched: false });
    expect(checkStaleness(unhashed, { mtimeMs: 1001, size: 3 }, () => Buffer.from("abc"))).toEqual({ stale: true });
  });
});

describe("similar paths", () => {
  it("measures edit distance", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "ab")).toBe(2);
  });

  it("corrects a misspelt directory and file, other extensions and case", () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, "components"));
    fs.writeFileSync(path.join(dir, "components", "Button.tsx"), "");
    expect(suggestSimilarPath(path.join(dir, "componets", "Buton.tsx"), { cwd: dir })).toBe(path.join(dir, "components", "Button.tsx"));
    expect(suggestSimilarPath(path.join(dir, "components", "button.jsx"), { cwd: dir })).toBe(path.join(dir, "components", "Button.tsx"));
    expect(suggestSimilarPath(path.join(dir, "nothing", "like", "it.zz"), { cwd: dir })).toBeUndefined();
  });

  it("respects the visibility filter", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "secret.txt"), "");
    expect(suggestSimilarPath(path.join(dir, "secrt.txt"), { cwd: dir, isVisible: () => false })).toBeUndefined();
  });
});

describe("device paths", () => {
  it("blocks endless devices and process file descriptors", () => {
    for (const p of ["/dev/zero", "/dev/urandom", "/dev/stdin", "/dev/tty", "/dev/fd/0", "/proc/self/fd/3", "/proc/123/fd/1"]) expect(blockedDevicePath(p), p).toBeDefined();
    expect(blockedDevicePath("/dev/shm/file.txt")).toBeUndefined();
    expect(blockedDevicePath("/home/u/dev/zero")).toBeUndefined();
  });
});

describe("line numbers", () => {
  it("numberText numbers joined lines exactly as numberLines numbers them one by one", () => {
    const cases = [[""], ["one"], ["one", "two", ""], ["", "", "x"], ["tab\there", "\r", "…ü✓"]];
    for (const lines of cases) {
      for (const first of [1, 7, -3]) expect(numberText(lines.join("\n"), first)).toBe(numberLines(lines, first));
    }
  });
});
