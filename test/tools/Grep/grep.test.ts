import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GrepTool, type GrepOutput } from "../../../src/tools/Grep/index.js";
import { runTools } from "../../../src/core/executor/index.js";
import { approveAll, assistantMessage } from "../../helpers.js";
import { bodyLines, ripgrepProcessesIn, run, searchSession, setAge, tempDir, waitForRipgrepExit, writeTree } from "../Glob/searchHelpers.js";

const output = (r: Awaited<ReturnType<typeof run>>) => r.result.output as GrepOutput;

function mkfifo(file: string): void {
  execFileSync("mkfifo", [file]);
}

describe("Grep: modes", () => {
  it("files_with_matches (default) lists files newest first, with hidden files and without VCS folders", async () => {
    const cwd = tempDir();
    const files = writeTree(cwd, {
      "a.txt": "needle\n",
      "b.txt": "no\n",
      "src/c.ts": "const needle = 1\n",
      ".hidden/d.txt": "needle here\n",
      ".git/config": "needle\n",
      ".hg/x": "needle\n",
      ".svn/x": "needle\n",
      ".jj/x": "needle\n",
      ".bzr/x": "needle\n",
    });
    setAge(files["a.txt"], 50);
    setAge(files["src/c.ts"], 5);
    setAge(files[".hidden/d.txt"], 20);
    const r = await run(searchSession({ cwd }), "Grep", { pattern: "needle" });
    expect(r.result.outcome).toBe("success");
    expect(r.text.split("\n")).toEqual(["Found 3 files (most recently modified first)", "src/c.ts", ".hidden/d.txt", "a.txt"]);
    expect(output(r).mode).toBe("files_with_matches");
  });

  it("content mode prints path:line:text with line numbers by default, and without them on -n false", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "b.txt": "one\nfind me\nthree\n", "a.txt": "find me too\n" });
    const ctx = searchSession({ cwd });
    const numbered = await run(ctx, "Grep", { pattern: "find", output_mode: "content" });
    expect(numbered.text.split("\n")).toEqual(["a.txt:1:find me too", "b.txt:2:find me"]);
    const bare = await run(ctx, "Grep", { pattern: "find", output_mode: "content", "-n": false });
    expect(bare.text.split("\n")).toEqual(["a.txt:find me too", "b.txt:find me"]);
  });

  it("content mode adds context lines with -A / -B / -C and separates groups with --", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "f.txt": ["l1", "l2", "HIT3", "l4", "l5", "l6", "l7", "HIT8", "l9"].join("\n") + "\n" });
    const ctx = searchSession({ cwd });
    const around = await run(ctx, "Grep", { pattern: "HIT", output_mode: "content", "-C": 1 });
    expect(around.text.split("\n")).toEqual(["f.txt-2-l2", "f.txt:3:HIT3", "f.txt-4-l4", "--", "f.txt-7-l7", "f.txt:8:HIT8", "f.txt-9-l9"]);
    const after = await run(ctx, "Grep", { pattern: "HIT3", output_mode: "content", "-A": 2 });
    expect(after.text.split("\n")).toEqual(["f.txt:3:HIT3", "f.txt-4-l4", "f.txt-5-l5"]);
    const before = await run(ctx, "Grep", { pattern: "HIT8", output_mode: "content", "-B": 1, "-C": 3 });
    expect(before.text.split("\n")).toEqual(["f.txt-7-l7", "f.txt:8:HIT8", "f.txt-9-l9"]);
  });

  it("count mode lists matches per file with totals of matches and files", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "a.txt": "x x x\nx\n", "b/c.txt": "x\n", "none.txt": "y\n" });
    const r = await run(searchSession({ cwd }), "Grep", { pattern: "x", output_mode: "count" });
    expect(r.text).toBe("a.txt:4\nb/c.txt:1\n\nFound 5 matches across 2 files.");
    const out = output(r);
    expect(out.mode === "count" && [out.numMatches, out.numFiles]).toEqual([5, 2]);
  });

  it("-i, multiline, glob lists and type narrow the search", async () => {
    const cwd = tempDir();
    writeTree(cwd, {
      "a.ts": "function Foo() {\n  return 1;\n}\n",
      "b.tsx": "FOO\n",
      "c.js": "foo\n",
      "d.py": "foo\n",
      "e.md": "foo\n",
    });
    const ctx = searchSession({ cwd });
    const files = async (input: object) => (await run(ctx, "Grep", input)).text.split("\n").slice(1).sort();
    expect(await files({ pattern: "foo" })).toEqual(["c.js", "d.py", "e.md"]);
    expect(await files({ pattern: "foo", "-i": true })).toEqual(["a.ts", "b.tsx", "c.js", "d.py", "e.md"]);
    expect(await files({ pattern: "foo", "-i": true, glob: "*.{ts,tsx}" })).toEqual(["a.ts", "b.tsx"]);
    expect(await files({ pattern: "foo", "-i": true, glob: "*.js, *.py" })).toEqual(["c.js", "d.py"]);
    expect(await files({ pattern: "foo", "-i": true, glob: "!*.md" })).toEqual(["a.ts", "b.tsx", "c.js", "d.py"]);
    expect(await files({ pattern: "foo", type: "py" })).toEqual(["d.py"]);

    const single = await run(ctx, "Grep", { pattern: "Foo\\(\\) \\{.*return", output_mode: "content" });
    expect(single.text).toBe("No matches found");
    const multi = await run(ctx, "Grep", { pattern: "Foo\\(\\) \\{.*return", output_mode: "content", multiline: true });
    expect(multi.text.split("\n")).toEqual(["a.ts:1:function Foo() {", "a.ts:2:  return 1;"]);
  });

  it("searches a single file given as path, and says when nothing matches", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "dir/one.txt": "alpha\nbeta\n", "dir/two.txt": "alpha\n" });
    const ctx = searchSession({ cwd });
    const r = await run(ctx, "Grep", { pattern: "alpha", path: "dir/one.txt", output_mode: "content" });
    expect(r.text).toBe("dir/one.txt:1:alpha");
    expect((await run(ctx, "Grep", { pattern: "gamma" })).text).toBe("No files found");
    expect((await run(ctx, "Grep", { pattern: "gamma", output_mode: "count" })).text).toBe("No matches found");
    const missing = await run(ctx, "Grep", { pattern: "x", path: "nope" });
    expect(missing.result.outcome).toBe("invalid_input");
    expect(missing.text).toContain("Path does not exist: nope");
  });
});

describe("Grep: awkward input", () => {
  it("finds a pattern that starts with -", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "flags.txt": "use --force here\nplain\n", "-rf.txt": "-rf\n" });
    const ctx = searchSession({ cwd });
    expect((await run(ctx, "Grep", { pattern: "--force", output_mode: "content" })).text).toBe("flags.txt:1:use --force here");
    expect((await run(ctx, "Grep", { pattern: "-rf", path: "-rf.txt", output_mode: "content" })).text).toBe("-rf.txt:1:-rf");
  });

  it("returns a bad regex as an is_error result quoting ripgrep and suggesting escapes", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "a.txt": "foo(\n" });
    const r = await run(searchSession({ cwd }), "Grep", { pattern: "foo(" });
    expect(r.result.block.is_error).toBe(true);
    expect(r.result.outcome).toBe("tool_error");
    expect(r.text).toContain("regex parse error");
    expect(r.text).toContain("unclosed group");
    expect(r.text).toContain("escape it with a backslash");
    expect(r.result.errorLabel).toBe("Grep: ripgrep rejected the search (regex)");
    const fixed = await run(searchSession({ cwd }), "Grep", { pattern: "foo\\(", output_mode: "content" });
    expect(fixed.text).toBe("a.txt:1:foo(");
  });

  it("returns an unknown file type as an is_error result", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "a.txt": "x\n" });
    const r = await run(searchSession({ cwd }), "Grep", { pattern: "x", type: "nosuchtype" });
    expect(r.result.block.is_error).toBe(true);
    expect(r.text).toContain("unrecognized file type: nosuchtype");
  });

  it("handles unicode, spaces, colons and dashes in file names", async () => {
    const cwd = tempDir();
    writeTree(cwd, {
      "données/été.txt": "mot\n",
      "with space/a b.txt": "mot\n",
      "a:b:c.txt": "mot\n",
      "x-1-y.txt": "mot\n",
      "日本/ファイル.txt": "mot 日本語\n",
    });
    const ctx = searchSession({ cwd });
    const content = await run(ctx, "Grep", { pattern: "mot", output_mode: "content" });
    const out = output(content);
    expect(out.mode === "content" && out.lines.map((l) => [l.path, l.line, l.text])).toEqual([
      ["a:b:c.txt", 1, "mot"],
      ["données/été.txt", 1, "mot"],
      ["with space/a b.txt", 1, "mot"],
      ["x-1-y.txt", 1, "mot"],
      ["日本/ファイル.txt", 1, "mot 日本語"],
    ]);
    const count = await run(ctx, "Grep", { pattern: "日本語", output_mode: "count" });
    expect(count.text.split("\n")[0]).toBe("日本/ファイル.txt:1");
    const scoped = await run(ctx, "Grep", { pattern: "mot", path: "with space" });
    expect(scoped.text.split("\n")[1]).toBe("with space/a b.txt");
  });

  it("skips binary files in a directory search and notes an explicitly searched one", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "bin.dat": Buffer.from("needle\0\x01\x02binary"), "text.txt": "needle\n" });
    const ctx = searchSession({ cwd });
    expect((await run(ctx, "Grep", { pattern: "needle" })).text.split("\n").slice(1)).toEqual(["text.txt"]);
    const explicit = await run(ctx, "Grep", { pattern: "needle", path: "bin.dat", output_mode: "content" });
    expect(explicit.text).toBe("(bin.dat is a binary file that matches; its lines are not shown.)");
  });

  it("cuts lines longer than 500 columns with a marker", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "min.js": `${"a".repeat(2000)}needle${"b".repeat(2000)}\n` });
    const r = await run(searchSession({ cwd }), "Grep", { pattern: "needle", output_mode: "content" });
    expect(r.text.length).toBeLessThan(700);
    expect(r.text).toContain("[... omitted end of long line]");
  });

  it("searches gitignored files only when they are not ignored (ripgrep's rules)", async () => {
    const cwd = tempDir();
    fs.mkdirSync(path.join(cwd, ".git"));
    writeTree(cwd, { ".gitignore": "dist/\n", "dist/out.js": "needle\n", "src/in.js": "needle\n" });
    const r = await run(searchSession({ cwd }), "Grep", { pattern: "needle" });
    expect(r.text.split("\n").slice(1)).toEqual(["src/in.js"]);
  });
});

describe("Grep: pagination", () => {
  it("pages content lines with offset and head_limit and says how to get the next page", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "f.txt": Array.from({ length: 12 }, (_, i) => `hit ${i + 1}`).join("\n") + "\n" });
    const ctx = searchSession({ cwd });
    const first = await run(ctx, "Grep", { pattern: "hit", output_mode: "content", head_limit: 5 });
    expect(bodyLines(first.text)).toEqual(["f.txt:1:hit 1", "f.txt:2:hit 2", "f.txt:3:hit 3", "f.txt:4:hit 4", "f.txt:5:hit 5"]);
    expect(first.text).toContain("[Showing lines 1-5 of 12. For the next page call Grep again with the same parameters and offset=5, head_limit=5.]");
    expect(GrepTool.isResultTruncated?.(output(first))).toBe(true);

    const second = await run(ctx, "Grep", { pattern: "hit", output_mode: "content", head_limit: 5, offset: 5 });
    expect(bodyLines(second.text)[0]).toBe("f.txt:6:hit 6");
    expect(second.text).toContain("offset=10");
    const last = await run(ctx, "Grep", { pattern: "hit", output_mode: "content", head_limit: 5, offset: 10 });
    expect(bodyLines(last.text)).toEqual(["f.txt:11:hit 11", "f.txt:12:hit 12"]);
    expect(last.text).toContain("[Showing lines 11-12 of 12 (the last page).]");
    const past = await run(ctx, "Grep", { pattern: "hit", output_mode: "content", offset: 40 });
    expect(past.text).toContain("offset=40 is past the end: there are only 12 lines");
    const unlimited = await run(ctx, "Grep", { pattern: "hit", output_mode: "content", head_limit: 0 });
    expect(unlimited.text.split("\n")).toHaveLength(12);
  });

  it("pages files and count rows; the default head_limit is 250; totals cover every page", async () => {
    const cwd = tempDir();
    for (let i = 0; i < 300; i++) writeTree(cwd, { [`f${String(i).padStart(3, "0")}.txt`]: "x\nx\n" });
    const ctx = searchSession({ cwd });
    const files = output(await run(ctx, "Grep", { pattern: "x" }));
    expect(files.mode === "files_with_matches" && [files.filenames.length, files.numFiles, files.page.hasMore]).toEqual([250, 300, true]);
    const counts = await run(ctx, "Grep", { pattern: "x", output_mode: "count", head_limit: 10, offset: 290 });
    expect(bodyLines(counts.text)).toHaveLength(10);
    expect(bodyLines(counts.text)[0]).toBe("f290.txt:2");
    expect(counts.text).toContain("Found 600 matches across 300 files.");
    expect(counts.text).toContain("entries 291-300 of 300 (the last page)");
  });

  it("searches a 10 000-file tree: totals, newest first and stable pages", async () => {
    const cwd = tempDir();
    for (let d = 0; d < 100; d++) {
      fs.mkdirSync(path.join(cwd, `d${d}`));
      for (let f = 0; f < 100; f++) fs.writeFileSync(path.join(cwd, `d${d}`, `f${f}.txt`), f % 2 === 0 ? `even ${d}/${f}\n` : "odd\n");
    }
    for (let d = 0; d < 100; d++) for (let f = 0; f < 100; f += 2) setAge(path.join(cwd, `d${d}`, `f${f}.txt`), 10_000 + d * 100 + f);
    setAge(path.join(cwd, "d42/f8.txt"), 1);
    const ctx = searchSession({ cwd });
    const files = output(await run(ctx, "Grep", { pattern: "even", head_limit: 3 }));
    expect(files.mode === "files_with_matches" && [files.numFiles, files.filenames]).toEqual([5000, ["d42/f8.txt", "d0/f0.txt", "d0/f2.txt"]]);
    const count = await run(ctx, "Grep", { pattern: "even|odd", output_mode: "count", head_limit: 1 });
    expect(count.text).toContain("Found 10000 matches across 10000 files.");
    const pageA = await run(ctx, "Grep", { pattern: "even", output_mode: "content", head_limit: 50, offset: 100 });
    const pageB = await run(ctx, "Grep", { pattern: "even", output_mode: "content", head_limit: 50, offset: 100 });
    expect(bodyLines(pageA.text)).toEqual(bodyLines(pageB.text));
    expect(bodyLines(pageA.text)).toHaveLength(50);
  });
});

describe("Grep: permissions", () => {
  const tree = {
    "secret/key.txt": "token=abc\n",
    "secret/deep/more.txt": "token=def\n",
    "public/readme.txt": "token=public\n",
  };

  it("never returns Read-denied files in any mode", async () => {
    const cwd = tempDir();
    writeTree(cwd, tree);
    const ctx = searchSession({ cwd, deny: ["Read(./secret/**)"] });
    expect((await run(ctx, "Grep", { pattern: "token" })).text).toBe("Found 1 file (most recently modified first)\npublic/readme.txt");
    expect((await run(ctx, "Grep", { pattern: "token", output_mode: "content" })).text).toBe("public/readme.txt:1:token=public");
    expect((await run(ctx, "Grep", { pattern: "token", output_mode: "count" })).text).toBe("public/readme.txt:1\n\nFound 1 match across 1 file.");
    const below = await run(ctx, "Grep", { pattern: "token", path: "secret/deep" });
    expect(below.result.outcome).toBe("denied");
    const file = await run(ctx, "Grep", { pattern: "token", path: "secret/key.txt" });
    expect(file.result.outcome).toBe("denied");
    const open = await run(searchSession({ cwd }), "Grep", { pattern: "token", output_mode: "count" });
    expect(open.text).toContain("Found 3 matches across 3 files.");
  });

  it("post-filters what the rg globs let through (case-insensitive deny rules)", async () => {
    const cwd = tempDir();
    writeTree(cwd, tree);
    const ctx = searchSession({ cwd, deny: ["Read(./SECRET/**)", "Read(**/*.TXT)"] });
    expect((await run(ctx, "Grep", { pattern: "token", output_mode: "content" })).text).toBe("No matches found");
  });

  it("does not follow symbolic links out of the searched tree", async () => {
    const cwd = tempDir();
    const outside = tempDir("toolgate-outside-");
    writeTree(outside, { "private.txt": "token=outside\n", "dir/more.txt": "token=outside\n" });
    writeTree(cwd, { "own.txt": "token=own\n" });
    fs.symlinkSync(path.join(outside, "private.txt"), path.join(cwd, "link.txt"));
    fs.symlinkSync(path.join(outside, "dir"), path.join(cwd, "linkdir"));
    const r = await run(searchSession({ cwd }), "Grep", { pattern: "token", output_mode: "content" });
    expect(r.text).toBe("own.txt:1:token=own");
  });

  it("asks before searching outside the working directories", async () => {
    const cwd = tempDir();
    const other = tempDir("toolgate-other-");
    writeTree(other, { "x.txt": "needle\n" });
    const r = await run(searchSession({ cwd, nonInteractive: true }), "Grep", { pattern: "needle", path: other }, {
      canUseTool: async (_t, _i, _c, _m, _id, decision) =>
        decision.behavior === "ask" ? { behavior: "deny", message: `would ask: ${decision.message}` } : decision,
    });
    expect(r.result.outcome).toBe("denied");
    expect(r.text).toContain("would ask");
  });
});

describe("Grep: timeout, abort, progress", () => {
  it("stops ripgrep at grep.timeoutMs and says the search timed out (is_error when nothing was found)", async () => {
    const cwd = tempDir();
    const fifo = path.join(cwd, "pipe");
    mkfifo(fifo);
    const ctx = searchSession({ cwd, settings: { grep: { timeoutMs: 1_200 } } });
    const r = await run(ctx, "Grep", { pattern: "x", path: "pipe" });
    expect(r.result.block.is_error).toBe(true);
    expect(r.text).toContain("The search timed out after 1.2 s and ripgrep was stopped");
    expect(r.text).toContain("does NOT mean there are none");
    expect(output(r).partial).toBe("timeout");
    expect(r.progress.length).toBeGreaterThanOrEqual(1);
    expect(r.progress[0].data).toMatchObject({ files: 0, matches: 0 });
    expect(ripgrepProcessesIn(cwd)).toEqual([]);
  });

  it("kills ripgrep when the session is aborted and returns a cancellation", async () => {
    const cwd = tempDir();
    const fifo = path.join(cwd, "pipe");
    mkfifo(fifo);
    const abortController = new AbortController();
    const ctx = searchSession({ cwd, abortController });
    let runningWhenAborted: number[] = [];
    const r = await run(ctx, "Grep", { pattern: "x", path: "pipe", output_mode: "content" }, {
      onProgress: () => {
        runningWhenAborted = ripgrepProcessesIn(cwd);
        abortController.abort();
      },
    });
    expect(r.result.outcome).toBe("cancelled");
    expect(r.result.block.is_error).toBe(true);
    expect(runningWhenAborted).toHaveLength(1);
    expect(await waitForRipgrepExit(cwd)).toEqual([]);
  });

  it("is read-only and concurrency-safe: several searches form one parallel batch", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "a.ts": "alpha\n", "b.md": "beta\n" });
    const ctx = searchSession({ cwd });
    expect(GrepTool.isReadOnly({ pattern: "x" })).toBe(true);
    expect(GrepTool.isConcurrencySafe({ pattern: "x" })).toBe(true);
    const blocks = [
      { type: "tool_use" as const, id: "g1", name: "Grep", input: { pattern: "alpha" } },
      { type: "tool_use" as const, id: "g2", name: "Glob", input: { pattern: "*.md" } },
      { type: "tool_use" as const, id: "g3", name: "Grep", input: { pattern: "beta", output_mode: "content" } },
    ];
    const texts: string[] = [];
    for await (const update of runTools(blocks, assistantMessage(), approveAll, ctx)) {
      if (update.type === "result") texts.push(String(update.block.content));
    }
    expect(texts).toEqual(["Found 1 file (most recently modified first)\na.ts", "b.md", "b.md:1:beta"]);
  });
});
