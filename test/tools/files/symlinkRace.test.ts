/**
 * Check and use must be the same file. The permission check resolves a path (deny rules, working
 * directories, safety paths); the tool then opens it. A symlink flipped in between must never make Read
 * return a denied file, or Write/Edit land outside the directory that was allowed: the tool fails closed
 * with an error saying the file changed during the operation.
 *
 * Two kinds of tests: a real racing process that flips a symlink as fast as it can while the tools run,
 * and deterministic ones that make the swap inside the permission prompt (canUseTool), which runs after
 * the check and before the call, so the race window is hit every time.
 */
import fs from "node:fs";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import type { CanUseToolFn } from "../../../src/core/Tool.js";
import type { PermissionMode } from "../../../src/core/permissionTypes.js";
import { hasPermissionsToUseTool } from "../../../src/permissions/index.js";
import { ReadTool } from "../../../src/tools/Read/index.js";
import { permissionContext, rule } from "../../permissions/helpers.js";
import { rejectAll, tempDir } from "../../helpers.js";
import { makePdf } from "../Read/fixtures.js";
import { session, type Session } from "./harness.js";

const SECRET = "SECRET-KEY-d41d8cd98f00b204";
const CHANGED = /changed during the operation/;

interface Layout {
  cwd: string;
  outside: string;
  secretFile: string;
}

function layout(): Layout {
  const cwd = tempDir("toolgate-race-cwd-");
  const outside = tempDir("toolgate-race-outside-");
  const secretDir = tempDir("toolgate-race-ssh-");
  const secretFile = path.join(secretDir, "id_rsa");
  fs.writeFileSync(secretFile, `${SECRET}\n`);
  return { cwd, outside, secretFile };
}

function raceSession(l: Layout, mode: PermissionMode, canUseTool: CanUseToolFn): Session {
  const secretDir = path.dirname(l.secretFile);
  const ctx = permissionContext(l.cwd, [rule("deny", `Read(/${secretDir}/**)`), rule("deny", `Edit(/${secretDir}/**)`)], mode);
  return session({ cwd: l.cwd, permissionContext: ctx, permissionDecider: hasPermissionsToUseTool, canUseTool });
}

/** Swap `link` to point at `target`, atomically (a new link renamed over the old one). */
function pointLink(link: string, target: string): void {
  const tmp = `${link}.swap`;
  fs.rmSync(tmp, { force: true });
  fs.symlinkSync(target, tmp);
  fs.renameSync(tmp, link);
}

const racers: ChildProcess[] = [];
afterEach(async () => {
  for (const child of racers.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, "exit");
      child.kill("SIGKILL");
      await exited;
    }
  }
});

/** Runs `loop` (JavaScript, with `fs` and `args` in scope) forever in a separate process; resolves once it has run twice. */
async function startRacer(loop: string, args: string[]): Promise<void> {
  const script = `
    const fs = require("fs");
    const args = process.argv.slice(1);
    for (let n = 1; ; n++) {
      try { ${loop} } catch {}
      if (n === 2) process.stdout.write("ready\\n");
    }`;
  const child = spawn(process.execPath, ["-e", script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  racers.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`racer exited early (${code})`)));
  });
}

/** Flips the symlink `link` between `a` and `b` (a new link renamed over the old, so the path always exists). */
function startFlipper(link: string, a: string, b: string): Promise<void> {
  return startRacer(
    `const [link, a, b] = args;
     fs.rmSync(link + ".flip", { force: true }); fs.symlinkSync(a, link + ".flip"); fs.renameSync(link + ".flip", link);
     fs.rmSync(link + ".flip", { force: true }); fs.symlinkSync(b, link + ".flip"); fs.renameSync(link + ".flip", link);`,
    [link, a, b],
  );
}

/**
 * Swaps the real directory `dir` for a symlink to `elsewhere` and back, by renames, so the real path the
 * check resolved (which goes through `dir`) itself leads elsewhere for a moment. A directory a writer made
 * while `dir` was away is removed, so the swap keeps going.
 */
function startDirectorySwapper(dir: string, elsewhere: string): Promise<void> {
  fs.symlinkSync(elsewhere, `${dir}.link`);
  return startRacer(
    `const [dir] = args;
     const step = (f) => { try { f(); } catch {} };
     step(() => fs.renameSync(dir, dir + ".real"));
     step(() => fs.renameSync(dir + ".link", dir));
     step(() => fs.renameSync(dir, dir + ".link"));
     step(() => fs.rmSync(dir, { recursive: true, force: true }));
     step(() => fs.renameSync(dir + ".real", dir));`,
    [dir],
  );
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true }).map(String);
}

const ATTEMPTS = 400;

describe("a racing process flips a symlink between check and use", () => {
  it(`Read never returns a file denied by a Read rule (${ATTEMPTS} attempts)`, async () => {
    const l = layout();
    fs.writeFileSync(path.join(l.cwd, "public.txt"), "public\n");
    const s = raceSession(l, "default", rejectAll);
    const link = path.join(l.cwd, "link");
    pointLink(link, path.join(l.cwd, "public.txt"));
    await startFlipper(link, path.join(l.cwd, "public.txt"), l.secretFile);

    const outcomes = { leaks: 0, public: 0, refused: 0, changed: 0 };
    for (let i = 0; i < ATTEMPTS; i++) {
      // A fresh window each time, so no "unchanged since last read" stub stands in for a real read.
      const r = await s.run("Read", { file_path: "link", offset: 1, limit: 1000 + i });
      if (r.text.includes(SECRET)) outcomes.leaks++;
      else if (CHANGED.test(r.text)) outcomes.changed++;
      else if (r.text.includes("public")) outcomes.public++;
      else outcomes.refused++;
    }
    console.log(`Read race, ${ATTEMPTS} attempts:`, outcomes);
    expect(outcomes.leaks).toBe(0);
  });

  it(`Write never lands outside the working directory through a flipped parent directory (${ATTEMPTS} attempts)`, async () => {
    const l = layout();
    const inside = path.join(l.cwd, "inside");
    fs.mkdirSync(inside);
    // acceptEdits: writes inside the working directory run without asking; outside ones ask, and the prompt says no.
    const s = raceSession(l, "acceptEdits", rejectAll);
    const link = path.join(l.cwd, "dest");
    pointLink(link, inside);
    await startFlipper(link, inside, l.outside);

    let written = 0;
    for (let i = 0; i < ATTEMPTS; i++) {
      const r = await s.run("Write", { file_path: `dest/f${i}.txt`, content: "x\n" });
      if (r.outcome === "success") written++;
    }
    const escaped = filesUnder(l.outside);
    console.log(`Write race (parent directory), ${ATTEMPTS} attempts: ${written} written, ${escaped.length} outside`);
    expect(escaped).toEqual([]);
  });

  it(`Write never replaces a file outside through a flipped file symlink (${ATTEMPTS} attempts)`, async () => {
    const l = layout();
    const inside = path.join(l.cwd, "inside.txt");
    const outsideFile = path.join(l.outside, "victim.txt");
    // Empty files need no Read before Write, and look the same on both sides.
    fs.writeFileSync(inside, "");
    fs.writeFileSync(outsideFile, "");
    const s = raceSession(l, "acceptEdits", rejectAll);
    const link = path.join(l.cwd, "flink");
    pointLink(link, inside);
    await startFlipper(link, inside, outsideFile);

    let written = 0;
    let overwritten = 0;
    for (let i = 0; i < ATTEMPTS; i++) {
      fs.writeFileSync(inside, "");
      const r = await s.run("Write", { file_path: "flink", content: `PWNED ${i}\n` }, `msg_${i}`);
      if (r.outcome === "success") written++;
      if (fs.readFileSync(outsideFile, "utf8") !== "") {
        overwritten++;
        fs.writeFileSync(outsideFile, "");
      }
    }
    const strays = filesUnder(l.outside).filter((name) => name !== "victim.txt");
    console.log(`Write race (file symlink), ${ATTEMPTS} attempts: ${written} written, outside file overwritten ${overwritten} times, ${strays.length} stray files outside`);
    expect(overwritten).toBe(0);
    expect(strays).toEqual([]);
  });

  it(`Read never returns the secret when a directory on the real path itself is swapped for a symlink (${ATTEMPTS} attempts)`, async () => {
    const l = layout();
    const sub = path.join(l.cwd, "sub");
    fs.mkdirSync(sub);
    fs.writeFileSync(path.join(sub, "id_rsa"), "public\n");
    const s = raceSession(l, "default", rejectAll);
    await startDirectorySwapper(sub, path.dirname(l.secretFile));

    const outcomes = { leaks: 0, public: 0, refused: 0, changed: 0 };
    for (let i = 0; i < ATTEMPTS; i++) {
      const r = await s.run("Read", { file_path: "sub/id_rsa", offset: 1, limit: 1000 + i });
      if (r.text.includes(SECRET)) outcomes.leaks++;
      else if (CHANGED.test(r.text)) outcomes.changed++;
      else if (r.text.includes("public")) outcomes.public++;
      else outcomes.refused++;
    }
    console.log(`Read race (swapped directory), ${ATTEMPTS} attempts:`, outcomes);
    expect(outcomes.leaks).toBe(0);
  });

  it(`Write never lands outside when a directory on the real path itself is swapped for a symlink (${ATTEMPTS} attempts)`, async () => {
    const l = layout();
    const sub = path.join(l.cwd, "sub");
    fs.mkdirSync(sub);
    const s = raceSession(l, "acceptEdits", rejectAll);
    await startDirectorySwapper(sub, l.outside);

    const outcomes = { written: 0, changed: 0, other: 0 };
    for (let i = 0; i < ATTEMPTS; i++) {
      const r = await s.run("Write", { file_path: `sub/f${i}.txt`, content: "x\n" }, `msg_${i}`);
      if (r.outcome === "success") outcomes.written++;
      else if (CHANGED.test(r.text)) outcomes.changed++;
      else outcomes.other++;
    }
    const escaped = filesUnder(l.outside);
    console.log(`Write race (swapped directory), ${ATTEMPTS} attempts:`, outcomes, `${escaped.length} files outside`);
    expect(escaped).toEqual([]);
  });
});

/** A prompt that changes the disk (the race, made to happen every time) and then says yes. */
function swapThenAllow(swap: () => void): CanUseToolFn {
  return async (_tool, _input, _ctx, _msg, _id, decision) => {
    if (decision.behavior !== "ask") return decision;
    swap();
    return { behavior: "allow" };
  };
}

/** Replace the real directory `dir` with a symlink to `elsewhere` (the original kept beside it). */
function swapDirectoryForLink(dir: string, elsewhere: string): void {
  fs.renameSync(dir, `${dir}.real`);
  fs.symlinkSync(elsewhere, dir);
}

describe("the swap happens exactly between the permission check and the call (inside the prompt)", () => {
  it("Read of an approved symlink reads the file that was approved, not the one the link points to now", async () => {
    const l = layout();
    const approved = path.join(l.outside, "notes.txt");
    fs.writeFileSync(approved, "approved notes\n");
    const link = path.join(l.cwd, "link");
    pointLink(link, approved);
    // Outside the working directory: Read asks, and the prompt repoints the link at the secret.
    const s = raceSession(l, "default", swapThenAllow(() => pointLink(link, l.secretFile)));
    const r = await s.run("Read", { file_path: "link" });
    expect(r.text).not.toContain(SECRET);
    expect(r.outcome).toBe("success");
    expect(r.text).toContain("approved notes");
  });

  it("Read fails closed when a directory on the checked real path is swapped for a symlink to the secret", async () => {
    const l = layout();
    const notes = path.join(l.outside, "ssh");
    fs.mkdirSync(notes);
    fs.writeFileSync(path.join(notes, "id_rsa"), "not a key\n");
    const s = raceSession(l, "default", swapThenAllow(() => swapDirectoryForLink(notes, path.dirname(l.secretFile))));
    const r = await s.run("Read", { file_path: path.join(notes, "id_rsa") });
    expect(r.text).not.toContain(SECRET);
    expect(r.outcome).not.toBe("success");
    expect(r.text).toMatch(CHANGED);
    expect(r.text).toContain("nothing was read");
  });

  it("Read fails closed when another file was renamed over the checked one", async () => {
    const l = layout();
    const target = path.join(l.outside, "notes.txt");
    fs.writeFileSync(target, "checked\n");
    const other = path.join(l.outside, "other.txt");
    fs.writeFileSync(other, "swapped in\n");
    const s = raceSession(l, "default", swapThenAllow(() => fs.renameSync(other, target)));
    const r = await s.run("Read", { file_path: target });
    expect(r.text).toMatch(CHANGED);
    expect(r.text).not.toContain("swapped in");
  });

  it("Read of a PDF fails closed too: poppler never gets the swapped file", async () => {
    const l = layout();
    const dir = path.join(l.outside, "docs");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "a.pdf"), makePdf(["public page"]));
    const secretDir = path.join(l.outside, "secret-docs");
    fs.mkdirSync(secretDir);
    fs.writeFileSync(path.join(secretDir, "a.pdf"), makePdf([SECRET]));
    const s = raceSession(l, "default", swapThenAllow(() => swapDirectoryForLink(dir, secretDir)));
    const r = await s.run("Read", { file_path: path.join(dir, "a.pdf") });
    expect(r.text).not.toContain(SECRET);
    expect(r.text).toMatch(CHANGED);
  });

  it("Write fails closed when its parent directory is swapped for a symlink to outside, and writes nothing there", async () => {
    const l = layout();
    const sub = path.join(l.cwd, "sub");
    fs.mkdirSync(sub);
    // default mode: a write inside the working directory asks.
    const s = raceSession(l, "default", swapThenAllow(() => swapDirectoryForLink(sub, l.outside)));
    const r = await s.run("Write", { file_path: "sub/new.txt", content: "hello\n" });
    expect(r.outcome).not.toBe("success");
    expect(r.text).toMatch(CHANGED);
    expect(r.text).toContain("nothing was written");
    expect(filesUnder(l.outside)).toEqual([]);
  });

  it("Write creating parent directories does not follow a symlink planted where a new directory goes", async () => {
    const l = layout();
    const s = raceSession(l, "default", swapThenAllow(() => fs.symlinkSync(l.outside, path.join(l.cwd, "newdir"))));
    const r = await s.run("Write", { file_path: "newdir/deeper/f.txt", content: "hello\n" });
    expect(r.text).toMatch(CHANGED);
    expect(filesUnder(l.outside)).toEqual([]);
  });

  it("Write through a symlink repointed during the prompt writes the approved target and leaves the new one alone", async () => {
    const l = layout();
    const inside = path.join(l.cwd, "inside.txt");
    const victim = path.join(l.outside, "victim.txt");
    fs.writeFileSync(inside, "");
    fs.writeFileSync(victim, "");
    const link = path.join(l.cwd, "flink");
    pointLink(link, inside);
    const s = raceSession(l, "default", swapThenAllow(() => pointLink(link, victim)));
    const r = await s.run("Write", { file_path: "flink", content: "new content\n" });
    expect(r.outcome).toBe("success");
    expect(fs.readFileSync(victim, "utf8")).toBe("");
    expect(fs.readFileSync(inside, "utf8")).toBe("new content\n");
  });

  it("Edit's checkpoint backs up the verified file; a swapped directory fails closed before anything is backed up or written", async () => {
    const l = layout();
    const sub = path.join(l.cwd, "sub");
    fs.mkdirSync(sub);
    fs.writeFileSync(path.join(sub, "a.txt"), "hello\n");
    // The same bytes outside, so staleness cannot tell the two apart.
    fs.writeFileSync(path.join(l.outside, "a.txt"), "hello\n");
    let swap = () => {};
    const s = raceSession(l, "default", swapThenAllow(() => swap()));
    expect((await s.run("Read", { file_path: "sub/a.txt" })).outcome).toBe("success");

    swap = () => swapDirectoryForLink(sub, l.outside);
    const r = await s.run("Edit", { file_path: "sub/a.txt", old_string: "hello", new_string: "bye" }, "msg_edit");
    expect(r.text).toMatch(CHANGED);
    expect(fs.readFileSync(path.join(l.outside, "a.txt"), "utf8")).toBe("hello\n");
    expect(filesUnder(l.outside)).toEqual(["a.txt"]);
    expect(s.ctx.fileHistory.changedFiles("msg_edit")).toEqual([]);
  });

  it("Edit through a symlink repointed during the prompt checkpoints and edits the approved file only", async () => {
    const l = layout();
    const inside = path.join(l.cwd, "a.txt");
    const victim = path.join(l.outside, "a.txt");
    fs.writeFileSync(inside, "hello\n");
    fs.writeFileSync(victim, "hello\n");
    const link = path.join(l.cwd, "flink");
    pointLink(link, inside);
    let swap = () => {};
    const s = raceSession(l, "default", swapThenAllow(() => swap()));
    expect((await s.run("Read", { file_path: "flink" })).outcome).toBe("success");

    swap = () => pointLink(link, victim);
    const r = await s.run("Edit", { file_path: "flink", old_string: "hello", new_string: "bye" }, "msg_edit");
    expect(r.outcome).toBe("success");
    expect(fs.readFileSync(victim, "utf8")).toBe("hello\n");
    expect(fs.readFileSync(inside, "utf8")).toBe("bye\n");
    expect(s.ctx.fileHistory.changedFiles("msg_edit")).toEqual([inside]);
    expect(s.ctx.fileHistory.checkpointContent("msg_edit", inside)?.bytes.toString()).toBe("hello\n");
  });

  it("NotebookEdit fails closed when the notebook's directory is swapped during the prompt", async () => {
    const l = layout();
    const sub = path.join(l.cwd, "nb");
    fs.mkdirSync(sub);
    const notebook = JSON.stringify({ cells: [{ cell_type: "code", id: "c1", source: "x = 1", metadata: {}, outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 });
    fs.writeFileSync(path.join(sub, "a.ipynb"), notebook);
    fs.writeFileSync(path.join(l.outside, "a.ipynb"), notebook);
    let swap = () => {};
    const s = raceSession(l, "default", swapThenAllow(() => swap()));
    expect((await s.run("Read", { file_path: "nb/a.ipynb" })).outcome).toBe("success");

    swap = () => swapDirectoryForLink(sub, l.outside);
    const r = await s.run("NotebookEdit", { notebook_path: "nb/a.ipynb", cell_id: "c1", new_source: "x = 2" });
    expect(r.text).toMatch(CHANGED);
    expect(fs.readFileSync(path.join(l.outside, "a.ipynb"), "utf8")).toBe(notebook);
  });
});

describe("checks that hold without the pipeline's judgment", () => {
  it("a call whose permission check judged another path fails closed instead of using an unjudged one", async () => {
    const l = layout();
    fs.writeFileSync(path.join(l.cwd, "a.txt"), "a\n");
    fs.writeFileSync(path.join(l.cwd, "b.txt"), "b\n");
    const s = raceSession(l, "default", rejectAll);
    const judged = { path: path.join(l.cwd, "a.txt"), realPath: path.join(l.cwd, "a.txt") };
    const context = { ...s.ctx, permissionDecision: { behavior: "allow" as const, checkedPath: judged } };
    await expect(ReadTool.call({ file_path: "b.txt" }, context, rejectAll, { role: "assistant", content: [] })).rejects.toThrow(CHANGED);
  });

  it("a Read called directly (no permission step) still refuses a file a Read rule denies, through a symlink", async () => {
    const l = layout();
    const link = path.join(l.cwd, "link");
    pointLink(link, l.secretFile);
    const s = raceSession(l, "default", rejectAll);
    await expect(ReadTool.call({ file_path: "link" }, s.ctx, rejectAll, { role: "assistant", content: [] })).rejects.toThrow(/denied/);
  });
});
