import fs from "node:fs";
import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { createEmptyPermissionContext } from "../../../src/core/context.js";
import { WriteTool } from "../../../src/tools/Write/index.js";
import { tempDir } from "../../helpers.js";
import { session, touch } from "../files/harness.js";

describe("Write", () => {
  it("creates a new file and its parent directories without a read", async () => {
    const s = session();
    const r = await s.run("Write", { file_path: "deep/er/new.txt", content: "one\ntwo\n" });
    expect(r.outcome).toBe("success");
    expect(r.text).toBe("Created deep/er/new.txt (2 lines).");
    expect(s.read("deep/er/new.txt")).toBe("one\ntwo\n");
    expect((r.output as { type: string }).type).toBe("create");
  });

  it("refuses an existing file that was not read", async () => {
    const s = session();
    s.write("a.txt", "precious\n");
    const r = await s.run("Write", { file_path: "a.txt", content: "gone" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("has not been read in this session");
    expect(s.read("a.txt")).toBe("precious\n");
  });

  it("refuses an existing file seen only in part", async () => {
    const s = session();
    s.write("a.txt", "l1\nl2\nl3\n");
    await s.run("Read", { file_path: "a.txt", limit: 2 });
    const r = await s.run("Write", { file_path: "a.txt", content: "new\n" });
    expect(r.text).toContain("you have only seen part of it (Read showed it from line 1, at most 2 lines");
    expect(s.read("a.txt")).toBe("l1\nl2\nl3\n");
  });

  it("overwrites a fully read file, reporting the change", async () => {
    const s = session();
    s.write("a.txt", "l1\nl2\n");
    await s.run("Read", { file_path: "a.txt" });
    const r = await s.run("Write", { file_path: "a.txt", content: "l1\nL2\nl3\n" });
    expect(r.outcome).toBe("success");
    expect(r.text).toBe("Updated a.txt (now 3 lines: 2 lines added, 1 removed).");
    expect((r.output as { originalFile: string }).originalFile).toBe("l1\nl2\n");
    expect(s.read("a.txt")).toBe("l1\nL2\nl3\n");
  });

  it("refuses a stale file but allows a content-identical touch; writes again without re-reading", async () => {
    const s = session();
    s.write("a.txt", "v1\n");
    await s.run("Read", { file_path: "a.txt" });
    touch(s.file("a.txt"));
    expect((await s.run("Write", { file_path: "a.txt", content: "v2\n" })).outcome).toBe("success");
    expect((await s.run("Write", { file_path: "a.txt", content: "v3\n" })).outcome).toBe("success");
    fs.writeFileSync(s.file("a.txt"), "someone else\n");
    touch(s.file("a.txt"), 20_000);
    const r = await s.run("Write", { file_path: "a.txt", content: "v4\n" });
    expect(r.text).toContain("has changed since you last read it");
    expect(s.read("a.txt")).toBe("someone else\n");
  });

  it("keeps CRLF line endings and the encoding of an existing file", async () => {
    const s = session();
    s.write("w.txt", "a\r\nb\r\n");
    await s.run("Read", { file_path: "w.txt" });
    await s.run("Write", { file_path: "w.txt", content: "x\ny\n" });
    expect(fs.readFileSync(s.file("w.txt"), "latin1")).toBe("x\r\ny\r\n");

    s.write("u16.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("alt\n", "utf16le")]));
    await s.run("Read", { file_path: "u16.txt" });
    await s.run("Write", { file_path: "u16.txt", content: "neu ✓\n" });
    const out = fs.readFileSync(s.file("u16.txt"));
    expect([...out.subarray(0, 2)]).toEqual([0xff, 0xfe]);
    expect(out.subarray(2).toString("utf16le")).toBe("neu ✓\n");

    s.write("l.txt", iconv.encode("déjà vu, très bien, voilà — encore une fois\n", "windows-1252"));
    await s.run("Read", { file_path: "l.txt" });
    await s.run("Write", { file_path: "l.txt", content: "déjà fait\n" });
    expect(iconv.decode(fs.readFileSync(s.file("l.txt")), "windows-1252")).toBe("déjà fait\n");
  });

  it("keeps the mode of an existing file and writes through symlinks", async () => {
    const s = session();
    const target = s.write("bin/tool.sh", "#!/bin/sh\n");
    fs.chmodSync(target, 0o755);
    fs.symlinkSync(target, s.file("tool"));
    await s.run("Read", { file_path: "tool" });
    expect((await s.run("Write", { file_path: "tool", content: "#!/bin/sh\necho hi\n" })).outcome).toBe("success");
    expect(fs.lstatSync(s.file("tool")).isSymbolicLink()).toBe(true);
    expect(fs.statSync(target).mode & 0o7777).toBe(0o755);
    expect(fs.readFileSync(target, "utf8")).toBe("#!/bin/sh\necho hi\n");
  });

  it("refuses directories and Edit-denied paths", async () => {
    const dir = tempDir();
    const permissionContext = {
      ...createEmptyPermissionContext(dir),
      rules: [{ source: "session" as const, ruleBehavior: "deny" as const, ruleValue: { toolName: "Edit", ruleContent: "*.lock" } }],
    };
    const s = session({ cwd: dir, permissionContext });
    fs.mkdirSync(s.file("d"));
    expect((await s.run("Write", { file_path: "d", content: "x" })).text).toContain("is a directory");
    const r = await s.run("Write", { file_path: "yarn.lock", content: "x" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("denied");
    expect(fs.existsSync(s.file("yarn.lock"))).toBe(false);
  });

  it("is a writer", () => {
    expect(WriteTool.isReadOnly({ file_path: "x", content: "" })).toBe(false);
    expect(WriteTool.isConcurrencySafe({ file_path: "x", content: "" })).toBe(false);
  });
});
