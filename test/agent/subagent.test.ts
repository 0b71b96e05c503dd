/**
 * Subagents end to end through the agent loop: the Agent tool over the real runner, the real Anthropic SDK client
 * against the scripted model server, real tools on real files, real hook processes.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { FakeModelScript, FakeModelTurn } from "../../scripts/fake-model.mjs";
import { query, type AgentEvent } from "../../src/agent/query.js";
import { createSubagentRunner, enableSubagents } from "../../src/agent/subagent.js";
import { BUILTIN_AGENT_TYPES, loadAgentTypes, type AgentTypeDefinition } from "../../src/agent/agentTypes.js";
import { createSession, type Session } from "../../src/session/index.js";
import type { Message, ToolResultBlockParam } from "../../src/core/messages.js";
import type { PermissionMode } from "../../src/core/permissionTypes.js";
import type { SubagentProgress } from "../../src/core/Tool.js";
import { anthropicAt, serve } from "../providers/support.js";
import { drive } from "./drive.js";

vi.setConfig({ testTimeout: 60_000 });

const sessions: Session[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

async function project(options: { files?: Record<string, string>; settings?: object; mode?: PermissionMode } = {}) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-sub-")));
  const home = path.join(dir, ".home");
  fs.mkdirSync(home);
  for (const [name, content] of Object.entries(options.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  if (options.settings) {
    fs.mkdirSync(path.join(dir, ".toolgate"), { recursive: true });
    fs.writeFileSync(path.join(dir, ".toolgate", "settings.json"), JSON.stringify(options.settings));
  }
  const session = await createSession({ cwd: dir, home, permissionMode: options.mode ?? "acceptEdits", sandbox: false, trust: true, env: { ...process.env, TOOLGATE_HOME: home, HOME: home } });
  sessions.push(session);
  return { dir, home, session };
}

function withSubagents(session: Session, server: Parameters<typeof anthropicAt>[0], types: readonly AgentTypeDefinition[] = BUILTIN_AGENT_TYPES) {
  enableSubagents(session.context, createSubagentRunner({ provider: anthropicAt(server), types, systemFor: (prompt) => [prompt, "<environment>test</environment>"] }));
}

function toolResults(messages: Message[]): ToolResultBlockParam[] {
  return messages.flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content.filter((b): b is ToolResultBlockParam => b.type === "tool_result") : []));
}

function resultText(block: ToolResultBlockParam | undefined): string {
  if (!block) return "";
  return typeof block.content === "string" ? block.content : block.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

const agentCall = (id: string, input: Record<string, unknown>): FakeModelTurn => ({ content: [{ type: "tool_use", id, name: "Agent", input }] });
const say = (text: string): FakeModelTurn => ({ content: [{ type: "text", text }], usage: { input_tokens: 50, output_tokens: 5 } });

function progressOf(events: AgentEvent[]): SubagentProgress[] {
  return events.flatMap((e) => (e.type === "tool" && e.update.type === "progress" ? [e.update.data as SubagentProgress] : []));
}

describe("Agent tool (subagents)", () => {
  it("runs a subagent with a fresh conversation and its own read state; the parent gets its final text, with a footer", async () => {
    const server = await serve({
      turns: [
        agentCall("toolu_agent", { description: "Read the notes", prompt: "What does notes.txt say? Quote it." }),
        { content: [{ type: "text", text: "Reading it." }, { type: "tool_use", id: "toolu_sub_read", name: "Read", input: { file_path: "notes.txt" } }], usage: { input_tokens: 40, output_tokens: 10 } },
        say("notes.txt says: the launch is on Friday."),
        say("The subagent found that the launch is on Friday."),
      ],
    });
    const { dir, session } = await project({ files: { "notes.txt": "the launch is on Friday\n" } });
    withSubagents(session, server);
    const messages: Message[] = [];
    const { events, result } = await drive(query("When is the launch?", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: ["parent system"], messages }));
    expect(result).toMatchObject({ reason: "completed", turns: 2, text: "The subagent found that the launch is on Friday." });

    const agentResult = toolResults(messages).find((b) => b.tool_use_id === "toolu_agent");
    expect(agentResult?.is_error).toBeUndefined();
    const text = resultText(agentResult);
    expect(text).toContain("notes.txt says: the launch is on Friday.");
    expect(text).toMatch(/\[subagent general-purpose agent-[0-9a-f]{8}: 2 turns, 105 tokens, [\d.]+ s\]/);

    // The subagent's first request: its own system prompt, only its prompt as history, no Agent or TaskStop.
    const requests = server.requests();
    const sub = requests[1].body;
    expect(JSON.stringify(sub.system)).toContain("You are a subagent");
    expect(sub.messages).toHaveLength(1);
    expect(JSON.stringify(sub.messages[0])).toContain("What does notes.txt say?");
    const subTools = sub.tools.map((t: { name: string }) => t.name);
    expect(subTools).toEqual(expect.arrayContaining(["Read", "Bash", "TodoWrite"]));
    expect(subTools).not.toContain("Agent");
    expect(subTools).not.toContain("TaskStop");
    expect(requests[0].body.tools.map((t: { name: string }) => t.name)).toContain("Agent");
    expect(JSON.stringify(requests[0].body.tools)).toContain("general-purpose");
    // The file content reached the subagent, and the parent's read state never saw the file.
    expect(JSON.stringify(requests[2].body)).toContain("the launch is on Friday");
    expect(session.context.readFileState.get(path.join(dir, "notes.txt"))).toBeUndefined();

    // Progress: the subagent's text, its Read call with a one-line summary, and the Read's outcome.
    const progress = progressOf(events);
    expect(progress.map((p) => p.type)).toEqual(["subagent_text", "subagent_tool_use", "subagent_tool_result", "subagent_text"]);
    expect(progress[1]).toMatchObject({ toolName: "Read", toolUseID: "toolu_sub_read" });
    expect((progress[1] as { summary: string }).summary).toContain("notes.txt");
    expect(progress[2]).toMatchObject({ outcome: "success" });

    // The subagent's conversation is kept beside the session's transcript.
    const agentId = /agent-[0-9a-f]{8}/.exec(text)![0];
    const file = path.join(session.context.paths.sessionDir, "subagents", `${agentId}.jsonl`);
    const lines = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "session", agentId, agentType: "general-purpose", parentToolUseID: "toolu_agent" });
    expect(lines.filter((l) => l.type === "message").map((l) => l.message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(lines.at(-1)).toMatchObject({ type: "result", reason: "completed", turns: 2 });
  });

  it("a custom agent type gets only its tools: a call to another tool is refused; an unknown type lists the valid ones", async () => {
    const server = await serve({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_bad_type", name: "Task", input: { description: "x", prompt: "y", subagent_type: "nope" } }, { type: "tool_use", id: "toolu_reader", name: "Task", input: { description: "Inspect files", prompt: "Run ls.", subagent_type: "reader" } }] },
        { content: [{ type: "tool_use", id: "toolu_sub_bash", name: "Bash", input: { command: "touch pwned" } }] },
        say("I could not run Bash."),
        say("done"),
      ],
    });
    const { dir, session } = await project({
      mode: "bypassPermissions",
      files: { ".toolgate/agents/reader.md": "---\nname: reader\ndescription: Reads files and reports.\ntools: Read, Grep\nmodel: inherit\n---\nYou only read.\n" },
    });
    const loaded = loadAgentTypes({ cwd: dir, home: path.join(dir, ".home"), userHome: path.join(dir, ".home") });
    expect(loaded.warnings).toEqual([]);
    withSubagents(session, server, loaded.types);
    const messages: Message[] = [];
    await drive(query("go", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: ["parent"], messages }));

    const results = toolResults(messages);
    const badType = results.find((b) => b.tool_use_id === "toolu_bad_type")!;
    expect(badType.is_error).toBe(true);
    expect(resultText(badType)).toMatch(/Unknown subagent_type "nope".*general-purpose, reader/);

    const subRequest = server.requests()[1].body;
    expect(subRequest.tools.map((t: { name: string }) => t.name).sort()).toEqual(["Grep", "Read"]);
    expect(JSON.stringify(subRequest.system)).toContain("You only read.");
    // The subagent's Bash call was refused as an unknown tool, and nothing ran (even in bypassPermissions).
    const subResult = JSON.stringify(server.requests()[2].body.messages.at(-1));
    expect(subResult).toContain("No such tool available: Bash");
    expect(fs.existsSync(path.join(dir, "pwned"))).toBe(false);
    expect(resultText(results.find((b) => b.tool_use_id === "toolu_reader"))).toContain("I could not run Bash.");
  });

  it("a subagent cannot start subagents or stop tasks, by any name, even when its type lists them", async () => {
    const forbidden = [
      { type: "tool_use" as const, id: "toolu_n1", name: "Agent", input: { description: "nest", prompt: "nest" } },
      { type: "tool_use" as const, id: "toolu_n2", name: "Task", input: { description: "nest", prompt: "nest" } },
      { type: "tool_use" as const, id: "toolu_n3", name: "TaskStop", input: { task_id: "x" } },
      { type: "tool_use" as const, id: "toolu_n4", name: "KillShell", input: { task_id: "x" } },
    ];
    for (const type of [BUILTIN_AGENT_TYPES[0], { ...BUILTIN_AGENT_TYPES[0], name: "greedy", tools: ["Agent", "Task", "TaskStop", "KillShell", "Read"] }]) {
      const server = await serve({ turns: [agentCall("toolu_agent", { description: "Try nesting", prompt: "Nest.", subagent_type: type.name }), { content: forbidden }, say("I could not."), say("ok")] });
      const { session } = await project({ mode: "bypassPermissions" });
      withSubagents(session, server, [type]);
      await drive(query("go", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: ["parent"], messages: [] }));
      const requests = server.requests();
      // No nested subagent ever asked the model for anything: parent, subagent twice, parent.
      expect(requests).toHaveLength(4);
      if (type.name === "greedy") expect(requests[1].body.tools.map((t: { name: string }) => t.name)).toEqual(["Read"]);
      const results = requests[2].body.messages.at(-1).content as Array<{ tool_use_id: string; is_error?: boolean; content: unknown }>;
      expect(results.map((r) => r.tool_use_id)).toEqual(["toolu_n1", "toolu_n2", "toolu_n3", "toolu_n4"]);
      for (const r of results) {
        expect(r.is_error).toBe(true);
        expect(JSON.stringify(r.content)).toContain("No such tool available");
      }
    }
  });

  it("several Agent calls in one message run at the same time (each subagent waits until the other has started)", async () => {
    const barrier = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-barrier-")));
    // Each subagent's command leaves a mark and waits (at most ~20 s) for two marks: it can only succeed if both run at once.
    const command = `mktemp -p ${barrier} >/dev/null; for i in $(seq 400); do [ "$(ls ${barrier} | wc -l)" -ge 2 ] && echo both-started && exit 0; sleep 0.05; done; echo alone; exit 1`;
    const subTurn: FakeModelTurn = { content: [{ type: "tool_use", id: "toolu_wait", name: "Bash", input: { command, description: "wait for the other" } }] };
    const script: FakeModelScript = {
      turns: [
        { content: [{ type: "tool_use", id: "toolu_a", name: "Agent", input: { description: "First half", prompt: "Do the first half." } }, { type: "tool_use", id: "toolu_b", name: "Agent", input: { description: "Second half", prompt: "Do the second half." } }] },
        subTurn,
        subTurn,
        say("half done"),
        say("half done"),
        say("Both halves are done."),
      ],
    };
    const server = await serve(script);
    const { session } = await project({ mode: "bypassPermissions" });
    withSubagents(session, server);
    const messages: Message[] = [];
    const { result } = await drive(query("split the work", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: ["parent"], messages }));
    expect(result.reason).toBe("completed");
    const results = toolResults(messages);
    for (const id of ["toolu_a", "toolu_b"]) {
      const block = results.find((b) => b.tool_use_id === id);
      expect(block?.is_error).toBeUndefined();
      expect(resultText(block)).toContain("half done");
    }
    // Both subagents' commands saw the other's mark.
    const bashResults = server.requests().slice(3, 5).map((r) => JSON.stringify(r.body.messages.at(-1)));
    for (const r of bashResults) expect(r).toContain("both-started");
    expect(fs.readdirSync(barrier)).toHaveLength(2);
  });

  it("interrupting the parent interrupts the subagent: its command is stopped and the Agent result says so", async () => {
    const marker = path.join(fs.realpathSync(os.tmpdir()), `toolgate-sub-int-${process.pid}-${Date.now()}`);
    const server = await serve({
      turns: [
        agentCall("toolu_agent", { description: "Long job", prompt: "Run the long job." }),
        { content: [{ type: "tool_use", id: "toolu_long", name: "Bash", input: { command: `touch ${marker}; sleep 31.4159; echo finished`, description: "long job" } }] },
        say("never sent"),
      ],
    });
    const { session } = await project({ mode: "bypassPermissions" });
    withSubagents(session, server);
    const controller = new AbortController();
    const messages: Message[] = [];
    const { result } = await drive(query("run it", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: ["parent"], messages, signal: controller.signal }), (e) => {
      if (e.type === "tool" && e.update.type === "progress" && (e.update.data as SubagentProgress).type === "subagent_tool_use") {
        // Interrupt once the subagent's command has really started.
        const poll = setInterval(() => {
          if (fs.existsSync(marker)) {
            clearInterval(poll);
            controller.abort();
          }
        }, 20);
      }
    });
    fs.rmSync(marker, { force: true });
    expect(result.reason).toBe("aborted");
    const agentResult = toolResults(messages).find((b) => b.tool_use_id === "toolu_agent");
    expect(agentResult?.is_error).toBe(true);
    expect(resultText(agentResult)).toMatch(/interrupt/i);
    // The subagent made no further request, and its command's process is gone.
    expect(server.requests()).toHaveLength(2);
    const ps = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
    expect(ps).not.toContain("sleep 31.4159");
  });

  it("SubagentStop hooks (matched on the agent type) can send the subagent back to work; Stop runs for the parent only", async () => {
    const hooksDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-subhooks-")));
    const seen = path.join(hooksDir, "subagent-stop.jsonl");
    const stops = path.join(hooksDir, "stop.jsonl");
    const other = path.join(hooksDir, "other.jsonl");
    const subScript = path.join(hooksDir, "sub.sh");
    fs.writeFileSync(subScript, `#!/bin/bash\ninput=$(cat)\necho "$input" >> ${seen}\nif echo "$input" | grep -q '"stop_hook_active":true'; then exit 0; fi\necho "run the tests first" >&2\nexit 2\n`, { mode: 0o755 });
    const server = await serve({
      turns: [agentCall("toolu_agent", { description: "Fix it", prompt: "Fix the bug." }), say("Fixed."), say("Fixed, and the tests pass."), say("All done.")],
    });
    const { session } = await project({
      settings: {
        hooks: {
          SubagentStop: [
            { matcher: "general-purpose", hooks: [{ type: "command", command: subScript }] },
            { matcher: "reviewer", hooks: [{ type: "command", command: `cat >> ${other}` }] },
            { matcher: "general-.*", hooks: [{ type: "command", command: "echo hook-broke >&2; exit 1" }] },
          ],
          Stop: [{ hooks: [{ type: "command", command: `cat >> ${stops}` }] }],
        },
      },
    });
    withSubagents(session, server);
    const messages: Message[] = [];
    const { events, result } = await drive(query("fix", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: ["parent"], messages }));
    expect(result).toMatchObject({ reason: "completed", text: "All done." });
    // The subagent was asked to continue with the hook's reason, and its second answer is what the parent got.
    expect(JSON.stringify(server.requests()[2].body.messages.at(-1))).toContain("A SubagentStop hook asked you to continue: run the tests first");
    expect(resultText(toolResults(messages).find((b) => b.tool_use_id === "toolu_agent"))).toContain("Fixed, and the tests pass.");
    const payloads = fs.readFileSync(seen, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(payloads).toHaveLength(2);
    expect(payloads[0]).toMatchObject({ hook_event_name: "SubagentStop", agent_type: "general-purpose", stop_hook_active: false });
    expect(payloads[0].agent_id).toMatch(/^agent-/);
    expect(payloads[1]).toMatchObject({ stop_hook_active: true });
    expect(fs.existsSync(other)).toBe(false);
    // A failing SubagentStop hook is reported to the user through the Agent call's progress.
    const notices = progressOf(events).filter((p) => p.type === "subagent_notice");
    expect(notices.length).toBeGreaterThan(0);
    expect(notices[0]).toMatchObject({ level: "error" });
    expect(JSON.stringify(notices)).toContain("hook-broke");
    // The parent's Stop hook ran once, for the parent's own stop.
    expect(fs.readFileSync(stops, "utf8").trim().split("\n")).toHaveLength(1);
  });

  it("a subagent that reaches its turn limit is an error result that says so", async () => {
    const server = await serve({
      turns: [
        agentCall("toolu_agent", { description: "Search", prompt: "Look around." }),
        { content: [{ type: "text", text: "Looking." }, { type: "tool_use", id: "toolu_glob", name: "Glob", input: { pattern: "*" } }] },
        say("I gave up."),
      ],
    });
    const { session } = await project();
    withSubagents(session, server, [{ ...BUILTIN_AGENT_TYPES[0], maxTurns: 1 }]);
    const messages: Message[] = [];
    await drive(query("look", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: ["parent"], messages }));
    const block = toolResults(messages).find((b) => b.tool_use_id === "toolu_agent");
    expect(block?.is_error).toBe(true);
    expect(resultText(block)).toMatch(/turn limit[\s\S]*Looking\./);
  });

  it("the subagent's asks go to the parent's permission gate; a `small` agent type talks to the small model", async () => {
    const server = await serve({
      turns: [
        agentCall("toolu_agent", { description: "Write a file", prompt: "Create out.txt.", subagent_type: "writer" }),
        { content: [{ type: "tool_use", id: "toolu_write", name: "Write", input: { file_path: "out.txt", content: "written by the subagent\n" } }] },
        say("Created out.txt."),
        say("done"),
      ],
    });
    const { dir, session } = await project({ mode: "default" });
    const writer: AgentTypeDefinition = { name: "writer", description: "writes", systemPrompt: "You write files.", model: "small", source: "test" };
    enableSubagents(session.context, createSubagentRunner({ provider: anthropicAt(server), smallModel: "claude-haiku-4-5", types: [writer], systemFor: (p) => [p] }));
    const asked: string[] = [];
    const messages: Message[] = [];
    await drive(
      query("write it", {
        provider: anthropicAt(server),
        context: session.context,
        canUseTool: async (tool, input, _context, _message, _id, decision) => {
          if (decision.behavior !== "ask") return decision;
          asked.push(tool.name);
          return { behavior: "allow", updatedInput: input };
        },
        system: ["parent"],
        messages,
      }),
    );
    expect(asked).toEqual(["Write"]);
    expect(fs.readFileSync(path.join(dir, "out.txt"), "utf8")).toBe("written by the subagent\n");
    expect(server.requests().map((r) => r.body.model)).toEqual(["claude-sonnet-4-5", "claude-haiku-4-5", "claude-haiku-4-5", "claude-sonnet-4-5"]);
  });

  it("Agent(type) and Task(type) rules judge the agent type: a denied type never starts, others do", async () => {
    const server = await serve({
      turns: [
        { content: [agentCall("toolu_denied", { description: "Review", prompt: "Review.", subagent_type: "reviewer" }).content![0], agentCall("toolu_ok", { description: "Research", prompt: "Research." }).content![0]] },
        say("research done"),
        say("ok"),
      ],
    });
    const { session } = await project({ settings: { permissions: { deny: ["Task(reviewer)"] } } });
    const reviewer: AgentTypeDefinition = { name: "reviewer", description: "reviews", systemPrompt: "Review.", source: "test" };
    withSubagents(session, server, [...BUILTIN_AGENT_TYPES, reviewer]);
    const messages: Message[] = [];
    const { result } = await drive(query("go", { provider: anthropicAt(server), context: session.context, canUseTool: session.canUseTool, system: ["parent"], messages }));
    expect(result.permissionDenials.map((d) => d.toolUseID)).toEqual(["toolu_denied"]);
    const results = toolResults(messages);
    expect(results.find((b) => b.tool_use_id === "toolu_denied")?.is_error).toBe(true);
    expect(resultText(results.find((b) => b.tool_use_id === "toolu_denied"))).toContain("Task(reviewer)");
    expect(resultText(results.find((b) => b.tool_use_id === "toolu_ok"))).toContain("research done");
    // Only one subagent asked the model anything: parent, the general-purpose subagent, parent.
    expect(server.requests()).toHaveLength(3);
  });

  it("without a runner (exec, mcp serve) the Agent tool is not enabled", async () => {
    const { session } = await project();
    const agent = session.context.options.tools.find((t) => t.name === "Agent");
    expect(agent).toBeDefined();
    expect(agent!.isEnabled()).toBe(false);
  });
});
