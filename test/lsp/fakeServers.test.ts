import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { Session } from "../../src/session/index.js";
import { tempDir } from "../helpers.js";
import { call, FIXTURES, isRunning, openSession, project } from "./support.js";

const sessions: Session[] = [];
afterAll(async () => {
  for (const s of sessions.splice(0)) await s.close();
});

async function session(cwd: string, settings: Record<string, unknown>, options: { trust?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<Session> {
  const s = await openSession(cwd, settings, options);
  sessions.push(s);
  return s;
}

const fake = (extra: Record<string, unknown> = {}, args: string[] = []) => ({
  fake: { command: ["node", path.join(FIXTURES, "fake-server.mjs"), ...args], extensions: [".fk"], waitMs: 20_000, ...extra },
});

async function edit(s: Session, file: string, oldString: string, newString: string) {
  const result = await call(s, "Edit", { file_path: file, old_string: oldString, new_string: newString });
  expect(result.isError, result.text).toBe(false);
  return result.text;
}

describe("after-edit diagnostics (a scripted server)", () => {
  it("reports only what the edit added: an old error that moved down a line is not new, a second copy of it is", async () => {
    const cwd = project({ "a.fk": "first\nBAD old thing\nlast\n" });
    const s = await session(cwd, { lsp: fake() });
    await call(s, "Read", { file_path: "a.fk" });
    const text = await edit(s, "a.fk", "first\n", "first\ninserted\nBAD new thing\nWARN careful\n");
    expect(text).toContain("LSP diagnostics (fake): this edit introduced 1 error, 1 warning in a.fk:");
    expect(text).toContain("a.fk:3:1 error BAD new thing [E1]");
    expect(text).toContain("a.fk:4:1 warning WARN careful [W1]");
    expect(text.slice(text.indexOf("LSP diagnostics"))).not.toContain("old thing");

    const copy = await edit(s, "a.fk", "last\n", "last\nBAD old thing\n");
    expect(copy).toContain("this edit introduced 1 error in a.fk:");
    expect(copy).toContain("a.fk:7:1 error BAD old thing [E1]");
    expect(copy).not.toContain("a.fk:5:1");

    const removal = await edit(s, "a.fk", "BAD new thing\n", "");
    expect(removal).not.toContain("LSP diagnostics");
  }, 60_000);

  it("caps the list at 10 lines plus a count, and long messages at 300 characters", async () => {
    const cwd = project({ "b.fk": "start\n" });
    const s = await session(cwd, { lsp: fake() });
    await call(s, "Read", { file_path: "b.fk" });
    const many = Array.from({ length: 14 }, (_, i) => `BAD number ${i}`).join("\n");
    const text = await edit(s, "b.fk", "start\n", `start\n${many}\nBAD ${"x".repeat(1000)}\n`);
    expect(text).toContain("this edit introduced 15 errors in b.fk:");
    expect(text).toContain("+5 more");
    const listed = text.split("\n").filter((l) => l.startsWith("b.fk:"));
    expect(listed).toHaveLength(10);
    expect(Math.max(...listed.map((l) => l.length))).toBeLessThan(400);
  }, 60_000);

  it("a new file from Write: every problem in it is new", async () => {
    const cwd = project({});
    const s = await session(cwd, { lsp: fake() });
    const result = await call(s, "Write", { file_path: "new.fk", content: "ok\nBAD from the start\n" });
    expect(result.isError).toBe(false);
    expect(result.text).toContain("Created new.fk (2 lines).");
    expect(result.text).toContain("new.fk:2:1 error BAD from the start [E1]");
  }, 60_000);

  it("a server that offers pull diagnostics (textDocument/diagnostic) is asked directly", async () => {
    const cwd = project({ "c.fk": "fine\n" });
    const s = await session(cwd, { lsp: fake({}, ["--pull"]) });
    await call(s, "Read", { file_path: "c.fk" });
    const text = await edit(s, "c.fk", "fine\n", "fine\nBAD pulled\n");
    expect(text).toContain("c.fk:2:1 error BAD pulled [E1]");
    const diag = await call(s, "Diagnostics", { file_path: "c.fk" });
    expect(diag.text).toBe("c.fk (fake): 1 error\nc.fk:2:1 error BAD pulled [E1]");
  }, 60_000);

  it("files of other extensions are not sent to the server, and edits of them say nothing", async () => {
    const cwd = project({ "notes.txt": "BAD but not code\n" });
    const s = await session(cwd, { lsp: fake() });
    await call(s, "Read", { file_path: "notes.txt" });
    const text = await edit(s, "notes.txt", "but", "and");
    expect(text).not.toContain("LSP");
    expect(s.context.lsp!.status()).toEqual([expect.objectContaining({ name: "fake", state: "not started", starts: 0 })]);
  }, 60_000);

  /** A fake-lsp program in `dir` that notes in `marker` that it ran, then serves. */
  function fakeLspProgram(dir: string, marker: string): string {
    const bin = path.join(dir, "fake-lsp");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(bin, `#!/bin/sh\necho ran >> ${JSON.stringify(marker)}\nexec node ${JSON.stringify(path.join(FIXTURES, "fake-server.mjs"))} "$@"\n`, { mode: 0o755 });
    return bin;
  }
  const fakeLsp = { lsp: { fake: { command: ["fake-lsp"], extensions: [".fk"], waitMs: 20_000 } } };

  it("in a trusted folder, a bare program name is found in the project's node_modules/.bin", async () => {
    const cwd = project({ "d.fk": "x\n" });
    const marker = path.join(cwd, "..", `ran-${path.basename(cwd)}`);
    fakeLspProgram(path.join(cwd, "node_modules", ".bin"), marker);
    const s = await session(cwd, fakeLsp, { trust: true });
    await call(s, "Read", { file_path: "d.fk" });
    expect(await edit(s, "d.fk", "x\n", "x\nBAD via bin\n")).toContain("d.fk:2:1 error BAD via bin [E1]");
    expect(fs.existsSync(marker)).toBe(true);
  }, 60_000);

  it("in an untrusted folder, the project's node_modules/.bin is passed over, and the note says why", async () => {
    const cwd = project({ "d.fk": "x\n" });
    const marker = path.join(cwd, "..", `ran-${path.basename(cwd)}`);
    const planted = fakeLspProgram(path.join(cwd, "node_modules", ".bin"), marker);
    const s = await session(cwd, fakeLsp);
    await call(s, "Read", { file_path: "d.fk" });
    const text = await edit(s, "d.fk", "x\n", "x\nBAD via bin\n");
    expect(text).toContain("LSP server fake cannot start: its program fake-lsp was not found on PATH (the folder is not trusted, so the project's own programs are not used)");
    expect(text).toContain(`${planted} in the project was not used because the folder is not trusted`);
    expect(text).not.toContain("BAD via bin [E1]");
    expect(s.context.lsp!.status()).toEqual([expect.objectContaining({ name: "fake", starts: 0 })]);
    expect(fs.existsSync(marker)).toBe(false);
  }, 60_000);

  it("in an untrusted folder, the same program on PATH outside the project is used instead of the planted one", async () => {
    const cwd = project({ "d.fk": "x\n" });
    const plantedMarker = path.join(cwd, "..", `planted-${path.basename(cwd)}`);
    const outsideMarker = path.join(cwd, "..", `outside-${path.basename(cwd)}`);
    fakeLspProgram(path.join(cwd, "node_modules", ".bin"), plantedMarker);
    fakeLspProgram(path.join(cwd, "bin"), plantedMarker);
    const outside = path.dirname(fakeLspProgram(path.join(tempDir("toolgate-lsp-path-"), "bin"), outsideMarker));
    // a PATH entry inside the project comes first; it is passed over as well
    const s = await session(cwd, fakeLsp, { env: { PATH: [path.join(cwd, "bin"), outside, process.env.PATH ?? ""].join(path.delimiter) } });
    await call(s, "Read", { file_path: "d.fk" });
    expect(await edit(s, "d.fk", "x\n", "x\nBAD via PATH\n")).toContain("d.fk:2:1 error BAD via PATH [E1]");
    expect(fs.existsSync(outsideMarker)).toBe(true);
    expect(fs.existsSync(plantedMarker)).toBe(false);
  }, 60_000);
});

describe("servers that fail never hold an edit up, and say so once", () => {
  it("a server that never answers: each edit returns after the short wait, the note comes once, close kills its tree", async () => {
    const cwd = project({ "h.fk": "one\n" });
    const pidsFile = path.join(cwd, "..", `hang-pids-${path.basename(cwd)}`);
    const s = await openSession(cwd, {
      lsp: { hang: { command: ["node", path.join(FIXTURES, "hang-server.mjs")], extensions: [".fk"], waitMs: 500, startTimeoutMs: 300_000, maxRestarts: 0 } },
    }, { env: { HANG_PIDS: pidsFile } });
    await call(s, "Read", { file_path: "h.fk" });
    const texts: string[] = [];
    for (const [from, to] of [["one", "two"], ["two", "three"], ["three", "four"]]) {
      const started = Date.now();
      texts.push(await edit(s, "h.fk", from, to));
      // far below the 300 s the server may take to start: the edit did not wait for it
      expect(Date.now() - started).toBeLessThan(60_000);
    }
    expect(fs.readFileSync(path.join(cwd, "h.fk"), "utf8")).toBe("four\n");
    expect(texts[0]).toContain("LSP server hang is still starting (no answer within 500 ms), so this edit was not checked");
    expect(texts.slice(1).join("\n")).not.toContain("LSP server");

    // the server writes its pid and its child's once node has started it, which may be after the edits
    await vi.waitFor(() => expect(fs.existsSync(pidsFile)).toBe(true), { timeout: 60_000, interval: 100 });
    const pids = fs.readFileSync(pidsFile, "utf8").trim().split(/\s+/).map(Number);
    expect(pids).toHaveLength(2);
    expect(pids.every(isRunning)).toBe(true);
    await s.close();
    expect(pids.filter(isRunning)).toEqual([]);
  }, 120_000);

  it("a server that never finishes starting is killed after startTimeoutMs and reported as off", async () => {
    const cwd = project({ "t.fk": "one\n" });
    const s = await session(cwd, {
      lsp: { hang: { command: ["node", path.join(FIXTURES, "hang-server.mjs")], extensions: [".fk"], waitMs: 300, startTimeoutMs: 1_000, maxRestarts: 0 } },
    });
    // Diagnostics waits for a start as long as it may take
    const diag = await call(s, "Diagnostics", { file_path: "t.fk" });
    expect(diag.text).toContain("The hang language server cannot check t.fk: it did not finish starting within 1000 ms.");
    const [status] = s.context.lsp!.status();
    expect(status).toMatchObject({ state: "failed", starts: 1 });
    await call(s, "Read", { file_path: "t.fk" });
    const first = await edit(s, "t.fk", "one", "two");
    expect(first).toContain("LSP server hang stopped working: it did not finish starting within 1000 ms. It was started 1 time and stays off for this session");
    expect(await edit(s, "t.fk", "two", "three")).not.toContain("LSP server");
  }, 120_000);

  it("a server that crashes at start is restarted maxRestarts times, then reported once with its stderr", async () => {
    const cwd = project({ "c.fk": "one\n" });
    const s = await session(cwd, { lsp: { crash: { command: ["node", path.join(FIXTURES, "crash-server.mjs")], extensions: [".fk"], waitMs: 20_000, maxRestarts: 2 } } });
    await call(s, "Read", { file_path: "c.fk" });
    const first = await edit(s, "c.fk", "one", "two");
    expect(first).toContain("The file c.fk has been updated");
    expect(first).toContain("LSP server crash stopped working: it exited with code 3 while starting (stderr: fake server: boom). It was started 3 times");
    expect(await edit(s, "c.fk", "two", "three")).not.toContain("LSP server");
    expect(s.context.lsp!.status()).toEqual([expect.objectContaining({ state: "failed", starts: 3 })]);
    expect(fs.readFileSync(path.join(cwd, "c.fk"), "utf8")).toBe("three\n");
  }, 60_000);

  it("a server that dies during an edit's wait ends the wait at once and is restarted for the next edit", async () => {
    const cwd = project({ "r.fk": "one\n" });
    const s = await session(cwd, { lsp: fake({ waitMs: 60_000 }) });
    await call(s, "Read", { file_path: "r.fk" });
    const started = Date.now();
    const crashed = await edit(s, "r.fk", "one", "CRASH");
    // well below the 60 s wait: its death ended the wait
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(crashed).not.toContain("LSP");
    const next = await edit(s, "r.fk", "CRASH", "fine\nBAD after the restart");
    expect(next).toContain("r.fk:2:1 error BAD after the restart [E1]");
    expect(s.context.lsp!.status()).toEqual([expect.objectContaining({ state: "ready", starts: 2, lastFailure: "exited with code 1" })]);
  }, 120_000);

  it("an interrupt ends a write's wait for a server that says nothing; the write itself is done", async () => {
    const cwd = project({});
    const s = await session(cwd, { lsp: fake({ waitMs: 60_000 }, ["--silent"]) });
    const started = Date.now();
    // the server starts, then says nothing about the new file: the interrupt, once the file is written, ends the wait
    const timer = setInterval(() => {
      if (fs.existsSync(path.join(cwd, "q.fk"))) s.context.abortController.abort();
    }, 50);
    await call(s, "Write", { file_path: "q.fk", content: "BAD\n" });
    clearInterval(timer);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(fs.readFileSync(path.join(cwd, "q.fk"), "utf8")).toBe("BAD\n");
  }, 120_000);

  it("a program that does not exist is reported once, and the Diagnostics tool says why", async () => {
    const cwd = project({ "m.fk": "one\n" });
    const s = await session(cwd, { lsp: { ghost: { command: ["no-such-language-server-xyz"], extensions: [".fk"] } } });
    await call(s, "Read", { file_path: "m.fk" });
    const first = await edit(s, "m.fk", "one", "two");
    expect(first).toContain("LSP server ghost cannot start: its program no-such-language-server-xyz was not found on PATH (the folder is not trusted, so the project's own programs are not used)");
    expect(await edit(s, "m.fk", "two", "three")).not.toContain("LSP server");
    const diag = await call(s, "Diagnostics", { file_path: "m.fk" });
    expect(diag.text).toContain("The ghost language server cannot check m.fk: its program no-such-language-server-xyz was not found on PATH");
  }, 60_000);
});

describe("every writer reports, and paths through a symlink work", () => {
  it("MultiEdit and NotebookEdit append the new problems too", async () => {
    const notebook = { cells: [{ cell_type: "code", id: "c1", metadata: {}, source: ["x = 1\n"], outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 };
    const cwd = project({ "m.fk": "a\nb\n", "n.ipynb": JSON.stringify(notebook, null, 1) });
    const s = await session(cwd, { lsp: fake({ extensions: [".fk", ".ipynb"] }) });
    await call(s, "Read", { file_path: "m.fk" });
    const multi = await call(s, "MultiEdit", { file_path: "m.fk", edits: [{ old_string: "a\n", new_string: "a\nBAD one\n" }, { old_string: "b\n", new_string: "b\nWARN two\n" }] });
    expect(multi.isError, multi.text).toBe(false);
    expect(multi.text).toContain("Applied 2 edits to m.fk.");
    expect(multi.text).toContain("this edit introduced 1 error, 1 warning in m.fk:");
    await call(s, "Read", { file_path: "n.ipynb" });
    const nb = await call(s, "NotebookEdit", { notebook_path: "n.ipynb", cell_id: "c1", new_source: "BAD in a cell" });
    expect(nb.isError, nb.text).toBe(false);
    expect(nb.text).toContain("Replaced the source of code cell c1 in n.ipynb");
    expect(nb.text).toMatch(/LSP diagnostics \(fake\): this edit introduced 1 error in n\.ipynb:\nn\.ipynb:\d+:\d+ error BAD in a cell/);
  }, 60_000);

  it("a file reached through a symlinked directory, which the server names by its real path", async () => {
    const cwd = project({ "real/s.fk": "ok\n" });
    fs.symlinkSync(path.join(cwd, "real"), path.join(cwd, "link"));
    const s = await session(cwd, { lsp: fake({}, ["--realpath"]) });
    await call(s, "Read", { file_path: "link/s.fk" });
    expect(await edit(s, "link/s.fk", "ok\n", "ok\nBAD through the link\n")).toContain("link/s.fk:2:1 error BAD through the link [E1]");
  }, 60_000);
});
