import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { MultiEditTool } from "../../../src/tools/MultiEdit/index.js";
import { session, sessionAfterRead, touch } from "../files/harness.js";

describe("MultiEdit", () => {
  it("applies edits in order, each to the result of the previous ones", async () => {
    const s = await sessionAfterRead("a.ts", "let count = 0;\nfunction inc() { count++; }\n");
    const r = await s.run("MultiEdit", {
      file_path: "a.ts",
      edits: [
        { old_string: "let count = 0;", new_string: "let total = 0;" },
        { old_string: "count++", new_string: "total++" },
        { old_string: "let total = 0;", new_string: "let total = 1;" },
      ],
    });
    expect(r.outcome).toBe("success");
    expect(r.text).toContain("Applied 3 edits to a.ts.");
    expect(s.read("a.ts")).toBe("let total = 1;\nfunction inc() { total++; }\n");
  });

  it("rolls back when edit 3 of 4 fails: the file is untouched and the error names the edit", async () => {
    const original = "one\ntwo\nthree\nfour\n";
    const s = await sessionAfterRead("a.txt", original);
    const before = fs.statSync(s.file("a.txt")).mtimeMs;
    const r = await s.run("MultiEdit", {
      file_path: "a.txt",
      edits: [
        { old_string: "one", new_string: "1" },
        { old_string: "two", new_string: "2" },
        { old_string: "nine", new_string: "9" },
        { old_string: "four", new_string: "4" },
      ],
    });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("Edit 3 of 4 failed: old_string was not found");
    expect(r.text).toContain("No edit was applied; the file is unchanged.");
    expect(s.read("a.txt")).toBe(original);
    expect(fs.statSync(s.file("a.txt")).mtimeMs).toBe(before);
  });

  it("names an ambiguous edit and keeps the file", async () => {
    const s = await sessionAfterRead("a.txt", "x\nx\ny\n");
    const r = await s.run("MultiEdit", { file_path: "a.txt", edits: [{ old_string: "y", new_string: "z" }, { old_string: "x", new_string: "w" }] });
    expect(r.text).toContain("Edit 2 of 2 failed: old_string matches 2 places");
    expect(s.read("a.txt")).toBe("x\nx\ny\n");
  });

  it("refuses identical strings and a later empty old_string", async () => {
    const s = await sessionAfterRead("a.txt", "a\n");
    expect((await s.run("MultiEdit", { file_path: "a.txt", edits: [{ old_string: "a", new_string: "b" }, { old_string: "b", new_string: "b" }] })).text).toContain("Edit 2 of 2 failed: old_string and new_string are identical");
    expect((await s.run("MultiEdit", { file_path: "a.txt", edits: [{ old_string: "a", new_string: "b" }, { old_string: "", new_string: "c" }] })).text).toContain("Only the first edit may have an empty old_string");
  });

  it("creates a file when the first old_string is empty and applies the rest to it", async () => {
    const s = session();
    const r = await s.run("MultiEdit", {
      file_path: "new/file.txt",
      edits: [
        { old_string: "", new_string: "hello NAME\nbye NAME\n" },
        { old_string: "NAME", new_string: "world", replace_all: true },
      ],
    });
    expect(r.outcome).toBe("success");
    expect(r.text).toContain("Created new/file.txt and applied 1 edit to it.");
    expect(s.read("new/file.txt")).toBe("hello world\nbye world\n");
  });

  it("needs a read, refuses a stale file, allows a content-identical touch, and keeps CRLF", async () => {
    const s = session();
    s.write("w.txt", "a\r\nb\r\n");
    expect((await s.run("MultiEdit", { file_path: "w.txt", edits: [{ old_string: "a", new_string: "A" }] })).text).toContain("must be read");
    await s.run("Read", { file_path: "w.txt" });
    touch(s.file("w.txt"));
    const r = await s.run("MultiEdit", { file_path: "w.txt", edits: [{ old_string: "a", new_string: "A\nA2" }, { old_string: "b", new_string: "B" }] });
    expect(r.outcome).toBe("success");
    expect(fs.readFileSync(s.file("w.txt"), "latin1")).toBe("A\r\nA2\r\nB\r\n");
    fs.writeFileSync(s.file("w.txt"), "changed\r\n");
    touch(s.file("w.txt"), 10_000);
    expect((await s.run("MultiEdit", { file_path: "w.txt", edits: [{ old_string: "changed", new_string: "x" }] })).text).toContain("has changed since you last read it");
  });

  it("reports loose strategies per edit and returns one patch for the whole change", async () => {
    const s = await sessionAfterRead("q.md", "Say \u201Chello\u201D.\n\nend\n");
    const r = await s.run("MultiEdit", { file_path: "q.md", edits: [{ old_string: 'Say "hello".', new_string: 'Say "bye".' }, { old_string: "end", new_string: "END" }] });
    expect(r.text).toContain("- edit 1 (old_string matched once curly and straight quotes");
    const output = r.output as { structuredPatch: Array<{ lines: string[] }>; edits: Array<{ strategy: string }> };
    expect(output.edits.map((e) => e.strategy)).toEqual(["quote_normalized", "exact"]);
    expect(output.structuredPatch).toHaveLength(1);
    expect(output.structuredPatch[0].lines).toEqual(["-Say \u201Chello\u201D.", "+Say \u201Cbye\u201D.", " ", "-end", "+END"]);
  });

  it("is a writer", () => {
    const input = { file_path: "x", edits: [{ old_string: "a", new_string: "b", replace_all: false }] };
    expect(MultiEditTool.isReadOnly(input)).toBe(false);
    expect(MultiEditTool.isConcurrencySafe(input)).toBe(false);
    expect(MultiEditTool.maxResultSizeChars).toBe(100_000);
  });
});
