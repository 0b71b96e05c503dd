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
import { permissionContext, rule } from "../../permissions/helpers.js";
import { rejectAll, tempDir } from "../../helpers.js";
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
    expect(outcomes.public).toBeGreaterThan(0);
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
    expect(written).toBeGreaterThan(0);
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
    expect(written).toBeGreaterThan(0);
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
    expect(outcomes.public).toBeGreaterThan(0);
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
    expect(outcomes.written).toBeGreaterThan(0);
  });
});
