import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repairHistory, INTERRUPTED_RESULT } from "../../src/agent/history.js";
import { findSession, listSessions, loadTranscript, openTranscript, pruneSessions } from "../../src/agent/transcript.js";
import { createFileHistory } from "../../src/core/fileHistory.js";
import type { Message } from "../../src/core/messages.js";

const use = (id: string) => ({ type: "tool_use" as const, id, name: "Read", input: { file_path: "a" } });
const result = (id: string, content = "ok") => ({ type: "tool_result" as const, tool_use_id: id, content });

describe("history repair", () => {
  it("leaves a valid history alone", () => {
    const messages: Message[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "thinking", thinking: "t", signature: "s" }, use("a")] },
      { role: "user", content: [result("a")] },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ];
    const before = JSON.stringify(messages);
    expect(repairHistory(messages)).toEqual([]);
    expect(JSON.stringify(messages)).toBe(before);
  });

  it("answers a tool call left without a result (a crash mid-tool), at the end or mid-history", () => {
    const messages: Message[] = [{ role: "user", content: "hi" }, { role: "assistant", content: [use("a"), use("b")] }];
    expect(repairHistory(messages)[0]).toMatch(/2 tool call\(s\) without a result/);
    expect(messages[2]).toEqual({ role: "user", content: [expect.objectContaining({ tool_use_id: "a", is_error: true }), expect.objectContaining({ tool_use_id: "b", is_error: true })] });
    expect(JSON.stringify(messages[2])).toContain(INTERRUPTED_RESULT);

    const mid: Message[] = [{ role: "assistant", content: [use("a")] }, { role: "assistant", content: [{ type: "text", text: "x" }] }];
    repairHistory(mid);
    expect(mid.map((m) => m.role)).toEqual(["assistant", "user", "assistant"]);
  });

  it("drops orphan and duplicate results, fills the missing one, and puts results first in call order", () => {
    const messages: Message[] = [
      { role: "assistant", content: [use("a"), use("b")] },
      { role: "user", content: [{ type: "text", text: "note" }, result("b"), result("zzz"), result("b", "again")] },
      { role: "user", content: [result("orphan"), { type: "text", text: "next prompt" }] },
      { role: "user", content: [result("orphan2")] },
    ];
    const problems = repairHistory(messages);
    expect(problems).toHaveLength(5);
    expect(messages).toHaveLength(3);
    const reply = messages[1].content as Array<{ type: string; tool_use_id?: string }>;
    expect(reply.map((b) => b.tool_use_id ?? b.type)).toEqual(["a", "b", "text"]);
    expect(messages[2]).toEqual({ role: "user", content: [{ type: "text", text: "next prompt" }] });
  });
});

describe("transcript file", () => {
  const tmp = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-transcript-")));

  it("appends linked lines as messages happen and reads them back; a cut last line is skipped, never fatal", () => {
    const home = tmp();
    const writer = openTranscript({ home, cwd: "/work/project", sessionId: "abc-1", model: "m" });
    writer.append({ role: "user", content: "first prompt" });
    writer.append({ role: "assistant", content: [use("a")] });
    fs.appendFileSync(writer.path, '{"type":"message","uuid":"x","parentUuid"'); // a crash mid-line
    const loaded = loadTranscript(writer.path);
    expect(loaded.messages).toEqual([{ role: "user", content: "first prompt" }, { role: "assistant", content: [use("a")] }]);
    expect(loaded.problems).toEqual(["line 4 was cut short (the session ended mid-write) and was skipped"]);
    const lines = fs.readFileSync(writer.path, "utf8").split("\n").filter(Boolean).slice(0, 3).map((l) => JSON.parse(l));
    expect(lines[1].parentUuid).toBe(lines[0].uuid);
    expect(lines[2].parentUuid).toBe(lines[1].uuid);
    // Appending again after the crash starts on a fresh line and continues the chain.
    const again = openTranscript({ home, cwd: "/work/project", sessionId: "abc-1", lastUuid: loaded.lastUuid });
    again.append({ role: "user", content: [result("a")] });
    again.result({ reason: "completed", turns: 3, durationMs: 5 });
    const reloaded = loadTranscript(writer.path);
    expect(reloaded.messages).toHaveLength(3);
    expect(reloaded.turns).toBe(3);
  });

  it("lists sessions newest first and finds one by a unique prefix", () => {
    const home = tmp();
    const cwd = "/work/p";
    const a = openTranscript({ home, cwd, sessionId: "aaaa-1111" });
    a.append({ role: "user", content: "older prompt" });
    const b = openTranscript({ home, cwd, sessionId: "aabb-2222" });
    b.append({ role: "user", content: "newer prompt" });
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(a.path, past, past);
    expect(listSessions(home, cwd).map((s) => [s.sessionId, s.lastPrompt])).toEqual([
      ["aabb-2222", "newer prompt"],
      ["aaaa-1111", "older prompt"],
    ]);
    expect(findSession(home, cwd, undefined).sessionId).toBe("aabb-2222");
    expect(findSession(home, cwd, "aaaa").sessionId).toBe("aaaa-1111");
    expect(() => findSession(home, cwd, "aa")).toThrow(/2 sessions start with "aa": aabb-2222, aaaa-1111/);
    expect(() => findSession(home, cwd, "zz")).toThrow(/no session of this project starts with "zz"/);
    expect(() => findSession(home, "/elsewhere", undefined)).toThrow(/no sessions for this project yet/);
  });

  it("checkpoints written by one process rewind in the next (a resumed session)", () => {
    const dir = tmp();
    const file = path.join(dir, "f.txt");
    fs.writeFileSync(file, "original");
    const first = createFileHistory(path.join(dir, "history"));
    first.checkpoint(file, "msg_1");
    fs.writeFileSync(file, "changed");
    const second = createFileHistory(path.join(dir, "history"));
    expect(second.messageIds()).toEqual(["msg_1"]);
    second.checkpoint(path.join(dir, "new.txt"), "msg_2");
    expect(second.rewind("msg_1").restored).toEqual([file]);
    expect(fs.readFileSync(file, "utf8")).toBe("original");
  });

  it("prunes sessions untouched for longer than the period, with their directories, never the current one", () => {
    const home = tmp();
    const cwd = "/work/prune";
    const old = openTranscript({ home, cwd, sessionId: "old-1" });
    const current = openTranscript({ home, cwd, sessionId: "current-1" });
    const fresh = openTranscript({ home, cwd, sessionId: "fresh-1" });
    const oldDir = path.join(path.dirname(old.path), "old-1");
    fs.mkdirSync(path.join(oldDir, "file-history"), { recursive: true });
    const longAgo = new Date(Date.now() - 40 * 86_400_000);
    for (const file of [old.path, current.path]) fs.utimesSync(file, longAgo, longAgo);
    expect(pruneSessions(home, cwd, 30, "current-1")).toEqual(["old-1"]);
    expect(fs.existsSync(old.path) || fs.existsSync(oldDir)).toBe(false);
    expect(fs.existsSync(current.path) && fs.existsSync(fresh.path)).toBe(true);
  });
});
