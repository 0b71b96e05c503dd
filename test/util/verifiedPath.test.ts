import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeVerifiedDirectory, openVerifiedDirectory, openVerifiedFile, PathChangedError, identityAt } from "../../src/util/verifiedPath.js";
import { writeFileAtomicSync } from "../../src/util/atomicWrite.js";
import { tempDir } from "../helpers.js";

const { O_RDONLY } = fs.constants;

describe("verified opens", () => {
  it("opens the checked real path and reads it", () => {
    const dir = tempDir();
    const file = path.join(dir, "a.txt");
    fs.writeFileSync(file, "a\n");
    const fd = openVerifiedFile(file, O_RDONLY, identityAt(file));
    try {
      expect(fs.readFileSync(fd, "utf8")).toBe("a\n");
    } finally {
      fs.closeSync(fd);
    }
  });

  it("refuses when a directory on the real path became a symlink, whatever it points to", () => {
    const dir = tempDir();
    const other = tempDir();
    fs.writeFileSync(path.join(other, "a.txt"), "other\n");
    const sub = path.join(dir, "sub");
    fs.symlinkSync(other, sub);
    expect(() => openVerifiedFile(path.join(sub, "a.txt"), O_RDONLY)).toThrow(PathChangedError);
    expect(() => openVerifiedDirectory(sub)).toThrow(PathChangedError);
  });

  it("refuses when the final component became a symlink", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "target.txt"), "t\n");
    fs.symlinkSync(path.join(dir, "target.txt"), path.join(dir, "a.txt"));
    expect(() => openVerifiedFile(path.join(dir, "a.txt"), O_RDONLY)).toThrow(PathChangedError);
  });

  it("refuses another file at the same path when the identity is given", () => {
    const dir = tempDir();
    const file = path.join(dir, "a.txt");
    fs.writeFileSync(file, "a\n");
    const before = identityAt(file);
    fs.writeFileSync(path.join(dir, "b.txt"), "b\n");
    fs.renameSync(path.join(dir, "b.txt"), file);
    expect(() => openVerifiedFile(file, O_RDONLY, before)).toThrow(PathChangedError);
  });

  it("a link loop stays a loop error, not a change", () => {
    const dir = tempDir();
    fs.symlinkSync(path.join(dir, "b"), path.join(dir, "a"));
    fs.symlinkSync(path.join(dir, "a"), path.join(dir, "b"));
    expect(() => openVerifiedFile(path.join(dir, "a"), O_RDONLY)).toThrow(expect.objectContaining({ code: "ELOOP" }));
  });

  it("makes missing directories through their verified parents and never follows a planted symlink", () => {
    const dir = tempDir();
    const outside = tempDir();
    const made = makeVerifiedDirectory(path.join(dir, "x", "y", "z"));
    made.close();
    expect(fs.statSync(path.join(dir, "x", "y", "z")).isDirectory()).toBe(true);

    fs.symlinkSync(outside, path.join(dir, "planted"));
    expect(() => makeVerifiedDirectory(path.join(dir, "planted", "deeper"))).toThrow(PathChangedError);
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it("writeFileAtomicSync writes through a symlinked file to its target and keeps the link", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "real.txt"), "old\n");
    fs.symlinkSync(path.join(dir, "real.txt"), path.join(dir, "link.txt"));
    const { target } = writeFileAtomicSync(path.join(dir, "link.txt"), "new\n");
    expect(target).toBe(path.join(dir, "real.txt"));
    expect(fs.lstatSync(path.join(dir, "link.txt")).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(path.join(dir, "real.txt"), "utf8")).toBe("new\n");
    expect(fs.readdirSync(dir).sort()).toEqual(["link.txt", "real.txt"]);
  });
});
