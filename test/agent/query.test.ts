/**
 * The agent loop end to end: the real Anthropic / OpenAI SDK clients over loopback HTTP to the scripted model
 * server, real tools on real files, the session's permission engine and hooks.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeModelScript } from "../../scripts/fake-model.mjs";
import { query } from "../../src/agent/query.js";
import { createSession, type Session } from "../../src/session/index.js";
import type { Message } from "../../src/core/messages.js";
import { anthropicAt, BOTH, serve } from "../providers/support.js";
import { drive } from "./drive.js";

const sessions: Session[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

async function project(files: Record<string, string> = {}, settings?: object) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-loop-")));
  const home = path.join(dir, ".home");
  fs.mkdirSync(home);
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  if (settings) {
    fs.mkdirSync(path.join(dir, ".toolgate"));
    fs.writeFileSync(path.join(dir, ".toolgate", "settings.json"), JSON.stringify(settings));
  }
  const session = await createSession({ cwd: dir, home, permissionMode: "acceptEdits", sandbox: false, trust: true, env: { ...process.env, TOOLGATE_HOME: home } });
  sessions.push(session);
  return { dir, session };
}

/** Every tool_use in the history is answered by exactly one tool_result in the next message. */
function expectPaired(messages: Message[]) {
  messages.forEach((m, i) => {
    if (m.role !== "assistant") return;
    const ids = m.content.flatMap((b) => (b.type === "tool_use" ? [b.id as string] : []));
    if (!ids.length) return;
    const next = messages[i + 1];
    expect(next?.role).toBe("user");
    const answered = typeof next.content === "string" ? [] : next.content.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : []));
    expect(answered).toEqual(ids);
  });
}

const readThenAnswer: FakeModelScript = {
  turns: [
    { content: [{ type: "text", text: "Reading." }, { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "notes.txt" } }], chunks: 3, usage: { input_tokens: 100, output_tokens: 20 } },
    { content: [{ type: "text", text: "The note says hello." }], usage: { input_tokens: 150, output_tokens: 8 } },
  ],
};

describe("agent loop", () => {
  for (const [name, at] of BOTH) {
    it(`${name}: runs the tool the model asked for, sends the result back and ends when the model stops`, async () => {
      const server = await serve(readThenAnswer);
      const { session } = await project({ "notes.txt": "hello from the file\n" });
      const messages: Message[] = [];
      const { events, result } = await drive(query("What does notes.txt say?", { provider: at(server), context: session.context, canUseTool: session.canUseTool, system: ["You are a test."], messages }));
      expect(result).toMatchObject({ reason: "completed", turns: 2, text: "The note says hello.", permissionDenials: [] });
      expect(result.usage).toMatchObject({ inputTokens: 250, outputTokens: 28 });
      expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
      expectPaired(messages);
      // What the model was sent on the second request: the tool's real output.
      const second = JSON.stringify(server.requests()[1].body);
      expect(second).toContain("hello from the file");
      expect(second).toContain("toolu_1");
      const order = events.map((e) => (e.type === "tool" ? `tool:${e.update.type}` : e.type)).filter((t, i, all) => t !== all[i - 1]);
      expect(order[0]).toBe("user");
      expect(order).toContain("tool:result");
      expect(order.at(-1)).toBe("result");
    });
  }

  it("starts a tool while the model is still streaming: the message finishes only after the tool wrote its file", async () => {
    const { dir, session } = await project();
    const flag = path.join(dir, "written-by-tool.txt");
    const server = await serve({
      turns: [
        {
          content: [
            { type: "tool_use", id: "toolu_w", name: "Write", input: { file_path: flag, content: "x" } },
            { type: "text", text: "Wrote it." },
          ],
          steps: [{ after: 1, waitForFile: flag, timeoutMs: 10_000 }],
        },
        { content: [{ type: "text", text: "done" }] },
      ],
    });
    const { result } = await drive(query("write it", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: [], messages: [] }));
    expect(result.reason).toBe("completed");
    expect(fs.readFileSync(flag, "utf8")).toBe("x");
  });

  it("interrupt: the model stream and the running command stop, and every tool_use still gets a result", async () => {
    const { session } = await project();
    const server = await serve({
      turns: [
        {
          content: [{ type: "tool_use", id: "toolu_s", name: "Bash", input: { command: "sleep 30", description: "wait" } }, { type: "text", text: "never" }],
          steps: [{ after: 1, stallMs: 60_000 }],
        },
      ],
    });
    const controller = new AbortController();
    const messages: Message[] = [];
    const started = Date.now();
    const { result } = await drive(
      query("wait", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: [], messages, signal: controller.signal }),
      (e) => {
        if (e.type === "tool" && e.update.type === "status" && e.update.status === "running") setTimeout(() => controller.abort(), 100);
      },
    );
    expect(result.reason).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(10_000);
    expectPaired(messages);
    const reply = messages.at(-1)!;
    expect(JSON.stringify(reply.content)).toMatch(/is_error/);
  });

  it("stops at --max-turns with that reason", async () => {
    const { session } = await project({ "a.txt": "a" });
    const server = await serve({ loop: true, turns: [{ content: [{ type: "tool_use", id: "t", name: "Read", input: { file_path: "a.txt" } }] }] });
    const { result } = await drive(query("loop", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: [], messages: [], maxTurns: 2 }));
    expect(result).toMatchObject({ reason: "max_turns", turns: 2 });
    expect(server.requests()).toHaveLength(2);
  });

  it("tells the model, headless, when it makes the same call three times in a row", async () => {
    const { session } = await project({ "a.txt": "a" });
    const same = { content: [{ type: "tool_use" as const, id: "t", name: "Read", input: { file_path: "a.txt" } }] };
    const server = await serve({ turns: [same, { ...same, content: [{ ...same.content[0], id: "t2" }] }, { ...same, content: [{ ...same.content[0], id: "t3" }] }, { content: [{ type: "text", text: "ok" }] }] });
    const { result } = await drive(query("read", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: [], messages: [] }));
    expect(result.reason).toBe("completed");
    const bodies = server.requests().map((r) => JSON.stringify(r.body));
    expect(bodies[2]).not.toMatch(/3 times in a row/);
    expect(bodies[3]).toMatch(/this exact Read call 3 times in a row/);
  });

  it("asks the user, interactively, and stops when they say so", async () => {
    const { session } = await project({ "a.txt": "a" });
    const call = (id: string) => ({ content: [{ type: "tool_use" as const, id, name: "Read", input: { file_path: "a.txt" } }] });
    const server = await serve({ turns: [call("1"), call("2"), call("3"), { content: [{ type: "text", text: "unreached" }] }] });
    const asked: unknown[] = [];
    const messages: Message[] = [];
    const { result } = await drive(
      query("read", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: [], messages, onRepeatedCall: async (info) => (asked.push(info), "stop") }),
    );
    expect(asked).toEqual([{ toolName: "Read", count: 3 }]);
    expect(result.reason).toBe("hook_stopped");
    expectPaired(messages);
  });

  for (const [name, at] of BOTH) {
    it(`${name}: a tool call with broken arguments gets an is_error result the model can correct`, async () => {
      const { session } = await project({ "a.txt": "content a" });
      const server = await serve({
        turns: [
          { content: [{ type: "tool_use", id: "bad", name: "Read", rawInput: '{"file_path": "a.t' }] },
          { content: [{ type: "tool_use", id: "good", name: "Read", input: { file_path: "a.txt" } }] },
          { content: [{ type: "text", text: "fixed" }] },
        ],
      });
      const messages: Message[] = [];
      const { result } = await drive(query("read", { provider: at(server), context: session.context, canUseTool: session.canUseTool, system: [], messages }));
      expect(result).toMatchObject({ reason: "completed", text: "fixed" });
      expectPaired(messages);
      const firstReply = JSON.stringify(messages[2]);
      expect(firstReply).toMatch(/not valid JSON/);
      expect(firstReply).toMatch(/"is_error":true/);
      expect(JSON.stringify(server.requests()[2].body)).toContain("content a");
    });
  }

  it("recovers when the output limit cuts a tool call: the model is asked to go on", async () => {
    const { session } = await project();
    const server = await serve({
      turns: [
        { content: [{ type: "tool_use", id: "cut", name: "Write", rawInput: '{"file_path": "big.txt", "content": "aaaa' }], stop_reason: "max_tokens" },
        { content: [{ type: "text", text: "Writing in parts." }] },
      ],
    });
    const messages: Message[] = [];
    const { result } = await drive(query("write a big file", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: [], messages }));
    expect(result.reason).toBe("completed");
    expectPaired(messages);
    expect(JSON.stringify(server.requests()[1].body)).toMatch(/output token limit/);
  });

  it("asks the model to continue when its text hits the output limit, at most three times", async () => {
    const { session } = await project();
    const server = await serve({ loop: true, turns: [{ content: [{ type: "text", text: "part" }], stop_reason: "max_tokens" }] });
    const { result } = await drive(query("long answer", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: [], messages: [] }));
    expect(result).toMatchObject({ reason: "error", turns: 4 });
    expect(result.error).toMatch(/output limit 4 times/);
  });

  it("names prompt_too_long when the API refuses the conversation's size", async () => {
    const { session } = await project();
    const server = await serve({ turns: [{ status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 250000 tokens > 200000 maximum" } } }] });
    const { result } = await drive(query("hi", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: [], messages: [] }));
    expect(result.reason).toBe("prompt_too_long");
    expect(result.error).toMatch(/prompt is too long/);
  });

  it("ends with reason error, and a valid history, when the connection drops mid-message after a tool call", async () => {
    const { session } = await project({ "a.txt": "a" });
    const server = await serve({ turns: [{ content: [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "a.txt" } }, { type: "text", text: "x" }], steps: [{ after: 1, drop: true }] }] });
    const messages: Message[] = [];
    const { result } = await drive(query("hi", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: [], messages }));
    expect(result.reason).toBe("error");
    expectPaired(messages);
  });

  it("records permission denials: a command no rule allows is denied headless", async () => {
    const { session } = await project();
    const server = await serve({ turns: [{ content: [{ type: "tool_use", id: "push", name: "Bash", input: { command: "git push origin main" } }] }, { content: [{ type: "text", text: "ok" }] }] });
    const { result } = await drive(query("push", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: [], messages: [] }));
    expect(result.permissionDenials).toEqual([{ toolName: "Bash", toolUseID: "push", toolInput: { command: "git push origin main" } }]);
  });
});

describe("agent loop hooks", () => {
  it("a UserPromptSubmit hook that blocks keeps the prompt from the model; one that prints adds context", async () => {
    const blocking = await project({}, { hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo 'no deploys on friday' >&2; exit 2" }] }] } });
    const server = await serve({ turns: [{ content: [{ type: "text", text: "hi" }] }] });
    const { result } = await drive(query("deploy", { provider: anthropicAt(server), context: blocking.session.context, canUseTool: blocking.session.canUseTool, system: [], messages: [] }));
    expect(result).toMatchObject({ reason: "hook_stopped" });
    expect(result.error).toMatch(/no deploys on friday/);
    expect(server.requests()).toHaveLength(0);

    const adding = await project({}, { hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo 'ticket ABC-1 is open'" }] }] } });
    const { result: ok } = await drive(query("status?", { provider: anthropicAt(server), context: adding.session.context, canUseTool: adding.session.canUseTool, system: [], messages: [] }));
    expect(ok.reason).toBe("completed");
    expect(JSON.stringify(server.requests()[0].body)).toContain("ticket ABC-1 is open");
  });

  it("a Stop hook sends the model back to work once, with its reason", async () => {
    const script = 'input=$(cat); case "$input" in *\'"stop_hook_active":true\'*) exit 0;; esac; echo "run the tests first" >&2; exit 2';
    const { session } = await project({}, { hooks: { Stop: [{ hooks: [{ type: "command", command: script }] }] } });
    const server = await serve({ turns: [{ content: [{ type: "text", text: "done?" }] }, { content: [{ type: "text", text: "tests pass" }] }] });
    const { result } = await drive(query("work", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: [], messages: [] }));
    expect(result).toMatchObject({ reason: "completed", turns: 2, text: "tests pass" });
    expect(JSON.stringify(server.requests()[1].body)).toContain("run the tests first");
  });
});

describe("the library example in docs/print.md (the agent loop from code)", () => {
  it("runs as written, from the package root's exports", async () => {
    const api = await import("../../src/index.js");
    const server = await serve(readThenAnswer);
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-readme-")));
    fs.writeFileSync(path.join(dir, "notes.txt"), "hello");
    const session = await api.createSession({ cwd: dir, home: path.join(dir, ".home"), sandbox: false });
    sessions.push(session);
    const provider = api.createProvider({ model: "claude-sonnet-4-5", baseURL: server.url, apiKey: "k", env: {} });
    const system = api.buildSystemPrompt({
      environment: await api.readEnvironment(dir),
      instructions: api.findProjectInstructions({ cwd: dir, home: session.context.paths.home }),
    });
    const messages: Message[] = [];
    let reason = "";
    for await (const event of api.query("List the TODOs in src/", { provider, context: session.context, canUseTool: session.canUseTool, system, messages })) {
      if (event.type === "result") reason = event.result.reason;
    }
    expect(reason).toBe("completed");
    expect(server.requests()[0].body.system.map((b: { text: string }) => b.text).join("\n")).toContain(`Working directory: ${dir}`);
  });
});

describe("interrupts and interruptBehavior", () => {
  it("a running call of a tool that blocks interrupts finishes; the others are cancelled; every call has its result", async () => {
    const { buildTool } = await import("../../src/core/buildTool.js");
    const { getBuiltinTools } = await import("../../src/tools/index.js");
    const { z } = await import("zod");
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-block-")));
    const marker = path.join(dir, "finished");
    const migrate = buildTool({
      name: "Migrate",
      maxResultSizeChars: 1000,
      inputSchema: z.strictObject({ ms: z.number() }),
      description: () => "runs a migration that must not stop half way",
      prompt: () => "runs a migration",
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      interruptBehavior: () => "block" as const,
      call: async ({ ms }) => {
        await new Promise((r) => setTimeout(r, ms));
        fs.writeFileSync(marker, "done");
        return { data: "migrated" };
      },
      mapToolResultToToolResultBlockParam: (text: string, id) => ({ type: "tool_result", tool_use_id: id, content: text }),
    });
    const session = await createSession({ cwd: dir, home: path.join(dir, ".home"), sandbox: false, tools: [...getBuiltinTools(), migrate], allowedTools: ["Migrate"] });
    sessions.push(session);
    const server = await serve({
      turns: [
        {
          content: [
            { type: "tool_use", id: "m1", name: "Migrate", input: { ms: 1_500 } },
            { type: "tool_use", id: "s1", name: "Bash", input: { command: "sleep 30" } },
          ],
        },
      ],
    });
    const controller = new AbortController();
    const messages: Message[] = [];
    const running = new Set<string>();
    let interruptedAt = 0;
    const { result } = await drive(
      query("migrate", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: [], messages, signal: controller.signal }),
      (e) => {
        // Interrupt while both run in parallel (a read-only `sleep` is concurrency-safe): Migrate is mid-way.
        if (e.type === "tool" && e.update.type === "status" && e.update.status === "running") running.add(e.update.toolName);
        if (running.size === 2 && !interruptedAt) {
          interruptedAt = Date.now();
          setTimeout(() => controller.abort(), 100);
        }
      },
    );
    expect(result.reason).toBe("aborted");
    expect(interruptedAt).toBeGreaterThan(0);
    expectPaired(messages);
    expect(fs.readFileSync(marker, "utf8")).toBe("done");
    const reply = messages.at(-1)!.content as Array<{ tool_use_id: string; content: unknown; is_error?: boolean }>;
    const byId = Object.fromEntries(reply.map((b) => [b.tool_use_id, b]));
    expect(byId.m1).toMatchObject({ content: "migrated" });
    expect(byId.m1.is_error).toBeFalsy();
    expect(byId.s1.is_error).toBe(true);
    expect(JSON.stringify(byId.s1.content)).toMatch(/interrupted/);
  });
});
