/** Compaction against the scripted model server with the real Anthropic SDK client. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { query, type AgentEvent } from "../../src/agent/query.js";
import { clearOldToolOutputs, compactHistory, compactionThreshold, MAX_FAILED_COMPACTIONS } from "../../src/agent/compact.js";
import { createSession, type Session } from "../../src/session/index.js";
import type { Message } from "../../src/core/messages.js";
import { formatSkillListing, loadSkillCatalog } from "../../src/tools/Skill/catalog.js";
import { anthropicAt, serve } from "../providers/support.js";

const sessions: Session[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

async function session() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-compact-")));
  const s = await createSession({ cwd: dir, home: path.join(dir, ".home"), sandbox: false });
  sessions.push(s);
  return { dir, s };
}

/** A long earlier conversation: two finished turns with long answers, then nothing pending. */
function longHistory(): Message[] {
  return [
    { role: "user", content: "first request: refactor the parser" },
    { role: "assistant", content: [{ type: "text", text: `parser notes ${"p".repeat(12_000)}` }] },
    { role: "user", content: "second request: and keep the old API" },
    { role: "assistant", content: [{ type: "text", text: `api notes ${"a".repeat(12_000)}` }] },
  ];
}

describe("compaction", () => {
  it("clears old large tool outputs first, without a model call, when that is enough", async () => {
    const messages: Message[] = [
      { role: "user", content: "read it" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "big" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "x".repeat(40_000) }] },
      { role: "assistant", content: [{ type: "text", text: "read" }] },
      { role: "user", content: "now the next thing" },
    ];
    expect(clearOldToolOutputs(messages, 1_000)).toBe(1);
    expect(JSON.stringify(messages[2])).toMatch(/cleared to save context/);
    expect(messages[4]).toEqual({ role: "user", content: "now the next thing" });
  });

  it("summarises before a request that would not fit: the summary request has no tools; the next request holds the summary, every earlier request and the last prompt verbatim", async () => {
    const { s } = await session();
    const server = await serve({
      turns: [
        { content: [{ type: "text", text: "SUMMARY: the parser was refactored; keep the old API." }] },
        { content: [{ type: "text", text: "continuing" }] },
      ],
    });
    const messages = longHistory();
    const system = ["You are a test.", "Contents of /p/TOOLGATE.md (instructions for this project):\n\nalways use tabs"];
    const threshold = compactionThreshold({ contextWindow: 6_000, maxOutputTokens: 1_000 });
    const events: AgentEvent[] = [];
    for await (const e of query("third request: add tests", { provider: anthropicAt(server), context: s.context, canUseTool: s.canUseTool, system, messages, compaction: { threshold, state: { failures: 0 } } })) events.push(e);
    expect(events.find((e) => e.type === "compact_boundary")).toMatchObject({ outcome: { kind: "summarised" } });
    expect(events.at(-1)).toMatchObject({ type: "result", result: { reason: "completed", text: "continuing" } });
    const [summaryRequest, next] = server.requests().map((r) => r.body);
    expect(summaryRequest.tools ?? []).toEqual([]);
    expect(JSON.stringify(summaryRequest.system)).toMatch(/summarise the earlier part/);
    const sent = JSON.stringify(next.messages);
    expect(sent).toContain("SUMMARY: the parser was refactored");
    expect(sent).toContain("first request: refactor the parser");
    expect(sent).toContain("second request: and keep the old API");
    expect(next.messages.at(-1).content[0].text).toBe("third request: add tests");
    expect(sent).not.toContain("p".repeat(1_000));
    expect(JSON.stringify(next.system)).toContain("always use tabs");
  });

  it("stops trying after three failed compactions in a row and says so", async () => {
    const { s } = await session();
    const failing = { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "summary refused" } } };
    // The API reports the conversation as large each time, so each prompt wants a compaction.
    const answer = (text: string) => ({ content: [{ type: "text" as const, text }], usage: { input_tokens: 9_000, output_tokens: 10 } });
    const server = await serve({ turns: [failing, answer("a"), failing, answer("b"), failing, answer("c"), answer("d")] });
    const messages = longHistory();
    const state = { failures: 0 };
    const notices: string[] = [];
    for (const prompt of ["one", "two", "three", "four"]) {
      for await (const e of query(prompt, { provider: anthropicAt(server), context: s.context, canUseTool: s.canUseTool, system: [], messages, compaction: { threshold: 2_000, state } })) {
        if (e.type === "notice") notices.push(e.message);
      }
    }
    expect(state.failures).toBe(MAX_FAILED_COMPACTIONS);
    expect(notices.some((n) => /failed 3 times in a row; it will not be tried again/.test(n))).toBe(true);
    expect(server.requests()).toHaveLength(7); // no fourth summary attempt
  });

  it("skills found during the session (not in the system prompt) are listed again in the summary message", async () => {
    const { dir, s } = await session();
    const skill = (name: string, description: string) => {
      fs.mkdirSync(path.join(dir, ".claude/skills", name), { recursive: true });
      fs.writeFileSync(path.join(dir, ".claude/skills", name, "SKILL.md"), `---\ndescription: ${description}\n---\nbody\n`);
    };
    skill("lint", "Lint the project.");
    const atStart = await loadSkillCatalog({ cwd: dir, home: path.join(dir, ".home"), userHome: path.join(dir, ".home") });
    const system = [formatSkillListing(atStart.list())!];
    skill("deploy", "Deploy to staging.");
    s.context.skills = await loadSkillCatalog({ cwd: dir, home: path.join(dir, ".home"), userHome: path.join(dir, ".home") });
    const server = await serve({ turns: [{ content: [{ type: "text", text: "S" }] }] });
    const messages = [...longHistory(), { role: "user" as const, content: "go on" }];
    const outcome = await compactHistory({ messages, provider: anthropicAt(server), context: s.context, system, threshold: 2_000, state: { failures: 0 }, force: true });
    expect(outcome.kind).toBe("summarised");
    const head = JSON.stringify(messages[0]);
    expect(head).toContain("- deploy: Deploy to staging.");
    expect(head).not.toContain("- lint:");
  });

  it("a single long turn is split at one of the model's messages, and roles still alternate", async () => {
    const { s } = await session();
    const server = await serve({ turns: [{ content: [{ type: "text", text: "S" }] }] });
    const messages: Message[] = [{ role: "user", content: "do it all" }];
    for (let i = 0; i < 6; i++) {
      messages.push({ role: "assistant", content: [{ type: "tool_use", id: `t${i}`, name: "Read", input: { file_path: `f${i}` } }] });
      messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${i}`, content: "r".repeat(3_000) }] });
    }
    const outcome = await compactHistory({ messages, provider: anthropicAt(server), context: s.context, system: [], threshold: 2_000, state: { failures: 0 }, force: true });
    expect(outcome.kind).toBe("summarised");
    expect(messages[0].role).toBe("user");
    expect(JSON.stringify(messages[0])).toContain("do it all");
    messages.forEach((m, i) => i > 0 && expect(m.role).not.toBe(messages[i - 1].role));
    expect(messages.at(-1)!.role).toBe("user");
  });
});
