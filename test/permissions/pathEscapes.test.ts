/**
 * Attempts to get around `Edit(...)` and `Read(...)` deny rules with symlinks (dangling, chained, relative,
 * in a parent directory, `..` inside link targets), Unicode forms (NFC/NFD), case, trailing slashes and
 * `./` spellings. Each attempt is kept: on the path checks, and end to end through the real file tools.
 */
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { rgPath } from "@vscode/ripgrep";
import {
  checkReadPermissionForPath,
  checkWritePermissionForPath,
  matchingReadDenyRule,
  readDenyGlobsForRoot,
  resolveRealPath,
} from "../../src/permissions/index.js";
import { resolveWriteTarget } from "../../src/util/atomicWrite.js";
import { eachTestDirs, permissionContext, rule, write, type TestDirs } from "./helpers.js";
import { FILE_TOOLS, session } from "../tools/files/harness.js";
import { GlobTool } from "../../src/tools/Glob/index.js";
import { GrepTool } from "../../src/tools/Grep/index.js";

let cwd: string;
let outside: string;
let fakeHome: string;
eachTestDirs("tg-esc-", (dirs) => {
  ({ cwd, outside, home: fakeHome } = dirs);
});
function link(target: string, at: string) {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(target, at);
}

const CAFE_NFC = "caf\u00e9";
const CAFE_NFD = "cafe\u0301";

interface Attempt {
  name: string;
  /** Builds the files and links; paths are relative to cwd unless absolute. */
  setup?: (dirs: TestDirs) => void;
  rules: (dirs: TestDirs) => string[];
  /** The path the tool is given (relative to cwd, or absolute). */
  target: (dirs: TestDirs) => string;
}

const dirs = () => ({ cwd, outside, home: fakeHome });
const at = (p: string) => (path.isAbsolute(p) ? p : path.join(cwd, p));

const WRITE_ATTEMPTS: Attempt[] = [
  {
    name: "a dangling symlink to a new file in the denied folder (absolute target)",
    setup: ({ cwd }) => {
      fs.mkdirSync(path.join(cwd, "secret"));
      link(path.join(cwd, "secret/new.txt"), path.join(cwd, "innocent.txt"));
    },
    rules: () => ["Edit(./secret/**)"],
    target: () => "innocent.txt",
  },
  {
    name: "a dangling symlink with a relative target",
    setup: ({ cwd }) => {
      fs.mkdirSync(path.join(cwd, "secret"));
      link("secret/new.txt", path.join(cwd, "innocent.txt"));
    },
    rules: () => ["Edit(./secret/**)"],
    target: () => "innocent.txt",
  },
  {
    name: "a dangling symlink whose target folder does not exist yet either",
    setup: ({ cwd }) => link("secret/deeper/new.txt", path.join(cwd, "innocent.txt")),
    rules: () => ["Edit(./secret/**)"],
    target: () => "innocent.txt",
  },
  {
    name: "a chain of three links, the last one dangling",
    setup: ({ cwd }) => {
      fs.mkdirSync(path.join(cwd, "secret"));
      link("l2", path.join(cwd, "l1"));
      link(path.join(cwd, "l3"), path.join(cwd, "l2"));
      link("secret/new.txt", path.join(cwd, "l3"));
    },
    rules: () => ["Edit(./secret/**)"],
    target: () => "l1",
  },
  {
    name: "a chain through other folders with relative hops",
    setup: ({ cwd }) => {
      fs.mkdirSync(path.join(cwd, "secret"));
      link("../b/l2", path.join(cwd, "a/l1"));
      link("../secret/new.txt", path.join(cwd, "b/l2"));
    },
    rules: () => ["Edit(./secret/**)"],
    target: () => "a/l1",
  },
  {
    name: "a symlinked parent directory into the denied folder",
    setup: ({ cwd }) => {
      fs.mkdirSync(path.join(cwd, "secret"));
      link(path.join(cwd, "secret"), path.join(cwd, "notes"));
    },
    rules: () => ["Edit(./secret/**)"],
    target: () => "notes/new.txt",
  },
  {
    name: "a dangling symlinked parent directory (its target created by mkdir -p)",
    setup: ({ cwd }) => link("secret/sub", path.join(cwd, "notes")),
    rules: () => ["Edit(./secret/**)"],
    target: () => "notes/new.txt",
  },
  {
    name: "`..` inside a link target climbs from where the link points, not where it sits",
    setup: ({ cwd }) => {
      fs.mkdirSync(path.join(cwd, "other/secret"), { recursive: true });
      fs.mkdirSync(path.join(cwd, "other/deeper"));
      link(path.join(cwd, "other/deeper"), path.join(cwd, "x"));
      link("../secret/new.txt", path.join(cwd, "other/deeper/l"));
    },
    rules: () => ["Edit(./other/secret/**)"],
    target: () => "x/l",
  },
  {
    name: "`..` in a dangling target through a directory link",
    setup: ({ cwd }) => {
      fs.mkdirSync(path.join(cwd, "secret/a"), { recursive: true });
      link("secret/a/../b.txt", path.join(cwd, "innocent.txt"));
    },
    rules: () => ["Edit(./secret/**)"],
    target: () => "innocent.txt",
  },
  {
    name: "a link target that climbs `..` out of another directory link",
    setup: ({ cwd }) => {
      fs.mkdirSync(path.join(cwd, "other/secret"), { recursive: true });
      fs.mkdirSync(path.join(cwd, "other/deep"));
      link(path.join(cwd, "other/deep"), path.join(cwd, "a"));
      link("a/../secret/new.txt", path.join(cwd, "innocent.txt"));
    },
    rules: () => ["Edit(./other/secret/**)"],
    target: () => "innocent.txt",
  },
  {
    name: "a dangling link to a file outside the project under an absolute deny rule",
    setup: ({ cwd, outside }) => link(path.join(outside, "etc/new.conf"), path.join(cwd, "innocent.txt")),
    rules: ({ outside }) => [`Edit(/${outside}/etc/**)`],
    target: () => "innocent.txt",
  },
  {
    name: "a dangling link into ~/.ssh under a home rule",
    setup: ({ cwd, home }) => {
      fs.mkdirSync(path.join(home, ".ssh"));
      link(path.join(home, ".ssh/authorized_keys"), path.join(cwd, "keys.txt"));
    },
    rules: () => ["Edit(~/.ssh/**)"],
    target: () => "keys.txt",
  },
  {
    name: "a dangling link to a denied file name at any depth",
    setup: ({ cwd }) => link("config/prod.env", path.join(cwd, "innocent.txt")),
    rules: () => ["Edit(*.env)"],
    target: () => "innocent.txt",
  },
  {
    name: "a link to a link to a directory, then a new file",
    setup: ({ cwd }) => {
      fs.mkdirSync(path.join(cwd, "secret"));
      link("secret", path.join(cwd, "d1"));
      link("d1", path.join(cwd, "d2"));
    },
    rules: () => ["Edit(./secret/**)"],
    target: () => "d2/new.txt",
  },
  { name: "`..` in the given path", rules: () => ["Edit(./secret/**)"], target: () => "public/../secret/new.txt" },
  { name: "`./` and doubled slashes in the given path", rules: () => ["Edit(./secret/**)"], target: ({ cwd }) => `${cwd}/./secret//new.txt` },
  { name: "a trailing slash on the given path", rules: () => ["Edit(./secret/**)"], target: () => "secret/new/" },
  { name: "a differently cased path under a deny rule", rules: () => ["Edit(./Secret/**)"], target: () => "SECRET/new.txt" },
  { name: "a rule written with repeated ./", rules: () => ["Edit(././secret/**)"], target: () => "secret/new.txt" },
  { name: "a directory-only rule (trailing slash)", rules: () => ["Edit(./secret/)"], target: () => "secret/new.txt" },
  { name: "a bare name rule covers the folder at any depth", rules: () => ["Edit(secret)"], target: () => "a/b/secret/new.txt" },
  {
    name: "an NFD folder on disk under an NFC rule",
    setup: ({ cwd }) => fs.mkdirSync(path.join(cwd, CAFE_NFD)),
    rules: () => [`Edit(./${CAFE_NFC}/**)`],
    target: () => `${CAFE_NFD}/menu.txt`,
  },
  {
    name: "an NFC path under an NFD rule",
    setup: ({ cwd }) => fs.mkdirSync(path.join(cwd, CAFE_NFC)),
    rules: () => [`Edit(./${CAFE_NFD}/**)`],
    target: () => `${CAFE_NFC}/menu.txt`,
  },
  {
    name: "NFD and a different case together",
    rules: () => [`Edit(./${CAFE_NFC}/**)`],
    target: () => `${CAFE_NFD.toUpperCase()}/menu.txt`,
  },
  {
    name: "a dangling link whose target is spelled NFD, under an NFC rule",
    setup: ({ cwd }) => link(`${CAFE_NFD}/menu.txt`, path.join(cwd, "innocent.txt")),
    rules: () => [`Edit(./${CAFE_NFC}/**)`],
    target: () => "innocent.txt",
  },
];

const READ_ATTEMPTS: Attempt[] = [
  {
    name: "a symlink to the denied file",
    setup: ({ cwd }) => {
      write(path.join(cwd, "secret/key"));
      link("secret/key", path.join(cwd, "innocent.txt"));
    },
    rules: () => ["Read(./secret/**)"],
    target: () => "innocent.txt",
  },
  {
    name: "a chain of links to the denied file",
    setup: ({ cwd }) => {
      write(path.join(cwd, "secret/key"));
      link("../secret/key", path.join(cwd, "a/l1"));
      link("a/l1", path.join(cwd, "l2"));
    },
    rules: () => ["Read(./secret/**)"],
    target: () => "l2",
  },
  {
    name: "a symlinked parent directory",
    setup: ({ cwd }) => {
      write(path.join(cwd, "secret/key"));
      link("secret", path.join(cwd, "notes"));
    },
    rules: () => ["Read(./secret/**)"],
    target: () => "notes/key",
  },
  {
    name: "`..` inside a link target through a directory link",
    setup: ({ cwd }) => {
      write(path.join(cwd, "other/secret/key"));
      fs.mkdirSync(path.join(cwd, "other/deeper"));
      link(path.join(cwd, "other/deeper"), path.join(cwd, "x"));
      link("../secret/key", path.join(cwd, "other/deeper/l"));
    },
    rules: () => ["Read(./other/secret/**)"],
    target: () => "x/l",
  },
  {
    name: "an NFD folder on disk under an NFC rule",
    setup: ({ cwd }) => write(path.join(cwd, CAFE_NFD, "menu.txt")),
    rules: () => [`Read(./${CAFE_NFC}/**)`],
    target: () => `${CAFE_NFD}/menu.txt`,
  },
  {
    name: "an NFC folder on disk under an NFD rule",
    setup: ({ cwd }) => write(path.join(cwd, CAFE_NFC, "menu.txt")),
    rules: () => [`Read(./${CAFE_NFD}/**)`],
    target: () => `${CAFE_NFC}/menu.txt`,
  },
  {
    name: "a link with an NFC name to an NFD folder",
    setup: ({ cwd }) => {
      write(path.join(cwd, CAFE_NFD, "menu.txt"));
      link(CAFE_NFD, path.join(cwd, "menus"));
    },
    rules: () => [`Read(./${CAFE_NFC}/**)`],
    target: () => "menus/menu.txt",
  },
  { name: "a differently cased file name", setup: ({ cwd }) => write(path.join(cwd, ".ENV")), rules: () => ["Read(.env)"], target: () => ".ENV" },
  { name: "`./` and `..` spellings", setup: ({ cwd }) => write(path.join(cwd, "secret/key")), rules: () => ["Read(./secret/**)"], target: ({ cwd }) => `${cwd}/./pub/../secret/key` },
];

describe("Edit deny rules: every attempt to write around them is denied", () => {
  it.each(WRITE_ATTEMPTS.map((a) => [a.name, a] as const))("%s", (_name, attempt) => {
    attempt.setup?.(dirs());
    const ctx = permissionContext(cwd, attempt.rules(dirs()).map((r) => rule("deny", r)), "acceptEdits");
    const verdict = checkWritePermissionForPath(at(attempt.target(dirs())), ctx);
    expect(verdict.behavior).toBe("deny");
  });
});

describe("Read deny rules: every attempt to read around them is denied", () => {
  it.each(READ_ATTEMPTS.map((a) => [a.name, a] as const))("%s", (_name, attempt) => {
    attempt.setup?.(dirs());
    const ctx = permissionContext(cwd, attempt.rules(dirs()).map((r) => rule("deny", r)));
    const target = at(attempt.target(dirs()));
    expect(checkReadPermissionForPath(target, ctx).behavior).toBe("deny");
    // what Glob and Grep use to drop results
    expect(matchingReadDenyRule(target, ctx)).toBeDefined();
  });
});

describe("the check judges the file the writer writes", () => {
  it.each(WRITE_ATTEMPTS.filter((a) => a.setup).map((a) => [a.name, a] as const))("%s", (_name, attempt) => {
    attempt.setup?.(dirs());
    const given = at(attempt.target(dirs()));
    expect(resolveWriteTarget(given)).toBe(resolveRealPath(given));
  });

  it("a link loop is refused by the writer and does not crash the check", () => {
    link("l2", path.join(cwd, "l1"));
    link("l1", path.join(cwd, "l2"));
    const ctx = permissionContext(cwd, [rule("deny", "Edit(./secret/**)")], "acceptEdits");
    expect(() => checkWritePermissionForPath(path.join(cwd, "l1"), ctx)).not.toThrow();
    expect(() => resolveWriteTarget(path.join(cwd, "l1"))).toThrow(/Too many levels of symbolic links/);
  });

  it("a backslash in a link target is part of a file name on Linux, not a separator", () => {
    link("secret\\new.txt", path.join(cwd, "innocent.txt"));
    expect(resolveRealPath(path.join(cwd, "innocent.txt"))).toBe(path.join(cwd, "secret\\new.txt"));
    expect(resolveWriteTarget(path.join(cwd, "innocent.txt"))).toBe(path.join(cwd, "secret\\new.txt"));
  });

  it("a harmless dangling link (target allowed) still resolves to its target, and nothing more is denied", () => {
    link("notes/new.txt", path.join(cwd, "innocent.txt"));
    const ctx = permissionContext(cwd, [rule("deny", "Edit(./secret/**)")], "acceptEdits");
    expect(resolveRealPath(path.join(cwd, "innocent.txt"))).toBe(path.join(cwd, "notes/new.txt"));
    expect(checkWritePermissionForPath(path.join(cwd, "innocent.txt"), ctx).behavior).toBe("allow");
  });
});

describe("end to end through the real file tools", () => {
  function sessionWith(rules: string[]) {
    const ctx = permissionContext(cwd, rules.map((r) => rule("deny", r)), "acceptEdits");
    return session({ cwd, permissionContext: ctx });
  }

  it("Write through a dangling symlink into an Edit-denied folder is refused and creates nothing", async () => {
    fs.mkdirSync(path.join(cwd, "secret"));
    link("secret/planted.sh", path.join(cwd, "innocent.txt"));
    const s = sessionWith(["Edit(./secret/**)"]);
    const r = await s.run("Write", { file_path: "innocent.txt", content: "echo owned\n" });
    expect(r.outcome).not.toBe("success");
    expect(r.text).toContain("denied");
    expect(fs.existsSync(path.join(cwd, "secret/planted.sh"))).toBe(false);
    expect(fs.lstatSync(path.join(cwd, "innocent.txt")).isSymbolicLink()).toBe(true);
  });

  it("Write through a chain ending in a dangling link outside the project is refused", async () => {
    link("hop", path.join(cwd, "innocent.txt"));
    link(path.join(outside, "etc/new.conf"), path.join(cwd, "hop"));
    const s = sessionWith([`Edit(/${outside}/etc/**)`]);
    const r = await s.run("Write", { file_path: "innocent.txt", content: "x" });
    expect(r.outcome).not.toBe("success");
    expect(fs.existsSync(path.join(outside, "etc/new.conf"))).toBe(false);
  });

  it("NotebookEdit and Edit through a link to a denied file are refused", async () => {
    write(path.join(cwd, "secret/nb.ipynb"), JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 }));
    write(path.join(cwd, "secret/conf.txt"), "a = 1\n");
    link("secret/nb.ipynb", path.join(cwd, "nb.ipynb"));
    link("secret/conf.txt", path.join(cwd, "conf.txt"));
    const s = sessionWith(["Edit(./secret/**)"]);
    await s.run("Read", { file_path: "conf.txt" });
    const edit = await s.run("Edit", { file_path: "conf.txt", old_string: "a = 1", new_string: "a = 2" });
    expect(edit.outcome).not.toBe("success");
    expect(fs.readFileSync(path.join(cwd, "secret/conf.txt"), "utf8")).toBe("a = 1\n");
    await s.run("Read", { file_path: "nb.ipynb" });
    const nb = await s.run("NotebookEdit", { notebook_path: path.join(cwd, "nb.ipynb"), new_source: "print(1)", edit_mode: "insert", cell_type: "code" });
    expect(nb.outcome).not.toBe("success");
  });

  it("Write into an NFD folder under an NFC Edit deny rule is refused", async () => {
    fs.mkdirSync(path.join(cwd, CAFE_NFD));
    const s = sessionWith([`Edit(./${CAFE_NFC}/**)`]);
    const r = await s.run("Write", { file_path: `${CAFE_NFD}/menu.txt`, content: "x" });
    expect(r.outcome).not.toBe("success");
    expect(fs.existsSync(path.join(cwd, CAFE_NFD, "menu.txt"))).toBe(false);
  });

  it("Read of a file in an NFD folder under an NFC Read deny rule is refused; Grep and Glob do not show it", async () => {
    write(path.join(cwd, CAFE_NFD, "menu.txt"), "secret recipe\n");
    write(path.join(cwd, "public.txt"), "secret public\n");
    const ctx = permissionContext(cwd, [rule("deny", `Read(./${CAFE_NFC}/**)`)]);
    const s = session({ cwd, permissionContext: ctx, tools: [...FILE_TOOLS, GrepTool, GlobTool] });
    const read = await s.run("Read", { file_path: `${CAFE_NFD}/menu.txt` });
    expect(read.outcome).not.toBe("success");
    expect(read.text).not.toContain("recipe");
    const grep = await s.run("Grep", { pattern: "secret", output_mode: "content" });
    expect(grep.text).toContain("public");
    expect(grep.text).not.toContain("recipe");
    const glob = await s.run("Glob", { pattern: "**/*.txt" });
    expect(glob.text).toContain("public.txt");
    expect(glob.text).not.toContain("menu.txt");
  });

  it("ripgrep's exclusion globs cover the NFD spelling too", () => {
    write(path.join(cwd, CAFE_NFD, "menu.txt"), "x");
    write(path.join(cwd, "public.txt"), "x");
    const ctx = permissionContext(cwd, [rule("deny", `Read(./${CAFE_NFC}/**)`)]);
    const globs = readDenyGlobsForRoot(ctx, cwd).flatMap((g) => ["--glob", `!${g}`]);
    const files = execFileSync(rgPath, ["--files", ...globs], { cwd, encoding: "utf8" }).trim().split("\n");
    expect(files).toEqual(["public.txt"]);
  });
});
