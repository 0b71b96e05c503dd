/**
 * The speculator's gates on a real session (permission engine, hooks, real tools and files), the settled-prefix
 * parse, and the read-state overlay a speculative run records into.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createToolSpeculator } from "../../src/core/executor/index.js";
import { createFileStateCache, createFileStateOverlay, type FileState } from "../../src/core/fileStateCache.js";
import { parseSettledJsonPrefix } from "../../src/providers/partialJson.js";
import { createSession, type Session } from "../../src/session/index.js";

describe("parseSettledJsonPrefix", () => {
  it.each([
    ['{"file_path": "/a/b', undefined],
    ['{"file_path": "/a/b"', { file_path: "/a/b" }],
    ['{"file_path": "/a/b", ', { file_path: "/a/b" }],
    ['{"file_path": "/a/b", "off', undefined],
    ['{"file_path": "/a/b", "offset"', undefined],
    ['{"file_path": "/a/b", "offset": 1', undefined],
    ['{"file_path": "/a/b", "offset": 12,', { file_path: "/a/b", offset: 12 }],
    ['{"file_path": "/a/b", "offset": 12}', { file_path: "/a/b", offset: 12 }],
    ['{"i": tru', undefined],
    ['{"i": true ', { i: true }],
    ['{"glob": ["a", "b"', undefined],
    ['{"glob": ["a", "b"]', { glob: ["a", "b"] }],
    ['{"o": {"k": "v"', undefined],
    ['{"o": {"k": "v"}', { o: { k: "v" } }],
    ['{"p": "say \\"hi\\""', { p: 'say "hi"' }],
    ['{"p": "ends in \\', undefined],
    ["{", undefined],
    ["", undefined],
    ["[1,", undefined],
  ])("%s", (text, expected) => {
    expect(parseSettledJsonPrefix(text)).toEqual(expected);
  });
});

describe("createFileStateOverlay", () => {
  const state = (hash: string): FileState => ({ contentHash: hash, mtimeMs: 1, size: 1, timestamp: 1 });

  it("keeps writes apart until commit, then replays them on the base and passes through", () => {
    const base = createFileStateCache();
    base.set("/a", state("a"));
    const overlay = createFileStateOverlay(base);
    overlay.set("/b", state("b"));
    overlay.delete("/a");
    expect(overlay.get("/b")?.contentHash).toBe("b");
    expect(overlay.has("/a")).toBe(false);
    expect(base.has("/b")).toBe(false);
    expect(base.get("/a")?.contentHash).toBe("a");
    overlay.commit();
    expect(base.get("/b")?.contentHash).toBe("b");
    expect(base.has("/a")).toBe(false);
    overlay.set("/c", state("c"));
    expect(base.get("/c")?.contentHash).toBe("c");
  });

  it("reads through without changing the base's LRU order", () => {
    const base = createFileStateCache(2);
    base.set("/old", state("old"));
    base.set("/new", state("new"));
    createFileStateOverlay(base).get("/old");
    base.set("/third", state("third"));
    // /old was not touched by the overlay's read, so it is the one evicted.
    expect(base.keys()).toEqual(["/new", "/third"]);
  });
});

describe("the speculator's gates", () => {
  const sessions: Session[] = [];
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
  });

  async function setup() {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-spec-gates-")));
    const home = path.join(dir, ".home");
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(dir, "notes.txt"), "hello\n");
    fs.writeFileSync(path.join(dir, "secret.txt"), "no\n");
    fs.mkdirSync(path.join(dir, ".toolgate"));
    fs.writeFileSync(
      path.join(dir, ".toolgate", "settings.json"),
      JSON.stringify({ permissions: { deny: ["Read(secret.txt)"] }, hooks: { PreToolUse: [{ matcher: "Glob", hooks: [{ type: "command", command: "echo ran >> hook.log" }] }] } }),
    );
    const session = await createSession({ cwd: dir, home, sandbox: false, trust: true, env: { ...process.env, TOOLGATE_HOME: home } });
    sessions.push(session);
    const started: string[] = [];
    const speculator = createToolSpeculator({ context: session.context, signal: new AbortController().signal, assistantMessage: { role: "assistant", content: [] }, onStart: (info) => started.push(info.toolUseID) });
    /** Streams `input` up to its last character (the closing brace not yet sent) and waits for the checks. */
    const stream = async (id: string, name: string, input: object) => {
      speculator.blockStarted(id, name);
      speculator.inputDelta(id, JSON.stringify(input).slice(0, -1));
      await speculator.whenIdle();
    };
    return { dir, session, speculator, started, stream };
  }

  it("starts an allowed Read, and nothing that is denied, asks, writes, is matched by a PreToolUse hook, or is not settled", async () => {
    const { dir, speculator, started, stream } = await setup();
    await stream("allowed", "Read", { file_path: "notes.txt" });
    speculator.blockCompleted("allowed", { file_path: "notes.txt" });
    speculator.resultArrived("allowed");
    await stream("denied", "Read", { file_path: "secret.txt" });
    speculator.blockFailed("denied");
    await stream("asks", "Read", { file_path: "/etc/hostname" });
    speculator.blockFailed("asks");
    await stream("writes", "Bash", { command: `touch ${path.join(dir, "made.txt")}` });
    speculator.blockFailed("writes");
    await stream("writer", "Write", { file_path: "w.txt", content: "x" });
    speculator.blockFailed("writer");
    await stream("hooked", "Glob", { pattern: "*.txt" });
    speculator.blockFailed("hooked");
    speculator.blockStarted("open", "Read");
    speculator.inputDelta("open", '{"file_path":"notes.t');
    await speculator.whenIdle();
    expect(started).toEqual(["allowed"]);
    expect(fs.existsSync(path.join(dir, "made.txt"))).toBe(false);
    expect(fs.existsSync(path.join(dir, "hook.log"))).toBe(false);
    speculator.dispose();
  });

  it("waits for earlier calls' results, and never starts after a call that may write", async () => {
    const { speculator, started, stream } = await setup();
    await stream("first", "Read", { file_path: "notes.txt" });
    speculator.blockCompleted("first", { file_path: "notes.txt" });
    await stream("second", "Read", { offset: 1, file_path: "notes.txt" });
    expect(started).toEqual(["first"]);
    speculator.resultArrived("first");
    await speculator.whenIdle();
    expect(started).toEqual(["first", "second"]);
    speculator.blockCompleted("second", { offset: 1, file_path: "notes.txt" });
    speculator.resultArrived("second");

    await stream("edit", "Edit", { file_path: "notes.txt", old_string: "hello", new_string: "bye" });
    speculator.blockCompleted("edit", { file_path: "notes.txt", old_string: "hello", new_string: "bye" });
    speculator.resultArrived("edit");
    await stream("after", "Read", { file_path: "notes.txt" });
    expect(started).toEqual(["first", "second"]);
    speculator.dispose();
  });
});

describe("speculationAttributes", () => {
  it("exports the outcome and rounded times; an id not shaped like one only as a hash", async () => {
    const { speculationAttributes } = await import("../../src/telemetry/events.js");
    expect(speculationAttributes({ toolName: "Read", toolUseID: "toolu_1", outcome: "miss", readyAtBlockEnd: false, headStartMs: 20.4, wastedMs: 3.6 })).toEqual({
      tool_name: "Read",
      tool_use_id: "toolu_1",
      outcome: "miss",
      ready_at_block_end: false,
      head_start_ms: 20,
      wasted_ms: 4,
    });
    expect(speculationAttributes({ toolName: "Read", toolUseID: "/etc/passwd", outcome: "hit", readyAtBlockEnd: true, headStartMs: 1, wastedMs: 0 }).tool_use_id).toMatch(/^sha256:/);
  });
});
