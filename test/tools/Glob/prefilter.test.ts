import fs from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { createEmptyPermissionContext } from "../../../src/core/context.js";
import { globSearch, rgCanPrefilter } from "../../../src/tools/Glob/glob.js";
import { setAge, tempDir, writeTree } from "./searchHelpers.js";

describe("rgCanPrefilter", () => {
  it("accepts only patterns that mean the same to rg and picomatch", () => {
    for (const pattern of ["**/*.ts", "*.md", "src/**/index.{js,ts}", "**", "pkg1*/mod1/**/*.md", "{a,b}", "x.{ts,tsx,d.ts}", "with space/*.txt"]) {
      expect(rgCanPrefilter(pattern), pattern).toBe(true);
    }
    for (const pattern of ["[ab].ts", "**/[!a]*", "{a}.ts", "{,a}.ts", "{a,{b,c}}", "{a,b}{c,d}", "!(x).ts", "+(a|b).ts", "@(a).ts", "(a|b).ts", "a\\*b", "a**b/x", "**/", "./x", "../x", "a//b", "a?c/*.txt", "**/?.ts", "\uFFFD.ts", "*.ts ", "*\t"]) {
      expect(rgCanPrefilter(pattern), pattern).toBe(false);
    }
  });
});

/** Every file under root, as paths relative to it, skipping .git: what rg --files --hidden --no-ignore lists. */
function walk(root: string, dir = ""): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (entry.name !== ".git") out.push(...walk(root, relative));
    } else if (entry.isFile()) out.push(relative);
  }
  return out;
}

describe("Glob with rg pre-filtering the listing", () => {
  // Names chosen to catch a dialect difference: dotfiles at every depth, literal braces and commas,
  // case, spaces, non-ASCII, one-character names, and names only a basename match would catch.
  const tree = [
    "a.ts", ".hidden.ts", "A.TS", "b,c.ts", "{a}.ts", "x y.ts", "ü.ts", "q.ts", "qq.ts",
    "src/index.js", "src/index.ts", "src/index.jsx", "src/.x/y.ts", "src/a.d.ts",
    ".config/tool.json", ".config/.deep/z.ts", "deep/a/b/c/d.ts", "deep/d.ts", "d.ts/inner.md",
    "pkg1x/mod1/src/r.md", "pkg1/mod1/r.md", "pkg2/mod1/r.md", "node_modules/m/index.ts", "trailing.ts ", "#hash.ts",
  ];
  const patterns = [
    "**/*.ts", "*.ts", "**/index.{js,ts}", "src/*.{js,ts}", "**/?.ts", "**/.x/*.ts", "**/*", "*", "**/b,c.ts",
    "deep/**/d.ts", "**/*.TS", "pkg1*/mod1/**/*.md", "**/d.ts", "*.{ts,md}", "**/.*", "**/*.d.ts", "src/**",
    "*.ts ", "#hash.ts", "#*", "ü.ts", "*ü*",
  ];

  it("finds exactly what picomatch finds over the whole tree, newest first, for every pattern", async () => {
    const root = fs.realpathSync(tempDir("toolgate-prefilter-"));
    const files = writeTree(root, Object.fromEntries(tree.map((name) => [name, ""])));
    fs.mkdirSync(path.join(root, ".git"));
    fs.writeFileSync(path.join(root, ".git", "x.ts"), "");
    fs.writeFileSync(path.join(root, ".gitignore"), "*.ts\n");
    tree.forEach((name, i) => setAge(files[name], (i * 7) % 5)); // many ties: the order falls back to the path
    const all = walk(root);
    for (const pattern of patterns) {
      const isMatch = picomatch(pattern, { dot: true });
      const expected = all
        .filter((relative) => isMatch(relative))
        .map((relative) => path.join(root, relative))
        .map((p) => ({ p, t: fs.statSync(p).mtimeMs }))
        .sort((a, b) => b.t - a.t || (a.p < b.p ? -1 : a.p > b.p ? 1 : 0))
        .map((e) => e.p);
      const { files: found } = await globSearch({ pattern, baseDir: root, permissionContext: createEmptyPermissionContext(root), includeHidden: true, respectGitignore: false });
      expect(found, pattern).toEqual(expected);
    }
  });

  it("still honours .gitignore and hidden-file settings, where a --glob would override them", async () => {
    const root = fs.realpathSync(tempDir("toolgate-prefilter-"));
    writeTree(root, { "keep.ts": "", "ignored.ts": "", ".hidden.ts": "", ".gitignore": "ignored.ts\n" });
    fs.mkdirSync(path.join(root, ".git"));
    const search = (includeHidden: boolean, respectGitignore: boolean) =>
      globSearch({ pattern: "**/*.ts", baseDir: root, permissionContext: createEmptyPermissionContext(root), includeHidden, respectGitignore });
    const names = async (p: ReturnType<typeof search>) => (await p).files.map((f) => path.basename(f)).sort();
    expect(await names(search(true, true))).toEqual([".hidden.ts", "keep.ts"]);
    expect(await names(search(false, false))).toEqual(["ignored.ts", "keep.ts"]);
    expect(await names(search(false, true))).toEqual(["keep.ts"]);
    expect(await names(search(true, false))).toEqual([".hidden.ts", "ignored.ts", "keep.ts"]);
  });
});
