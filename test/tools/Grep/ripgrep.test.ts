import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BASE_ARGS, exclusionGlobArgs, isFatalRipgrepError, runRipgrep, rgPath } from "../../../src/tools/search/ripgrep.js";
import { buildGrepArgs, splitGlobList } from "../../../src/tools/Grep/args.js";
import { createRecordParser, toContentRecord } from "../../../src/tools/Grep/parse.js";
import { contentPage } from "../../../src/tools/Grep/search.js";
import { formatGrepResult, type GrepOutput } from "../../../src/tools/Grep/output.js";
import { tempDir, writeTree } from "../Glob/searchHelpers.js";

describe("runRipgrep", () => {
  it("uses the bundled binary", () => {
    expect(rgPath).toContain("@vscode/ripgrep");
    expect(execFileSync(rgPath, ["--version"], { encoding: "utf8" })).toMatch(/^ripgrep 15\./);
  });

  it("streams records split on the separator, also across chunk boundaries", async () => {
    const cwd = tempDir();
    const names = Array.from({ length: 3000 }, (_, i) => `file-${i}-ünïcødé.txt`);
    writeTree(cwd, Object.fromEntries(names.map((n) => [n, ""])));
    const records: string[] = [];
    const outcome = await runRipgrep({
      args: [...BASE_ARGS, "--files", "--", "."],
      cwd,
      timeoutMs: 20_000,
      separator: "\0",
      onRecord: (r) => records.push(r),
    });
    expect(outcome).toMatchObject({ exitCode: 0, stopped: undefined });
    expect(records.map((r) => r.slice(2)).sort()).toEqual([...names].sort());
  });

  it("stops rg at the output cap and keeps only whole records", async () => {
    const cwd = tempDir();
    writeTree(cwd, Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`f${i}.txt`, ""])));
    const records: string[] = [];
    const outcome = await runRipgrep({
      args: [...BASE_ARGS, "--files", "--", "."],
      cwd,
      timeoutMs: 20_000,
      separator: "\0",
      maxOutputBytes: 1000,
      onRecord: (r) => records.push(r),
    });
    expect(outcome.stopped).toBe("output_limit");
    expect(records.length).toBeGreaterThan(0);
    expect(records.length).toBeLessThan(2000);
    expect(records.join("\0").length).toBeLessThanOrEqual(1000);
    for (const r of records) expect(r).toMatch(/^\.\/f\d+\.txt$/);
  });

  // the tools leave rg block-buffered (faster); line buffering here makes "found before" observable
  it("keeps the records found before a timeout and reports it", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "a.txt": "hello\n" });
    execFileSync("mkfifo", [path.join(cwd, "pipe")]);
    const records: string[] = [];
    const outcome = await runRipgrep({
      args: [...BASE_ARGS, "--line-number", "--line-buffered", "--regexp=hello", "--", "./a.txt", "./pipe"],
      cwd,
      timeoutMs: 800,
      separator: "\n",
      onRecord: (r) => records.push(r),
    });
    expect(outcome.stopped).toBe("timeout");
    expect(outcome.exitCode).toBeNull();
    expect(records).toEqual(["./a.txt\x001:hello"]);
  });

  it("does not start when already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await runRipgrep({ args: ["--version"], cwd: tempDir(), timeoutMs: 1000, separator: "\n", signal: controller.signal, onRecord: () => {} });
    expect(outcome.stopped).toBe("aborted");
  });

  it("tells rg's own refusals from unreadable files", () => {
    const base = { durationMs: 1 };
    expect(isFatalRipgrepError({ ...base, exitCode: 2, stderr: "rg: regex parse error:\n    (?:foo()\n    ^\nerror: unclosed group" })).toBe(true);
    expect(isFatalRipgrepError({ ...base, exitCode: 2, stderr: "rg: ./a: Permission denied (os error 13)" })).toBe(false);
    expect(isFatalRipgrepError({ ...base, exitCode: 1, stderr: "" })).toBe(false);
    expect(isFatalRipgrepError({ ...base, exitCode: 2, stderr: "", stopped: "timeout" })).toBe(false);
  });
});

describe("Grep arguments and parsing", () => {
  it("pages content records across files", () => {
    const content = [
      { path: "/a", records: ["./a\x001:x", "./a\x002:y"] },
      { path: "/b", records: ["./b\x005:z"] },
    ];
    expect(contentPage(content, 1, 2).map((r) => `${r.path}:${r.line}:${r.text}`)).toEqual(["/a:2:y", "/b:5:z"]);
    expect(contentPage(content, 0, 0)).toHaveLength(3);
    expect(contentPage(content, 2, 5).map((r) => r.path)).toEqual(["/b"]);
    expect(contentPage(content, 3, 5)).toEqual([]);
  });

  it("splits glob lists at spaces and commas outside braces", () => {
    expect(splitGlobList("*.ts")).toEqual(["*.ts"]);
    expect(splitGlobList("*.{ts,tsx}")).toEqual(["*.{ts,tsx}"]);
    expect(splitGlobList("*.js, *.py  !**/test/**")).toEqual(["*.js", "*.py", "!**/test/**"]);
    expect(splitGlobList("{a,b}/*.{c,d},e")).toEqual(["{a,b}/*.{c,d}", "e"]);
  });

  it("passes the pattern with --regexp= and puts VCS and deny exclusions after the user's globs", () => {
    const args = buildGrepArgs(
      { pattern: "-x", mode: "content", globs: ["secret/**"], caseInsensitive: true, multiline: true, context: 2, after: 1 },
      ["/secret/**"],
      ".",
    );
    expect(args).toContain("--regexp=-x");
    expect(args.slice(-3)).toEqual(["--regexp=-x", "--", "."]);
    const globs = args.filter((a) => a.startsWith("--glob="));
    expect(globs).toEqual(["--glob=secret/**", ...exclusionGlobArgs(["/secret/**"])]);
    expect(globs.at(-1)).toBe("--glob=!/secret/**");
    expect(args.indexOf("--context=2")).toBeLessThan(args.indexOf("--after-context=1"));
    expect(args).toEqual(expect.arrayContaining(["--hidden", "--ignore-case", "--multiline", "--multiline-dotall", "--max-columns=500", "--max-columns-preview"]));
  });

  it("parses match, context, separator and binary records, and paths containing newlines", () => {
    const parse = createRecordParser("content");
    const colon = "./a:b.txt\x0012:text: with colon";
    expect(parse(colon)).toEqual({ kind: "content", path: "./a:b.txt", raw: colon, isMatch: true });
    expect(toContentRecord(colon, "/abs/a:b.txt")).toEqual({ path: "/abs/a:b.txt", line: 12, text: "text: with colon", isMatch: true });
    const context = "./a.txt\x003-ctx-line";
    expect(parse(context)).toMatchObject({ path: "./a.txt", isMatch: false });
    expect(toContentRecord(context, "a.txt")).toEqual({ path: "a.txt", line: 3, text: "ctx-line", isMatch: false });
    expect(parse("--")).toBeUndefined();
    expect(parse("./x\x00not a record")).toBeUndefined();
    expect(parse("./bin.dat: binary file matches (found \"\\0\" byte around offset 5)")).toEqual({ kind: "binary", path: "./bin.dat" });
    expect(parse("./odd")).toBeUndefined();
    expect(parse("name.txt\x001:hit")).toMatchObject({ kind: "content", path: "./odd\nname.txt", isMatch: true });
    const count = createRecordParser("count");
    expect(count("./x y.txt\x007")).toEqual({ kind: "count", path: "./x y.txt", count: 7 });
  });

  it("marks partial results and output-capped searches in the text", () => {
    const base: GrepOutput = {
      mode: "files_with_matches",
      filenames: ["a.txt"],
      numFiles: 1,
      page: { offset: 0, headLimit: 250, shown: 1, total: 1, hasMore: false },
      durationMs: 5,
      timeoutMs: 20_000,
      partial: "timeout",
    };
    const timedOut = formatGrepResult(base);
    expect(timedOut).toContain("a.txt");
    expect(timedOut).toContain("timed out after 20 s");
    expect(timedOut).toContain("these results are partial");
    expect(formatGrepResult({ ...base, partial: "output_limit" })).toContain("too much output");
    expect(formatGrepResult({ ...base, partial: undefined, warnings: ["rg: ./x: Permission denied (os error 13)"] })).toContain("could not be searched");
  });
});
