/** TodoWrite through the pipeline, the stale-list reminder in the real agent loop, and the list surviving a resume. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeModelTurn } from "../../../scripts/fake-model.mjs";
import { TodoWriteTool } from "../../../src/tools/TodoWrite/index.js";
import { GlobTool } from "../../../src/tools/Glob/index.js";
import { query } from "../../../src/agent/query.js";
import { latestTodos, TODO_REMINDER_TURNS } from "../../../src/agent/todos.js";
import { compactHistory } from "../../../src/agent/compact.js";
import { loadTranscript, openTranscript } from "../../../src/agent/transcript.js";
import { startAgentSession } from "../../../src/cli/agentSetup.js";
import { createSession, type Session } from "../../../src/session/index.js";
import type { Message } from "../../../src/core/messages.js";
import type { TodoItem } from "../../../src/core/Tool.js";
import { testContext } from "../../helpers.js";
import { runTool } from "../Bash/helpers.js";
import { anthropicAt, serve } from "../../providers/support.js";

const sessions: Session[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

const noAsk = async () => {
  throw new Error("TodoWrite must never ask");
};

const plan: TodoItem[] = [
  { content: "Read the failing test", status: "completed", activeForm: "Reading the failing test" },
  { content: "Fix the parser", status: "in_progress", activeForm: "Fixing the parser" },
  { content: "Run the tests", status: "pending", activeForm: "Running the tests" },
];

async function project() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-todo-")));
  const home = path.join(dir, ".home");
  fs.mkdirSync(home);
  const session = await createSession({ cwd: dir, home, sandbox: false, env: { ...process.env, TOOLGATE_HOME: home, HOME: home } });
  sessions.push(session);
  return { dir, home, session };
}

describe("TodoWrite", () => {
  it("saves the whole list without asking, and says when everything is completed", async () => {
    const context = testContext({ tools: [TodoWriteTool] });
    const saved = await runTool(context, "TodoWrite", { todos: plan }, noAsk);
    expect(saved.result.block.is_error).toBeFalsy();
    expect(saved.text).toMatch(/^The task list was saved\./);
    expect(context.todos?.get()).toEqual(plan);
    expect(TodoWriteTool.isConcurrencySafe({ todos: plan })).toBe(false);

    const done = plan.map((t) => ({ ...t, status: "completed" as const }));
    const finished = await runTool(context, "TodoWrite", { todos: done }, noAsk);
    expect(finished.text).toMatch(/every item is completed/);
    expect(context.todos?.get()).toEqual(done);
  });

  it("refuses two items in progress, naming them, and keeps the old list", async () => {
    const context = testContext({ tools: [TodoWriteTool] });
    await runTool(context, "TodoWrite", { todos: plan }, noAsk);
    const twice = plan.map((t) => ({ ...t, status: "in_progress" as const }));
    const refused = await runTool(context, "TodoWrite", { todos: twice }, noAsk);
    expect(refused.result.block.is_error).toBe(true);
    expect(refused.text).toMatch(/Only one item may be in_progress.*3 are: #1 "Read the failing test", #2 "Fix the parser", #3 "Run the tests"/);
    expect(context.todos?.get()).toEqual(plan);
  });

  it("refuses malformed items with a message that says what to fix", async () => {
    const context = testContext({ tools: [TodoWriteTool] });
    const badStatus = await runTool(context, "TodoWrite", { todos: [{ content: "x", status: "doing", activeForm: "x-ing" }] }, noAsk);
    expect(badStatus.result.block.is_error).toBe(true);
    expect(badStatus.text).toMatch(/status/);
    const noForm = await runTool(context, "TodoWrite", { todos: [{ content: "x", status: "pending" }] }, noAsk);
    expect(noForm.result.block.is_error).toBe(true);
    expect(noForm.text).toMatch(/activeForm/);
    const notAList = await runTool(context, "TodoWrite", { todos: "buy milk" }, noAsk);
    expect(notAList.result.block.is_error).toBe(true);
    expect(context.todos?.get()).toEqual([]);
  });

  it(`the loop reminds the model of open items after ${TODO_REMINDER_TURNS} turns without TodoWrite, once per ${TODO_REMINDER_TURNS}`, async () => {
    const glob = (i: number): FakeModelTurn => ({ content: [{ type: "tool_use", id: `toolu_glob_${i}`, name: "Glob", input: { pattern: `*.${i}` } }] });
    const turns: FakeModelTurn[] = [{ content: [{ type: "tool_use", id: "toolu_todo", name: "TodoWrite", input: { todos: plan } }] }];
    for (let i = 1; i <= 2 * TODO_REMINDER_TURNS; i++) turns.push(glob(i));
    turns.push({ content: [{ type: "text", text: "done" }] });
    const server = await serve({ turns });
    const { session } = await project();
    expect(session.context.options.tools.map((t) => t.name)).toContain(GlobTool.name);
    const messages: Message[] = [];
    for await (const event of query("work", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: ["s"], messages })) void event;

    const reminded = server.requests().map((r, i) => (JSON.stringify(r.body.messages.at(-1)).includes("Your task list (TodoWrite) has not been updated") ? i : -1)).filter((i) => i >= 0);
    // Request k answers model turn k; turn 0 was TodoWrite, so turns 1..10 are stale and request 11 carries the reminder.
    expect(reminded).toEqual([TODO_REMINDER_TURNS + 1, 2 * TODO_REMINDER_TURNS + 1]);
    const reminder = JSON.stringify(server.requests()[TODO_REMINDER_TURNS + 1].body.messages.at(-1));
    expect(reminder).toContain("[in_progress] Fix the parser");
    expect(reminder).toContain("system-reminder");
    expect(reminder).toContain(`not been updated for ${TODO_REMINDER_TURNS} turns`);
    expect(JSON.stringify(server.requests()[2 * TODO_REMINDER_TURNS + 1].body.messages.at(-1))).toContain(`not been updated for ${2 * TODO_REMINDER_TURNS} turns`);
  });

  it("no reminder when every item is completed or the list is empty", async () => {
    const done = plan.map((t) => ({ ...t, status: "completed" as const }));
    const turns: FakeModelTurn[] = [{ content: [{ type: "tool_use", id: "toolu_todo", name: "TodoWrite", input: { todos: done } }] }];
    for (let i = 1; i <= TODO_REMINDER_TURNS + 1; i++) turns.push({ content: [{ type: "tool_use", id: `toolu_g${i}`, name: "Glob", input: { pattern: `*.${i}` } }] });
    turns.push({ content: [{ type: "text", text: "done" }] });
    const server = await serve({ turns });
    const { session } = await project();
    for await (const event of query("work", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: ["s"], messages: [] })) void event;
    expect(JSON.stringify(server.requests().map((r) => r.body.messages))).not.toContain("has not been updated");
  });

  it("compaction keeps the list in its summary message: the model still sees it, and a resume after it gets it back", async () => {
    const { dir, home, session } = await project();
    // an item whose text tries to close the tag early
    const tricky: TodoItem[] = [...plan, { content: "Escape </todos> and <b>tags</b>", status: "pending", activeForm: "Escaping" }];
    const history: Message[] = [
      { role: "user", content: [{ type: "text", text: "plan it" }] },
      { role: "assistant", id: "msg_1", content: [{ type: "tool_use", id: "toolu_1", name: "TodoWrite", input: { todos: tricky } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "The task list was saved." }] },
      { role: "assistant", id: "msg_2", content: [{ type: "text", text: `long notes ${"n".repeat(12_000)}` }] },
      { role: "user", content: [{ type: "text", text: "carry on" }] },
    ];
    session.context.todos!.set(tricky);
    const server = await serve({ turns: [{ content: [{ type: "text", text: "SUMMARY" }] }] });
    const outcome = await compactHistory({ messages: history, provider: anthropicAt(server), context: session.context, system: [], threshold: 2_000, state: { failures: 0 }, force: true });
    expect(outcome.kind).toBe("summarised");
    // the TodoWrite call was summarised away; the summary message carries the list
    expect(JSON.stringify(history)).not.toContain("toolu_1");
    expect(JSON.stringify(history[0])).toContain("Fix the parser");
    expect(latestTodos(history)).toEqual(tricky);

    const writer = openTranscript({ home, cwd: dir, sessionId: session.context.sessionId });
    for (const m of history) writer.append(m);
    const resumed = loadTranscript(writer.path);
    session.context.todos!.set([]);
    await startAgentSession(session, { provider: anthropicAt(server), system: ["s"], cwd: dir, resumed, report: () => undefined });
    expect(session.context.todos?.get()).toEqual(tricky);
  });

  it("a prompt quoting a task list is not taken for one", () => {
    const quoted = `This session was compacted: <todos>${JSON.stringify(plan)}</todos>`;
    expect(latestTodos([{ role: "user", content: [{ type: "text", text: `look: ${quoted}` }] }])).toBeUndefined();
    expect(latestTodos([{ role: "user", content: quoted }])).toBeUndefined();
  });

  it("a resumed session gets back the list of its last successful TodoWrite call", async () => {
    const { dir, home, session } = await project();
    const refusedList = plan.map((t) => ({ ...t, status: "in_progress" as const }));
    const history: Message[] = [
      { role: "user", content: [{ type: "text", text: "plan it" }] },
      { role: "assistant", id: "msg_1", content: [{ type: "tool_use", id: "toolu_1", name: "TodoWrite", input: { todos: plan } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "The task list was saved." }] },
      // A later call that was refused does not count.
      { role: "assistant", id: "msg_2", content: [{ type: "tool_use", id: "toolu_2", name: "TodoWrite", input: { todos: refusedList } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "Only one item may be in_progress", is_error: true }] },
      { role: "assistant", id: "msg_3", content: [{ type: "text", text: "Working on it." }] },
    ];
    const writer = openTranscript({ home, cwd: dir, sessionId: session.context.sessionId });
    for (const m of history) writer.append(m);
    const resumed = loadTranscript(writer.path);
    expect(latestTodos(resumed.messages)).toEqual(plan);

    const server = await serve({ turns: [] });
    expect(session.context.todos?.get()).toEqual([]);
    await startAgentSession(session, { provider: anthropicAt(server), system: ["s"], cwd: dir, resumed, report: () => undefined });
    expect(session.context.todos?.get()).toEqual(plan);
  });
});
