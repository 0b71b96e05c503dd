import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { rgPath } from "@vscode/ripgrep";
import { SAFETY_FILE_NAMES } from "../../src/permissions/safetyPaths.js";
import { findMatchingPathRule } from "../../src/permissions/pathRules.js";
import {
  checkReadPermissionForPath,
  checkWritePermissionForPath,
  getContentRulesForTool,
  getWorkingDirectories,
  isInWorkingDirectories,
  matchingReadDenyRule,
  readDenyGlobsForRoot,
} from "../../src/permissions/index.js";
import { eachTestDirs, permissionContext, rule, tempDir, write } from "./helpers.js";

let cwd: string;
let outside: string;
let fakeHome: string;
eachTestDirs("tg-", (dirs) => {
  ({ cwd, outside, home: fakeHome } = dirs);
});

describe("working directories", () => {
  it("lists cwd first, deduplicated, and tests inclusion", () => {
    const ctx = permissionContext(cwd, [], "default", [outside, cwd, outside]);
    expect(getWorkingDirectories(ctx)).toEqual([cwd, outside]);
    expect(isInWorkingDirectories(path.join(cwd, "a/b.txt"), ctx)).toBe(true);
    expect(isInWorkingDirectories(path.join(outside, "x"), ctx)).toBe(true);
    expect(isInWorkingDirectories(path.join(os.tmpdir(), "elsewhere-x"), ctx)).toBe(false);
    expect(isInWorkingDirectories(`${cwd}-sibling/x`, ctx)).toBe(false);
  });

  it("is not inside when a symlink inside points outside", () => {
    fs.symlinkSync(outside, path.join(cwd, "link"));
    const ctx = permissionContext(cwd);
    expect(isInWorkingDirectories(path.join(cwd, "link", "f.txt"), ctx)).toBe(false);
  });
});

describe("checkReadPermissionForPath", () => {
  it("a dir/** rule also covers the folder itself, so a search rooted at it follows the rule", () => {
    const data = path.join(outside, "data");
    const ctx = permissionContext(cwd, [rule("allow", `Read(/${data}/**)`), rule("deny", "Read(./secret/**)")]);
    expect(checkReadPermissionForPath(data, ctx).behavior).toBe("allow");
    expect(checkReadPermissionForPath(path.join(data, "deep/file.txt"), ctx).behavior).toBe("allow");
    expect(checkReadPermissionForPath(`${data}-other`, ctx).behavior).toBe("passthrough");
    expect(checkReadPermissionForPath(path.join(cwd, "secret"), ctx).behavior).toBe("deny");
    expect(checkReadPermissionForPath(path.join(cwd, "secretive"), ctx).behavior).toBe("allow");
  });

  it("allows reads inside the working directories and passes through outside, with suggestions", () => {
    const ctx = permissionContext(cwd);
    const inside = checkReadPermissionForPath(path.join(cwd, "a.txt"), ctx);
    expect(inside.behavior).toBe("allow");
    expect(inside.decisionReason).toMatchObject({ type: "workingDirectory", inside: true, directory: cwd });
    const out = checkReadPermissionForPath(path.join(outside, "b.txt"), ctx);
    expect(out.behavior).toBe("passthrough");
    if (out.behavior !== "passthrough") throw new Error();
    expect(out.message).toContain("outside the working directories");
    expect(out.suggestions).toContainEqual({ type: "addDirectories", directories: [outside], destination: "session" });
    expect(out.suggestions).toContainEqual({
      type: "addRules",
      behavior: "allow",
      rules: [{ toolName: "Read", ruleContent: `/${outside}/**` }],
      destination: "localSettings",
    });
  });

  it("deny beats allow, ask beats allow, and names the rule, source, file and matched part", () => {
    const file = path.join(cwd, ".toolgate/settings.json");
    const ctx = permissionContext(cwd, [
      rule("allow", "Read(**)", "policySettings"),
      rule("deny", "Read(.env)", "userSettings", { file }),
      rule("ask", "Read(docs/**)", "projectSettings"),
    ]);
    const denied = checkReadPermissionForPath(path.join(cwd, "sub/.env"), ctx);
    expect(denied.behavior).toBe("deny");
    expect(denied.decisionReason).toMatchObject({ type: "rule", matched: "sub/.env", rule: { source: "userSettings", file } });
    if (denied.behavior !== "deny") throw new Error();
    expect(denied.message).toContain('"Read(.env)" from user settings');
    expect(denied.message).toContain(file);
    expect(checkReadPermissionForPath(path.join(cwd, "docs/a.md"), ctx).behavior).toBe("ask");
    const allowed = checkReadPermissionForPath(path.join(outside, "z"), permissionContext(cwd, [rule("allow", `Read(/${outside}/**)`)]));
    expect(allowed.behavior).toBe("allow");
  });

  it("denies through a symlink into a denied directory", () => {
    write(path.join(cwd, "secrets/key.pem"));
    fs.symlinkSync(path.join(cwd, "secrets"), path.join(cwd, "innocent"));
    const ctx = permissionContext(cwd, [rule("deny", "Read(/secrets/**)", "projectSettings", { root: cwd })]);
    const result = checkReadPermissionForPath(path.join(cwd, "innocent/key.pem"), ctx);
    expect(result.behavior).toBe("deny");
    if (result.behavior !== "deny") throw new Error();
    expect(result.message).toContain("real path");
    expect(matchingReadDenyRule(path.join(cwd, "innocent/key.pem"), ctx)?.ruleValue.ruleContent).toBe("/secrets/**");
    expect(matchingReadDenyRule(path.join(cwd, "other.txt"), ctx)).toBeUndefined();
  });

  it("keeps answering right after many lookups (the matchers' path caches are rebuilt, not grown without end)", () => {
    const ctx = permissionContext(cwd, [rule("deny", "Read(/secrets/**)", "projectSettings", { root: cwd })]);
    // past the rebuild limit (50 000 lookups) of both the group's matcher and the rule's own
    for (let i = 0; i < 110_000; i++) {
      const denied = findMatchingPathRule(ctx, "Read", "deny", path.join(cwd, `secrets/d${i % 50}/f${i}.txt`));
      if (denied?.rule.ruleValue.ruleContent !== "/secrets/**") throw new Error(`lookup ${i}: the deny rule was lost`);
      if (i % 10 === 0 && findMatchingPathRule(ctx, "Read", "deny", path.join(cwd, `src/f${i}.ts`))) throw new Error(`lookup ${i}: a path outside the rule was denied`);
    }
    expect(checkReadPermissionForPath(path.join(cwd, "secrets/last.txt"), ctx).behavior).toBe("deny");
  });

  it("a whole-tool Read deny covers every path", () => {
    const ctx = permissionContext(cwd, [rule("deny", "Read")]);
    expect(checkReadPermissionForPath(path.join(cwd, "a"), ctx).behavior).toBe("deny");
    expect(matchingReadDenyRule(path.join(cwd, "a"), ctx)).toBeDefined();
  });
});

describe("pattern roots", () => {
  it("`//abs` is absolute", () => {
    const ctx = permissionContext(cwd, [rule("deny", `Read(/${outside}/*.key)`)]);
    expect(checkReadPermissionForPath(path.join(outside, "a.key"), ctx).behavior).toBe("deny");
    expect(checkReadPermissionForPath(path.join(outside, "a.txt"), ctx).behavior).toBe("passthrough");
  });

  it("`~/x` is relative to the home directory", () => {
    const ctx = permissionContext(cwd, [rule("deny", "Read(~/.ssh/**)")]);
    expect(checkReadPermissionForPath(path.join(fakeHome, ".ssh/id_rsa"), ctx).behavior).toBe("deny");
    expect(checkReadPermissionForPath(path.join(cwd, ".ssh/id_rsa"), ctx).behavior).toBe("allow");
  });

  it("`/x` is relative to the settings file's root, not cwd", () => {
    const project = tempDir("tg-proj-");
    const ctx = permissionContext(cwd, [rule("deny", "Edit(/build/**)", "projectSettings", { root: project })]);
    expect(checkWritePermissionForPath(path.join(project, "build/out.js"), ctx).behavior).toBe("deny");
    expect(checkWritePermissionForPath(path.join(cwd, "build/out.js"), ctx).behavior).toBe("passthrough");
  });

  it("`./x` is anchored at cwd and `x` matches at any depth under cwd", () => {
    const ctx = permissionContext(cwd, [rule("deny", "Edit(./top.txt)"), rule("deny", "Edit(*.lock)")]);
    expect(checkWritePermissionForPath(path.join(cwd, "top.txt"), ctx).behavior).toBe("deny");
    expect(checkWritePermissionForPath(path.join(cwd, "sub/top.txt"), ctx).behavior).toBe("passthrough");
    expect(checkWritePermissionForPath(path.join(cwd, "a/b/c.lock"), ctx).behavior).toBe("deny");
    expect(checkWritePermissionForPath(path.join(outside, "c.lock"), ctx).behavior).toBe("passthrough");
  });

  it("deny ignores letter case, allow does not", () => {
    const ctx = permissionContext(cwd, [rule("deny", "Read(.env)"), rule("allow", `Edit(/${outside}/src/**)`)]);
    expect(checkReadPermissionForPath(path.join(cwd, "A/.ENV"), ctx).behavior).toBe("deny");
    expect(checkWritePermissionForPath(path.join(outside, "src/a.ts"), ctx).behavior).toBe("allow");
    expect(checkWritePermissionForPath(path.join(outside, "SRC/a.ts"), ctx).behavior).toBe("passthrough");
  });

  it("treats a leading ! or # as part of a file name, not gitignore syntax", () => {
    const ctx = permissionContext(cwd, [rule("deny", "Read(!important)"), rule("deny", "Read(#notes)"), rule("deny", "Read(x.pem)")]);
    expect(checkReadPermissionForPath(path.join(cwd, "!important"), ctx).behavior).toBe("deny");
    expect(checkReadPermissionForPath(path.join(cwd, "#notes"), ctx).behavior).toBe("deny");
    expect(checkReadPermissionForPath(path.join(cwd, "x.pem"), ctx).behavior).toBe("deny");
    expect(checkReadPermissionForPath(path.join(cwd, "important"), ctx).behavior).toBe("allow");
  });

  it("uses gitignore semantics: directory patterns, ** and negation-free globs", () => {
    const ctx = permissionContext(cwd, [rule("deny", "Read(node_modules/)"), rule("deny", "Read(src/**/*.gen.ts)")]);
    expect(checkReadPermissionForPath(path.join(cwd, "node_modules/x/index.js"), ctx).behavior).toBe("deny");
    expect(checkReadPermissionForPath(path.join(cwd, "pkg/node_modules/y.js"), ctx).behavior).toBe("deny");
    expect(checkReadPermissionForPath(path.join(cwd, "node_modules"), ctx).behavior).toBe("deny");
    expect(checkReadPermissionForPath(path.join(cwd, "src/a/b/c.gen.ts"), ctx).behavior).toBe("deny");
    expect(checkReadPermissionForPath(path.join(cwd, "src/c.ts"), ctx).behavior).toBe("allow");
  });
});

describe("checkWritePermissionForPath", () => {
  it("asks in default mode and allows in acceptEdits inside the working directories", () => {
    const target = path.join(cwd, "src/a.ts");
    const ask = checkWritePermissionForPath(target, permissionContext(cwd));
    expect(ask.behavior).toBe("passthrough");
    if (ask.behavior !== "passthrough") throw new Error();
    expect(ask.suggestions).toContainEqual({ type: "setMode", mode: "acceptEdits", destination: "session" });
    expect(ask.suggestions).toContainEqual({ type: "addRules", behavior: "allow", rules: [{ toolName: "Edit", ruleContent: "./src/**" }], destination: "session" });
    const accept = checkWritePermissionForPath(target, permissionContext(cwd, [], "acceptEdits"));
    expect(accept).toMatchObject({ behavior: "allow", decisionReason: { type: "mode", mode: "acceptEdits" } });
    expect(checkWritePermissionForPath(path.join(outside, "x"), permissionContext(cwd, [], "acceptEdits")).behavior).toBe("passthrough");
  });

  it("asks for protected paths even with an allow rule, and reports a safetyCheck", () => {
    const ctx = permissionContext(cwd, [rule("allow", "Edit(**)")], "acceptEdits");
    for (const p of [".git/config", ".toolgate/settings.json", ".vscode/settings.json", ".mcp.json", "sub/.gitconfig"]) {
      const result = checkWritePermissionForPath(path.join(cwd, p), ctx);
      expect(result.behavior, p).toBe("ask");
      expect(result.decisionReason?.type, p).toBe("safetyCheck");
    }
    expect(checkWritePermissionForPath(path.join(fakeHome, ".bashrc"), ctx).decisionReason?.type).toBe("safetyCheck");
    expect(checkWritePermissionForPath(path.join(cwd, ".github/workflows/ci.yml"), ctx).behavior).toBe("allow");
  });

  it("asks for every file on the shared safety list, the one the sandbox keeps read-only", () => {
    const ctx = permissionContext(cwd, [rule("allow", "Edit(**)")], "bypassPermissions");
    for (const name of SAFETY_FILE_NAMES) {
      expect(checkWritePermissionForPath(path.join(cwd, "sub", name), ctx).decisionReason?.type, name).toBe("safetyCheck");
    }
    expect(SAFETY_FILE_NAMES).toEqual(expect.arrayContaining([".gitmodules", ".ripgreprc", ".mcp.json", ".bashrc"]));
  });

  it("asks for a write through a symlink into .git", () => {
    fs.mkdirSync(path.join(cwd, ".git"));
    fs.symlinkSync(path.join(cwd, ".git"), path.join(cwd, "gitdir"));
    const result = checkWritePermissionForPath(path.join(cwd, "gitdir/hooks/pre-commit"), permissionContext(cwd, [], "acceptEdits"));
    expect(result.behavior).toBe("ask");
    expect(result.decisionReason).toMatchObject({ type: "safetyCheck", path: path.join(cwd, ".git/hooks/pre-commit") });
  });

  it("Edit deny beats a higher Edit allow; ask rules report type rule", () => {
    const ctx = permissionContext(cwd, [rule("allow", "Edit(**)", "session"), rule("deny", "Edit(*.pem)", "userSettings"), rule("ask", "Edit(docs/**)")], "acceptEdits");
    expect(checkWritePermissionForPath(path.join(cwd, "k.pem"), ctx).behavior).toBe("deny");
    expect(checkWritePermissionForPath(path.join(cwd, "docs/x.md"), ctx)).toMatchObject({ behavior: "ask", decisionReason: { type: "rule" } });
    expect(checkWritePermissionForPath(path.join(outside, "x.md"), ctx).behavior).toBe("passthrough");
  });
});

describe("getContentRulesForTool", () => {
  it("returns content rules for the tool and behaviour, highest source first", () => {
    const ctx = permissionContext(cwd, [
      rule("allow", "Bash(ls)", "userSettings"),
      rule("allow", "Bash", "session"),
      rule("allow", "Bash(pwd)", "session"),
      rule("deny", "Bash(rm:*)", "projectSettings"),
      rule("allow", "Bash(git status)", "policySettings"),
      rule("allow", "Read(x)", "session"),
    ]);
    expect(getContentRulesForTool(ctx, "Bash", "allow").map((r) => r.ruleValue.ruleContent)).toEqual(["pwd", "git status", "ls"]);
    expect(getContentRulesForTool(ctx, "Bash", "deny").map((r) => r.ruleValue.ruleContent)).toEqual(["rm:*"]);
  });
});

describe("readDenyGlobsForRoot", () => {
  function rgFiles(root: string, globs: string[]): string[] {
    const args = ["--files", "--hidden", ...globs.flatMap((g) => ["--glob", `!${g}`])];
    return execFileSync(rgPath, args, { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean).sort();
  }

  it("produces globs that make ripgrep skip every denied file, from cwd and from a subdirectory", () => {
    for (const f of ["a/secrets/deep/x.txt", "a/secrets/y.txt", "a/ok.txt", "b/.env", ".env", "top.txt", "build/out.js", "src/keep.ts"]) write(path.join(cwd, f));
    const ctx = permissionContext(cwd, [
      rule("deny", "Read(/a/secrets/**)", "projectSettings", { root: cwd }),
      rule("deny", "Read(.env)"),
      rule("deny", "Read(./build/)"),
    ]);
    expect(rgFiles(cwd, readDenyGlobsForRoot(ctx, cwd))).toEqual(["a/ok.txt", "src/keep.ts", "top.txt"]);
    expect(rgFiles(path.join(cwd, "a"), readDenyGlobsForRoot(ctx, path.join(cwd, "a")))).toEqual(["ok.txt"]);
    expect(readDenyGlobsForRoot(ctx, path.join(cwd, "a/secrets"))).toContain("**");
    const parent = path.dirname(cwd);
    const fromParent = readDenyGlobsForRoot(ctx, parent);
    expect(fromParent).toContain(`/${path.basename(cwd)}/a/secrets/**`);
  });

  it("every file ripgrep still lists is readable per checkReadPermissionForPath", () => {
    for (const f of ["x/1.pem", "x/y/2.pem", "x/ok.txt", "docs/private/a.md", "docs/a.md"]) write(path.join(cwd, f));
    const ctx = permissionContext(cwd, [rule("deny", "Read(*.pem)"), rule("deny", "Read(docs/private)")]);
    const listed = rgFiles(cwd, readDenyGlobsForRoot(ctx, cwd));
    expect(listed).toEqual(["docs/a.md", "x/ok.txt"]);
    for (const f of listed) expect(checkReadPermissionForPath(path.join(cwd, f), ctx).behavior).toBe("allow");
  });
});
