/**
 * The Read-deny post-filter resolves each directory of walked results once instead of each path. These
 * tests try to make it leak: symlinked directories inside the searched tree that lead to denied places,
 * a search root that is itself a link, `..` and `.` in result paths, and paths shaped as if rg had
 * followed a link. Real trees, the real rg, the real permission engine.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolPermissionContext } from "../../../src/core/permissionTypes.js";
import { parsePermissionRule } from "../../../src/permissions/index.js";
import { createReadDenyFilter } from "../../../src/tools/search/denyFilter.js";
import { run, searchSession, tempDir, writeTree } from "../Glob/searchHelpers.js";

function denyContext(cwd: string, deny: string[]): ToolPermissionContext {
  return {
    mode: "default",
    cwd,
    additionalWorkingDirectories: [],
    rules: deny.map((text) => ({ source: "session" as const, ruleBehavior: "deny" as const, ruleValue: parsePermissionRule(text) })),
    shouldAvoidPermissionPrompts: true,
  };
}

/** A project with a denied folder, and an outside folder denied by an absolute rule. */
function project() {
  const cwd = tempDir();
  const outside = tempDir("toolgate-outside-");
  writeTree(cwd, { "secret/key.txt": "token=secret\n", "public/readme.txt": "token=public\n" });
  writeTree(outside, { "vault/cred.txt": "token=vault\n" });
  const deny = ["Read(./secret/**)", `Read(/${path.join(outside, "vault")}/**)`];
  return { cwd, outside, deny };
}

describe("Read-deny filter of walked results", () => {
  it("judges a path below a symlinked directory where the link leads (as if rg had followed it)", () => {
    const { cwd, outside, deny } = project();
    fs.symlinkSync(path.join(cwd, "secret"), path.join(cwd, "public/alias"));
    fs.symlinkSync(path.join(outside, "vault"), path.join(cwd, "public/vaultlink"));
    const allowed = createReadDenyFilter(denyContext(cwd, deny), { walked: true });
    expect(allowed(path.join(cwd, "public/readme.txt"))).toBe(true);
    expect(allowed(path.join(cwd, "public/alias/key.txt"))).toBe(false);
    expect(allowed(path.join(cwd, "public/vaultlink/cred.txt"))).toBe(false);
    // the same directory again comes from the cache, with the same verdict
    expect(allowed(path.join(cwd, "public/alias/other.txt"))).toBe(false);
  });

  it("does not let `..`, `.` or empty segments step around the rules", () => {
    const { cwd, outside, deny } = project();
    fs.mkdirSync(path.join(cwd, "public/sub"));
    fs.symlinkSync(path.join(outside, "vault"), path.join(cwd, "public/vaultlink"));
    const ctx = denyContext(cwd, deny);
    const allowed = createReadDenyFilter(ctx, { walked: true });
    expect(allowed(`${cwd}/public/../secret/key.txt`)).toBe(false);
    expect(allowed(`${cwd}/public/sub/../../secret/key.txt`)).toBe(false);
    expect(allowed(`${cwd}/./secret/key.txt`)).toBe(false);
    expect(allowed(`${cwd}//secret/key.txt`)).toBe(false);
    // a `..` after a link gets the same verdict as from the per-path check (which reads `..` lexically)
    const afterLink = `${cwd}/public/vaultlink/../vault/cred.txt`;
    expect(allowed(afterLink)).toBe(createReadDenyFilter(ctx)(afterLink));
    expect(allowed(`${cwd}/public/./readme.txt`)).toBe(true);
  });

  it("judges a denied directory itself, and paths outside the tree, like the unfiltered check", () => {
    const { cwd, outside, deny } = project();
    const ctx = denyContext(cwd, deny);
    const walked = createReadDenyFilter(ctx, { walked: true });
    const each = createReadDenyFilter(ctx);
    for (const p of [path.join(cwd, "secret"), path.join(outside, "vault/cred.txt"), path.join(outside, "vault"), "/", path.join(cwd, "public/readme.txt")]) {
      expect(walked(p), p).toBe(each(p));
    }
  });
});

describe("Grep and Glob with links into denied places", () => {
  it("return nothing through a symlinked directory inside the tree that leads to a denied folder", async () => {
    const { cwd, outside, deny } = project();
    fs.symlinkSync(path.join(cwd, "secret"), path.join(cwd, "public/alias"));
    fs.symlinkSync(path.join(outside, "vault"), path.join(cwd, "public/vaultlink"));
    fs.symlinkSync(path.join(outside, "vault/cred.txt"), path.join(cwd, "public/cred-link.txt"));
    const ctx = searchSession({ cwd, deny });
    for (const mode of ["files_with_matches", "content", "count"] as const) {
      const r = await run(ctx, "Grep", { pattern: "token", output_mode: mode });
      expect(r.text, mode).toContain("public/readme.txt");
      expect(r.text, mode).not.toMatch(/secret|vault|alias|cred/);
    }
    const globbed = await run(ctx, "Glob", { pattern: "**/*.txt" });
    expect(globbed.text).toBe("public/readme.txt");
  });

  it("judge results under a search root that is itself a link by where they really are", async () => {
    const { cwd, outside, deny } = project();
    fs.mkdirSync(path.join(outside, "vault/inner"));
    fs.writeFileSync(path.join(outside, "vault/inner/deeper.txt"), "token=deeper\n");
    // the root is a link (named innocently) to the denied vault, and another to the denied folder
    fs.symlinkSync(path.join(outside, "vault"), path.join(cwd, "docs"));
    fs.symlinkSync(path.join(cwd, "secret"), path.join(cwd, "notes"));
    const ctx = searchSession({ cwd, deny });
    for (const searchPath of ["docs", "notes"]) {
      for (const mode of ["files_with_matches", "content", "count"] as const) {
        const r = await run(ctx, "Grep", { pattern: "token", output_mode: mode, path: searchPath });
        expect(r.text, `${searchPath} ${mode}`).not.toContain("token=");
        expect(r.text, `${searchPath} ${mode}`).not.toMatch(/cred|deeper|key\.txt/);
      }
      const globbed = await run(ctx, "Glob", { pattern: "**/*.txt", path: searchPath });
      expect(globbed.text).not.toMatch(/cred|deeper|key\.txt/);
    }
  });

  it("judge a rule written against the link's path, with the root a link to an allowed folder", async () => {
    const cwd = tempDir();
    const outside = tempDir("toolgate-outside-");
    writeTree(outside, { "shared/open.txt": "token=open\n", "shared/private/p.txt": "token=private\n" });
    fs.symlinkSync(path.join(outside, "shared"), path.join(cwd, "shared"));
    const ctx = searchSession({ cwd, deny: ["Read(./shared/private/**)"], allow: [`Read(/${outside}/**)`] });
    const r = await run(ctx, "Grep", { pattern: "token", output_mode: "content", path: "shared" });
    expect(r.text).toContain("open.txt:1:token=open");
    expect(r.text).not.toContain("private");
    const globbed = await run(ctx, "Glob", { pattern: "**/*.txt", path: "shared" });
    expect(globbed.text).toContain("open.txt");
    expect(globbed.text).not.toContain("private");
  });
});
