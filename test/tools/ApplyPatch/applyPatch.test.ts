import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { createEmptyPermissionContext, rewindFiles } from "../../../src/core/context.js";
import type { PermissionRule } from "../../../src/core/permissionTypes.js";
import { ApplyPatchTool } from "../../../src/tools/ApplyPatch/index.js";
import { parsePatch } from "../../../src/tools/ApplyPatch/parse.js";
import { applyHunks } from "../../../src/tools/ApplyPatch/hunks.js";
import { rejectAll, tempDir } from "../../helpers.js";
import { FILE_TOOLS, session, type Session } from "../files/harness.js";

const TOOL = "apply_patch";
const tools = [...FILE_TOOLS, ApplyPatchTool];
const patch = (...body: string[]) => ["*** Begin Patch", ...body, "*** End Patch"].join("\n");

function patcher(options: Parameters<typeof session>[0] = {}) {
  return session({ tools, ...options });
}

async function readAll(s: Session, ...names: string[]) {
  for (const name of names) expect((await s.run("Read", { file_path: name })).outcome).toBe("success");
}

/** Every file under the session's directory with its content, to compare before and after. */
function snapshot(s: Session): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(s.dir, { recursive: true, withFileTypes: true })) {
    const full = `${entry.parentPath}/${entry.name}`;
    out[full.slice(s.dir.length + 1) + (entry.isDirectory() ? "/" : "")] = entry.isFile() ? fs.readFileSync(full, "utf8") : "";
  }
  return out;
}

const rule = (ruleBehavior: "allow" | "deny" | "ask", toolName: string, ruleContent?: string): PermissionRule => ({
  source: "session",
  ruleBehavior,
  ruleValue: ruleContent === undefined ? { toolName } : { toolName, ruleContent },
});

describe("apply_patch: the V4A format", () => {
  it("adds, updates, moves and deletes files in one patch", async () => {
    const s = patcher();
    s.write("src/app.py", "def greet():\n    print(\"Hi\")\n\ndef other():\n    pass\n");
    s.write("old.txt", "bye\n");
    s.write("keep.txt", "a\nb\nc\n");
    await readAll(s, "src/app.py", "old.txt", "keep.txt");
    const r = await s.run(
      TOOL,
      {
        input: patch(
          "*** Add File: docs/hello.txt",
          "+Hello",
          "+world",
          "*** Update File: src/app.py",
          "*** Move to: src/main.py",
          "@@ def greet():",
          '-    print("Hi")',
          '+    print("Hello")',
          "*** Update File: keep.txt",
          "@@",
          " a",
          "-b",
          "+B",
          " c",
          "*** Delete File: old.txt",
        ),
      },
      "m1",
    );
    expect(r.outcome).toBe("success");
    expect(r.text).toContain("A docs/hello.txt (+2 -0)");
    expect(r.text).toContain("R src/app.py → src/main.py (+1 -1)");
    expect(r.text).toContain("M keep.txt (+1 -1)");
    expect(r.text).toContain("D old.txt");
    expect(s.read("docs/hello.txt")).toBe("Hello\nworld\n");
    expect(s.read("src/main.py")).toBe('def greet():\n    print("Hello")\n\ndef other():\n    pass\n');
    expect(fs.existsSync(s.file("src/app.py"))).toBe(false);
    expect(fs.existsSync(s.file("old.txt"))).toBe(false);
    expect(s.read("keep.txt")).toBe("a\nB\nc\n");

    // Moves and deletes are checkpointed: rewinding restores all four files as they were.
    rewindFiles(s.ctx, "m1");
    expect(s.read("src/app.py")).toBe('def greet():\n    print("Hi")\n\ndef other():\n    pass\n');
    expect(s.read("old.txt")).toBe("bye\n");
    expect(s.read("keep.txt")).toBe("a\nb\nc\n");
    expect(fs.existsSync(s.file("src/main.py"))).toBe(false);
    expect(fs.existsSync(s.file("docs/hello.txt"))).toBe(false);
  });

  it("keeps CRLF line endings and a missing final newline", async () => {
    const s = patcher();
    s.write("w.txt", "one\r\ntwo\r\nthree");
    await readAll(s, "w.txt");
    const r = await s.run(TOOL, { input: patch("*** Update File: w.txt", "@@", " two", "-three", "+THREE", "+four") });
    expect(r.outcome).toBe("success");
    expect(fs.readFileSync(s.file("w.txt"), "utf8")).toBe("one\r\ntwo\r\nTHREE\r\nfour");
  });

  it("refuses what it cannot parse, saying which line and what it should be", async () => {
    const s = patcher();
    expect((await s.run(TOOL, { input: "*** Update File: a\n@@\n-x\n+y\n*** End Patch" })).text).toContain('starts with "*** Begin Patch"');
    expect((await s.run(TOOL, { input: "*** Begin Patch\n*** Add File: a\n+x" })).text).toContain('ends with "*** End Patch"');
    expect((await s.run(TOOL, { input: patch("*** Add File: a", "no plus") })).text).toContain('Patch line 3: every line of an added file starts with "+"');
    expect((await s.run(TOOL, { input: patch("*** Update File: a", "@@", "*x") })).text).toContain("a hunk line starts with");
    expect((await s.run(TOOL, { input: patch("*** Update File: a", "@@", " same") })).text).toContain("changes nothing");
    expect((await s.run(TOOL, { input: patch() })).text).toContain("no file operations");
  });

  it("refuses an update of a file not read in this session, and one changed since", async () => {
    const s = patcher();
    s.write("a.txt", "x\n");
    const unread = await s.run(TOOL, { input: patch("*** Update File: a.txt", "@@", "-x", "+y") });
    expect(unread.outcome).toBe("invalid_input");
    expect(unread.text).toContain("must be read before");
    await readAll(s, "a.txt");
    s.write("a.txt", "x\nmore\n");
    const stale = await s.run(TOOL, { input: patch("*** Update File: a.txt", "@@", "-x", "+y") });
    expect(stale.text).toContain("has changed since you last read it");
    expect(s.read("a.txt")).toBe("x\nmore\n");
  });

  it("refuses Add File over an existing file, a move onto an existing path, and one file named twice", async () => {
    const s = patcher();
    s.write("a.txt", "x\n");
    s.write("b.txt", "y\n");
    await readAll(s, "a.txt", "b.txt");
    expect((await s.run(TOOL, { input: patch("*** Add File: a.txt", "+z") })).text).toContain('use "*** Update File:"');
    expect((await s.run(TOOL, { input: patch("*** Update File: a.txt", "*** Move to: b.txt") })).text).toContain("already exists");
    expect((await s.run(TOOL, { input: patch("*** Update File: a.txt", "@@", "-x", "+1", "*** Delete File: ./a.txt") })).text).toContain("appears more than once");
    expect(s.read("a.txt")).toBe("x\n");
    expect(s.read("b.txt")).toBe("y\n");
  });
});

describe("apply_patch: hunk matching never guesses", () => {
  const hunk = (lines: string[], anchor?: string, atEnd = false) => ({
    anchor,
    atEnd,
    patchLine: 1,
    lines: lines.map((l) => ({ kind: l[0] === "+" ? ("add" as const) : l[0] === "-" ? ("remove" as const) : ("context" as const), text: l.slice(1) })),
  });

  it("refuses a hunk that matches two places, with both lines, and takes an @@ line to disambiguate", () => {
    const text = "def a():\n    return 1\n\ndef b():\n    return 1\n";
    const twice = applyHunks(text, [hunk(["-    return 1", "+    return 2"])], "f.py");
    expect(twice.ok).toBe(false);
    expect(!twice.ok && twice.code).toBe("ambiguous");
    expect(!twice.ok && twice.message).toContain("matches 2 places, at lines 2, 5");
    const anchored = applyHunks(text, [hunk(["-    return 1", "+    return 2"], "def b():")], "f.py");
    expect(anchored.ok && anchored.replacements).toEqual([{ start: text.indexOf("    return 1", 20), end: text.length, text: "    return 2\n" }]);
  });

  it("tolerates trailing whitespace, then indentation, each only for a single place", () => {
    const text = "if x:\n\tcall(a,  b)   \n";
    const loose = applyHunks(text, [hunk([" if x:", "-    call(a, b)", "+\tcall(a, c)"])], "f");
    expect(loose.ok && loose.tiers).toEqual(["whitespace"]);
    const twice = applyHunks("x = 1 \n  x = 1\nx = 1\t\n", [hunk(["-x = 1", "+x = 2"])], "f");
    expect(twice.ok).toBe(false);
    expect(!twice.ok && twice.message).toContain("matches 2 places once whitespace at line ends was ignored, at lines 1, 3");
  });

  it("*** End of File pins a hunk to the end; a hunk that is not there says where the file differs", () => {
    const text = "a\nb\na\nb\n";
    const end = applyHunks(text, [hunk([" a", "-b", "+B"], undefined, true)], "f");
    expect(end.ok && end.replacements[0].start).toBe(4);
    const missing = applyHunks("alpha\nbeta\ngamma\n", [hunk([" alpha", "-betta", "+BETA"])], "f");
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.message).toContain("were not found");
    expect(!missing.ok && missing.message).toContain("1\talpha");
  });

  it("hunks apply in order, each after the previous one", () => {
    const text = "x\ny\nx\ny\n";
    const two = applyHunks(text, [hunk(["-x", "+1", " y"]), hunk(["-x", "+2", " y"])], "f");
    expect(two.ok).toBe(false); // the first hunk alone is ambiguous
    const ordered = applyHunks(text, [hunk(["-x", "+1", " y", " x"]), hunk(["-y", "+2"])], "f");
    expect(ordered.ok && ordered.replacements.map((r) => r.start)).toEqual([0, 6]);
  });

  it("parsePatch drops bare empty lines between files and accepts a first hunk without @@", () => {
    const parsed = parsePatch(patch("*** Update File: a", " x", "-y", "+z", "", "*** Delete File: b"));
    expect(parsed.ok && parsed.operations).toEqual([
      { kind: "update", path: "a", hunks: [{ anchor: undefined, atEnd: false, patchLine: 3, lines: [{ kind: "context", text: "x" }, { kind: "remove", text: "y" }, { kind: "add", text: "z" }] }] },
      { kind: "delete", path: "b" },
    ]);
  });
});

describe("apply_patch: all or nothing across files", () => {
  async function threeFiles() {
    const s = patcher();
    s.write("one.txt", "1\n");
    s.write("two.txt", "2\n");
    s.write("three.txt", "3\n");
    await readAll(s, "one.txt", "two.txt", "three.txt");
    return s;
  }
  const firstTwo = ["*** Update File: one.txt", "@@", "-1", "+ONE", "*** Delete File: two.txt"];

  it("a third hunk that does not match leaves every file untouched", async () => {
    const s = await threeFiles();
    const before = snapshot(s);
    const r = await s.run(TOOL, { input: patch(...firstTwo, "*** Update File: three.txt", "@@", "-not there", "+x") });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("Operation 3 of 3 (update three.txt) failed");
    expect(r.text).toContain("Nothing was changed");
    expect(snapshot(s)).toEqual(before);
  });

  it("a read-only third file leaves every file untouched", async () => {
    const s = await threeFiles();
    fs.chmodSync(s.file("three.txt"), 0o444);
    const before = snapshot(s);
    const r = await s.run(TOOL, { input: patch(...firstTwo, "*** Update File: three.txt", "@@", "-3", "+THREE") });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("read-only");
    expect(snapshot(s)).toEqual(before);
  });

  it("a third target that is a directory leaves every file untouched", async () => {
    const s = await threeFiles();
    fs.mkdirSync(s.file("adir"));
    const before = snapshot(s);
    const r = await s.run(TOOL, { input: patch(...firstTwo, "*** Delete File: adir") });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("is a directory");
    expect(snapshot(s)).toEqual(before);
  });

  it("a write that fails at the third file rolls back the first two (and the directories made for them)", async () => {
    const s = await threeFiles();
    s.write("blocker", "a plain file where a directory is needed\n");
    const before = snapshot(s);
    const r = await s.run(
      TOOL,
      { input: patch(...firstTwo, "*** Add File: new/deep/made.txt", "+m", "*** Add File: blocker/inside.txt", "+x") },
      "m1",
    );
    expect(r.outcome).toBe("tool_error");
    expect(r.text).toContain("Writing failed at add blocker/inside.txt");
    expect(r.text).toContain("Every file the patch had already changed was restored");
    expect(snapshot(s)).toEqual(before);
    // The files read before are still known as read: a corrected patch needs no re-read.
    const again = await s.run(TOOL, { input: patch(...firstTwo) });
    expect(again.outcome).toBe("success");
    expect(s.read("one.txt")).toBe("ONE\n");
  });
});

describe("apply_patch permissions: every path of the patch", () => {
  function guarded(rules: PermissionRule[], mode: "default" | "acceptEdits" = "default") {
    const dir = tempDir();
    return patcher({ cwd: dir, canUseTool: rejectAll, permissionContext: { ...createEmptyPermissionContext(dir), mode, rules } });
  }

  it("one denied path denies the whole patch, naming it and all paths", async () => {
    const s = guarded([rule("deny", "Edit", "./secret/**"), rule("allow", "Edit", "./**")]);
    const r = await s.run(TOOL, { input: patch("*** Add File: ok.txt", "+fine", "*** Add File: secret/x.txt", "+no") });
    expect(r.outcome).not.toBe("success");
    expect(r.text).toContain("denied");
    expect(r.text).toContain("secret/x.txt");
    expect(fs.existsSync(s.file("ok.txt"))).toBe(false);
  });

  it("a move target is judged too: moving a file into a denied directory is refused", async () => {
    const s = guarded([rule("deny", "Edit", "./secret/**"), rule("allow", "Edit", "./**")]);
    s.write("a.txt", "a\n");
    await readAll(s, "a.txt");
    const r = await s.run(TOOL, { input: patch("*** Update File: a.txt", "*** Move to: secret/a.txt") });
    expect(r.outcome).not.toBe("success");
    expect(fs.existsSync(s.file("secret/a.txt"))).toBe(false);
    expect(s.read("a.txt")).toBe("a\n");
  });

  it("one path that needs approval asks for the whole patch, listing every path; refused, nothing is written", async () => {
    const s = guarded([rule("allow", "Edit", "./src/**")]);
    const r = await s.run(TOOL, { input: patch("*** Add File: src/a.txt", "+a", "*** Add File: docs/b.txt", "+b") });
    expect(r.outcome).toBe("denied");
    expect(fs.existsSync(s.file("src/a.txt"))).toBe(false);
    const verdict = await ApplyPatchTool.checkPermissions({ input: patch("*** Add File: src/a.txt", "+a", "*** Add File: docs/b.txt", "+b") }, s.ctx);
    expect(verdict.behavior).toBe("passthrough");
    expect("message" in verdict && verdict.message).toContain("The patch changes 2 files: src/a.txt, docs/b.txt.");
  });

  it("a protected path (.git/) asks even in acceptEdits, whatever the other paths", async () => {
    const s = guarded([], "acceptEdits");
    const verdict = await ApplyPatchTool.checkPermissions({ input: patch("*** Add File: a.txt", "+a", "*** Add File: .git/hooks/pre-commit", "+evil") }, s.ctx);
    expect(verdict.behavior).toBe("ask");
    const r = await s.run(TOOL, { input: patch("*** Add File: a.txt", "+a", "*** Add File: .git/hooks/pre-commit", "+evil") });
    expect(r.outcome).toBe("denied");
    expect(fs.existsSync(s.file("a.txt"))).toBe(false);
  });

  it("a path that climbs out of the working directory needs approval even in acceptEdits; refused, nothing written", async () => {
    const s = guarded([], "acceptEdits");
    const outside = `../${s.dir.split("/").pop()}-outside.txt`;
    const r = await s.run(TOOL, { input: patch("*** Add File: inside.txt", "+a", `*** Add File: ${outside}`, "+b") });
    expect(r.outcome).toBe("denied");
    expect(fs.existsSync(s.file("inside.txt"))).toBe(false);
    expect(fs.existsSync(`${s.dir}-outside.txt`)).toBe(false);
  });

  it("a symlink into a denied directory does not let an update, a delete or a move target through", async () => {
    const s = guarded([rule("deny", "Edit", "./secret/**"), rule("allow", "Edit", "./**")]);
    s.write("secret/k.txt", "k\n");
    s.write("a.txt", "a\n");
    fs.symlinkSync(s.file("secret"), s.file("link"));
    await readAll(s, "link/k.txt", "a.txt");
    for (const body of [
      ["*** Update File: link/k.txt", "@@", "-k", "+K"],
      ["*** Delete File: link/k.txt"],
      ["*** Update File: a.txt", "*** Move to: link/a.txt"],
      ["*** Add File: link/new.txt", "+n"],
    ]) {
      expect((await s.run(TOOL, { input: patch(...body) })).outcome).not.toBe("success");
    }
    expect(s.read("secret/k.txt")).toBe("k\n");
    expect(s.read("a.txt")).toBe("a\n");
    expect(fs.readdirSync(s.file("secret"))).toEqual(["k.txt"]);
  });

  it("a file header hidden in a hunk is a header for the permission check too (both read the same parse)", async () => {
    const s = guarded([rule("deny", "Edit", "./secret/**"), rule("allow", "Edit", "./**")]);
    s.write("a.txt", "a\n");
    await readAll(s, "a.txt");
    const r = await s.run(TOOL, { input: patch("*** Update File: a.txt", "@@", "-a", "+b", "*** Add File:   secret/x.txt  ", "+x") });
    expect(r.outcome).not.toBe("success");
    expect(fs.existsSync(s.file("secret/x.txt"))).toBe(false);
    expect(s.read("a.txt")).toBe("a\n");
  });

  it("paths in acceptEdits inside the working directory are allowed", async () => {
    const s = guarded([], "acceptEdits");
    const r = await s.run(TOOL, { input: patch("*** Add File: a.txt", "+a", "*** Add File: b/c.txt", "+c") });
    expect(r.outcome).toBe("success");
  });
});
