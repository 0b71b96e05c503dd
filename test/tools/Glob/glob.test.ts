import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GlobTool, formatGlobResult, type GlobOutput } from "../../../src/tools/Glob/index.js";
import { splitGlobPattern } from "../../../src/tools/Glob/glob.js";
import { partitionToolCalls } from "../../../src/core/executor/index.js";
import type { ToolUseContext } from "../../../src/core/Tool.js";
import { rejectAll } from "../../helpers.js";
import { run, searchSession, setAge, tempDir, writeTree } from "./searchHelpers.js";

const output = (r: Awaited<ReturnType<typeof run>>) => r.result.output as GlobOutput;

describe("splitGlobPattern", () => {
  it("moves literal leading segments of relative and absolute patterns into the root", () => {
    expect(splitGlobPattern("**/*.ts", "/base")).toEqual({ root: "/base", pattern: "**/*.ts" });
    expect(splitGlobPattern("src/lib/*.ts", "/base")).toEqual({ root: "/base/src/lib", pattern: "*.ts" });
    expect(splitGlobPattern("/abs/src/**/*.ts", "/base")).toEqual({ root: "/abs/src", pattern: "**/*.ts" });
    expect(splitGlobPattern("/abs/*/src/*.ts", "/base")).toEqual({ root: "/abs", pattern: "*/src/*.ts" });
    expect(splitGlobPattern("../other/{a,b}/x", "/base/dir")).toEqual({ root: "/base/other", pattern: "{a,b}/x" });
    expect(splitGlobPattern("src/index.ts", "/base")).toEqual({ root: "/base/src", pattern: "index.ts" });
    expect(splitGlobPattern("~/notes/*.md", "/base", "/home/u")).toEqual({ root: "/home/u/notes", pattern: "*.md" });
    expect(splitGlobPattern("node_modules/@types/*/index.d.ts", "/b")).toEqual({ root: "/b/node_modules/@types", pattern: "*/index.d.ts" });
  });
});

describe("Glob tool", () => {
  it("lists matches by modification time, newest last (as Claude Code does), relative to the session cwd, with standard glob semantics", async () => {
    const cwd = tempDir();
    const files = writeTree(cwd, { "old.ts": "", "mid.ts": "", "src/new.ts": "", "src/deep/deeper.ts": "", "notes.md": "" });
    setAge(files["old.ts"], 300);
    setAge(files["mid.ts"], 200);
    setAge(files["src/new.ts"], 10);
    setAge(files["src/deep/deeper.ts"], 100);
    const ctx = searchSession({ cwd });

    const all = await run(ctx, "Glob", { pattern: "**/*.ts" });
    expect(all.result.outcome).toBe("success");
    expect(all.text.split("\n")).toEqual(["old.ts", "mid.ts", "src/deep/deeper.ts", "src/new.ts"]);

    const top = await run(ctx, "Glob", { pattern: "*.ts" });
    expect(top.text.split("\n")).toEqual(["old.ts", "mid.ts"]);
    const braces = await run(ctx, "Glob", { pattern: "*.{md,ts}" });
    expect(braces.text.split("\n").sort()).toEqual(["mid.ts", "notes.md", "old.ts"]);
    const under = await run(ctx, "Glob", { pattern: "src/*.ts" });
    expect(under.text).toBe("src/new.ts");
  });

  it("splits an absolute pattern into its directory; results outside the cwd are absolute", async () => {
    const cwd = tempDir();
    const other = tempDir("toolgate-other-");
    writeTree(cwd, { "in/a.txt": "" });
    writeTree(other, { "docs/x.md": "", "docs/sub/y.md": "", "z.md": "" });
    const ctx = searchSession({ cwd });
    const inside = await run(ctx, "Glob", { pattern: path.join(cwd, "in", "*.txt") });
    expect(inside.text).toBe("in/a.txt");
    const outside = await run(ctx, "Glob", { pattern: `${other}/docs/**/*.md`, path: "ignored-for-absolute" });
    expect(outside.result.outcome).toBe("success");
    expect(outside.text.split("\n").sort()).toEqual([path.join(other, "docs/sub/y.md"), path.join(other, "docs/x.md")]);
  });

  it("searches the given path (relative to the cwd) and reports a missing path or a file clearly", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "pkg/a.js": "", "b.js": "" });
    const ctx = searchSession({ cwd });
    const scoped = await run(ctx, "Glob", { pattern: "**/*.js", path: "pkg" });
    expect(scoped.text).toBe("pkg/a.js");

    const missing = await run(ctx, "Glob", { pattern: "*.js", path: "nope" });
    expect(missing.result.outcome).toBe("invalid_input");
    expect(missing.result.block.is_error).toBe(true);
    expect(missing.text).toContain("Directory does not exist: nope");
    expect(missing.text).toContain(cwd);

    const file = await run(ctx, "Glob", { pattern: "*.js", path: "b.js" });
    expect(file.result.outcome).toBe("invalid_input");
    expect(file.text).toContain("Path is not a directory: b.js");
  });

  it('says "No files found" when nothing matches, including a literal prefix that does not exist', async () => {
    const cwd = tempDir();
    writeTree(cwd, { "a.txt": "" });
    const ctx = searchSession({ cwd });
    expect((await run(ctx, "Glob", { pattern: "**/*.rs" })).text).toBe("No files found");
    expect((await run(ctx, "Glob", { pattern: "missing/dir/**/*.txt" })).text).toBe("No files found");
  });

  it("includes hidden and gitignored files by default; the settings exclude them", async () => {
    const cwd = tempDir();
    fs.mkdirSync(path.join(cwd, ".git"));
    writeTree(cwd, { ".gitignore": "build/\n*.log\n", "build/out.js": "", "app.log": "", ".env.local": "", ".config/tool.json": "", "src/main.js": "" });
    const expectedAll = [".config/tool.json", ".env.local", ".gitignore", "app.log", "build/out.js", "src/main.js"];
    const dflt = await run(searchSession({ cwd }), "Glob", { pattern: "**/*" });
    expect(dflt.text.split("\n").sort()).toEqual(expectedAll);

    const noHidden = await run(searchSession({ cwd, settings: { glob: { includeHidden: false } } }), "Glob", { pattern: "**/*" });
    expect(noHidden.text.split("\n").sort()).toEqual(["app.log", "build/out.js", "src/main.js"]);

    const gitignore = await run(searchSession({ cwd, settings: { glob: { respectGitignore: true } } }), "Glob", { pattern: "**/*" });
    expect(gitignore.text.split("\n").sort()).toEqual([".config/tool.json", ".env.local", ".gitignore", "src/main.js"]);
  });

  it("never lists version-control folders", async () => {
    const cwd = tempDir();
    writeTree(cwd, {
      ".git/config": "",
      ".svn/entries": "",
      ".hg/store": "",
      ".jj/repo": "",
      ".bzr/branch": "",
      "sub/.git/HEAD": "",
      "keep.txt": "",
    });
    const ctx = searchSession({ cwd });
    expect((await run(ctx, "Glob", { pattern: "**/*" })).text).toBe("keep.txt");
    expect((await run(ctx, "Glob", { pattern: ".git/**" })).text).toBe("No files found");
    expect((await run(ctx, "Glob", { pattern: "sub/.git/*" })).text).toBe("No files found");
    expect((await run(ctx, "Glob", { pattern: "*", path: ".git" })).text).toBe(".git/config");
  });

  it("excludes Read-denied files, and does not list symlinks", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "secret/key.pem": "", "secret/nested/more.txt": "", "public/readme.txt": "", "top.txt": "" });
    fs.symlinkSync(path.join(cwd, "secret/key.pem"), path.join(cwd, "public/alias.pem"));
    const ctx = searchSession({ cwd, deny: ["Read(./secret/**)"] });
    const result = await run(ctx, "Glob", { pattern: "**/*" });
    expect(result.text.split("\n").sort()).toEqual(["public/readme.txt", "top.txt"]);

    const open = await run(searchSession({ cwd }), "Glob", { pattern: "**/*" });
    expect(open.text.split("\n").sort()).toEqual(["public/readme.txt", "secret/key.pem", "secret/nested/more.txt", "top.txt"]);

    // `secret/**` also covers the folder itself, so a search rooted there is denied outright
    const inside = await run(ctx, "Glob", { pattern: "**/*", path: "secret" });
    expect(inside.result.outcome).toBe("denied");
    expect(inside.text).toContain('rule "Read(./secret/**)"');
    const below = await run(ctx, "Glob", { pattern: path.join(cwd, "secret/nested/*.txt") });
    expect(below.result.outcome).toBe("denied");
  });

  it("drops denied files even where the rg exclusion globs miss them (deny rules ignore case, rg globs do not)", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "secret/key.pem": "", "Secret2/x.txt": "", "ok.txt": "" });
    const ctx = searchSession({ cwd, deny: ["Read(./SECRET/**)"] });
    expect((await run(ctx, "Glob", { pattern: "**/*" })).text.split("\n").sort()).toEqual(["Secret2/x.txt", "ok.txt"]);
  });

  it("caps the list at 100 with a note; a 10 000-file tree keeps the newest, listed oldest first", async () => {
    const cwd = tempDir();
    for (let d = 0; d < 100; d++) {
      const dir = path.join(cwd, `d${d}`);
      fs.mkdirSync(dir);
      for (let f = 0; f < 100; f++) fs.writeFileSync(path.join(dir, `f${f}.txt`), "");
    }
    for (let d = 0; d < 100; d++) for (let f = 0; f < 100; f++) setAge(path.join(cwd, `d${d}`, `f${f}.txt`), 1000 + d * 100 + f);
    setAge(path.join(cwd, "d57/f3.txt"), 1);
    const result = await run(searchSession({ cwd }), "Glob", { pattern: "**/*.txt" });
    const out = output(result);
    expect(out.numFiles).toBe(10_000);
    expect(out.truncated).toBe(true);
    expect(out.filenames).toHaveLength(100);
    expect(out.filenames[99]).toBe("d57/f3.txt");
    expect(out.filenames[98]).toBe("d0/f0.txt");
    expect(result.text).toContain("showing the 100 most recently modified of 10000 matching files");
    expect(GlobTool.isResultTruncated?.(out)).toBe(true);
  });

  it("handles unicode names, spaces and glob-like characters in paths", async () => {
    const cwd = tempDir();
    writeTree(cwd, { "données/été.txt": "", "with space/a b.txt": "", "日本/ファイル.txt": "", "odd[1]/x.txt": "" });
    const ctx = searchSession({ cwd });
    const all = await run(ctx, "Glob", { pattern: "**/*.txt" });
    expect(all.text.split("\n").sort()).toEqual(["données/été.txt", "odd[1]/x.txt", "with space/a b.txt", "日本/ファイル.txt"]);
    expect((await run(ctx, "Glob", { pattern: "données/*.txt" })).text).toBe("données/été.txt");
    expect((await run(ctx, "Glob", { pattern: "*/a b.txt" })).text).toBe("with space/a b.txt");
    expect((await run(ctx, "Glob", { pattern: "**/*.txt", path: "with space" })).text).toBe("with space/a b.txt");
  });

  it("asks for a directory outside the working directories and is denied when nobody can approve", async () => {
    const cwd = tempDir();
    const other = tempDir("toolgate-other-");
    writeTree(other, { "x.txt": "" });
    const refused = await run(searchSession({ cwd, nonInteractive: true }), "Glob", { pattern: "*.txt", path: other }, { canUseTool: rejectAll });
    expect(refused.result.outcome).toBe("denied");
    const asked: string[] = [];
    const approved = await run(searchSession({ cwd }), "Glob", { pattern: "*.txt", path: other }, {
      canUseTool: async (_tool, input, _ctx, _msg, _id, decision) => {
        asked.push(`${decision.behavior}:${(input as { path: string }).path}`);
        return { behavior: "allow" };
      },
    });
    expect(asked).toEqual([`ask:${other}`]);
    expect(approved.text).toBe(path.join(other, "x.txt"));
  });

  it("is read-only, concurrency-safe, and backfills an absolute path only when it can", () => {
    const input = { pattern: "*.ts" };
    expect(GlobTool.isReadOnly(input)).toBe(true);
    expect(GlobTool.isConcurrencySafe(input)).toBe(true);
    const batches = partitionToolCalls(
      [
        { type: "tool_use", id: "a", name: "Glob", input },
        { type: "tool_use", id: "b", name: "Glob", input: { pattern: "**/*.md" } },
      ],
      searchSession({ cwd: tempDir() }),
    );
    expect(batches).toHaveLength(1);
    const ctx = searchSession({ cwd: tempDir() });
    const clone = { pattern: "*", path: "sub" };
    // the core passes no context yet; the tool accepts one so a caller that has it gets an absolute path
    const backfill = GlobTool.backfillObservableInput as (input: object, context?: ToolUseContext) => void;
    backfill(clone, ctx);
    expect(clone.path).toBe(path.join(ctx.getCwd(), "sub"));
    const noContext = { pattern: "*", path: "~/x" };
    backfill(noContext);
    expect(path.isAbsolute(noContext.path)).toBe(true);
  });

  it("formats partial listings so the model knows they are incomplete", () => {
    const text = formatGlobResult({ filenames: ["a"], numFiles: 1, truncated: false, durationMs: 1, partial: "timeout" });
    expect(text).toContain("timed out");
  });
});
