/** Which program a language server runs: in an untrusted folder, never one the project (sandbox-writable) holds. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveServerCommand } from "../../src/lsp/command.js";
import { tempDir } from "../helpers.js";

function program(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, "#!/bin/sh\n", { mode: 0o755 });
  return file;
}

function layout() {
  const root = tempDir("toolgate-lspcmd-");
  const project = path.join(root, "project");
  const outside = path.join(root, "outside-bin");
  fs.mkdirSync(project);
  return { root, project, outside, safe: program(path.join(outside, "srv")) };
}

describe("resolveServerCommand", () => {
  it("trusted: the nearest node_modules/.bin first, up to the parents, then PATH", () => {
    const t = layout();
    const sub = path.join(t.project, "pkg");
    const parentBin = program(path.join(t.root, "node_modules", ".bin", "srv"));
    fs.mkdirSync(sub);
    expect(resolveServerCommand("srv", { dirs: [sub], env: { PATH: t.outside }, trusted: true })).toEqual({ program: parentBin, skipped: [] });
    const local = program(path.join(sub, "node_modules", ".bin", "srv"));
    expect(resolveServerCommand("srv", { dirs: [sub], env: { PATH: t.outside }, trusted: true }).program).toBe(local);
    const relative = program(path.join(t.project, "bin", "x"));
    expect(resolveServerCommand("./bin/x", { dirs: [t.project], env: {}, trusted: true })).toEqual({ program: relative, skipped: [] });
  });

  it("untrusted: the project's node_modules/.bin is passed over (and said), PATH outside the project is used", () => {
    const t = layout();
    const planted = program(path.join(t.project, "node_modules", ".bin", "srv"));
    expect(resolveServerCommand("srv", { dirs: [t.project], env: { PATH: t.outside }, trusted: false })).toEqual({ program: t.safe, skipped: [planted] });
    expect(resolveServerCommand("srv", { dirs: [t.project], env: {}, trusted: false })).toEqual({ skipped: [planted] });
  });

  it("untrusted: no node_modules/.bin above the project either, only PATH", () => {
    const t = layout();
    program(path.join(t.root, "node_modules", ".bin", "srv"));
    expect(resolveServerCommand("srv", { dirs: [t.project], env: {}, trusted: false })).toEqual({ skipped: [] });
  });

  it("untrusted: a node_modules/.bin link to a program outside is still the project's choice, and passed over", () => {
    const t = layout();
    const link = path.join(t.project, "node_modules", ".bin", "srv");
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(t.safe, link);
    expect(resolveServerCommand("srv", { dirs: [t.project], env: {}, trusted: false })).toEqual({ skipped: [link] });
  });

  it("untrusted: relative and absolute paths into the project are passed over; a path outside is taken", () => {
    const t = layout();
    const inside = program(path.join(t.project, "bin", "server"));
    for (const spelling of ["./bin/server", "bin/server", "bin/../bin/server", inside, `${t.project}//bin/./server`]) {
      expect(resolveServerCommand(spelling, { dirs: [t.project], env: {}, trusted: false }), spelling).toEqual({ skipped: [inside] });
    }
    expect(resolveServerCommand(t.safe, { dirs: [t.project], env: {}, trusted: false })).toEqual({ program: t.safe, skipped: [] });
    expect(resolveServerCommand(`../outside-bin/srv`, { dirs: [t.project], env: {}, trusted: false })).toEqual({ program: t.safe, skipped: [] });
  });

  it("untrusted: PATH entries inside the project, relative ones, and ones leading into it by a symlink are passed over", () => {
    const t = layout();
    const inBin = program(path.join(t.project, "bin", "srv"));
    const viaLinkDir = path.join(t.root, "linked-bin");
    fs.symlinkSync(path.join(t.project, "bin"), viaLinkDir);
    const viaLinkFile = path.join(t.root, "file-link-bin", "srv");
    fs.mkdirSync(path.dirname(viaLinkFile));
    fs.symlinkSync(inBin, viaLinkFile);
    for (const entry of [path.join(t.project, "bin"), "bin", "./bin", viaLinkDir, path.dirname(viaLinkFile)]) {
      const found = resolveServerCommand("srv", { dirs: [t.project], env: { PATH: [entry, t.outside].join(path.delimiter) }, trusted: false });
      expect(found.program, entry).toBe(t.safe);
      expect(found.skipped, entry).toHaveLength(1);
    }
  });

  it("untrusted: the project named through a symlink is still the project", () => {
    const t = layout();
    const alias = path.join(t.root, "alias");
    fs.symlinkSync(t.project, alias);
    program(path.join(t.project, "bin", "srv"));
    expect(resolveServerCommand("srv", { dirs: [alias], env: { PATH: path.join(t.project, "bin") }, trusted: false }).program).toBeUndefined();
    expect(resolveServerCommand("srv", { dirs: [t.project], env: { PATH: path.join(alias, "bin") }, trusted: false }).program).toBeUndefined();
  });
});
