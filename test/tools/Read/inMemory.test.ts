/** Small files are scanned in place from memory; the result must not differ from reading them in chunks. */
import fs from "node:fs";
import fsp from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { openReadSource } from "../../../src/tools/Read/source.js";
import { readLineWindow, type LineWindowOptions } from "../../../src/tools/Read/window.js";
import { tempDir } from "../../helpers.js";

const BASE: LineWindowOptions = { encoding: "utf8", offset: 1, limit: 2000, maxLineChars: 20, maxOutputChars: 1e9, hash: true, keepWholeFileBytes: 1 << 20 };

async function both(content: Buffer, options: Partial<LineWindowOptions>) {
  const file = `${tempDir()}/f`;
  fs.writeFileSync(file, content);
  const memory = await openReadSource(file);
  const handle = await fsp.open(file, "r");
  try {
    expect(memory.bytes).toBeDefined();
    const inPlace = await readLineWindow(memory, { ...BASE, ...options });
    const chunked = await readLineWindow(handle, { ...BASE, chunkBytes: 8, ...options });
    return { inPlace, chunked };
  } finally {
    await handle.close();
    await memory.close();
  }
}

describe("Read of a file in memory", () => {
  const utf8 = Buffer.from(`short\n${"long line ".repeat(10)}\nä😀€\r\n\nlast`);
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`eins\n${"zwei ".repeat(10)}\ndrei`, "utf16le")]);

  it("gives the same lines, cut lines, total, hash, index and whole-file bytes as a chunked read", async () => {
    for (const [content, encoding] of [[utf8, "utf8"], [utf16, "utf16le"]] as const) {
      for (const window of [{}, { offset: 2, limit: 2 }, { offset: 99, limit: 1 }]) {
        const { inPlace, chunked } = await both(content, { encoding, ...window });
        expect(inPlace.lines, `${encoding} ${JSON.stringify(window)}`).toEqual(chunked.lines);
        expect(inPlace.truncatedLines).toBe(chunked.truncatedLines);
        expect(inPlace.totalLines).toBe(chunked.totalLines);
        expect(inPlace.contentHash).toBe(chunked.contentHash);
        expect(inPlace.wholeFile?.equals(content)).toBe(true);
        expect(inPlace.index?.totalLines).toBe(chunked.index?.totalLines);
      }
    }
  });

  it("resumes from a line index as a chunked read does", async () => {
    const content = Buffer.from(Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n"));
    const { inPlace: first } = await both(content, {});
    const { inPlace, chunked } = await both(content, { offset: 40, limit: 3, index: first.index });
    expect(inPlace.lines).toEqual(["line 40", "line 41", "line 42"]);
    expect(inPlace.lines).toEqual(chunked.lines);
    expect(inPlace.totalLines).toBe(50);
  });
});
