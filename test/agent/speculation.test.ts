/**
 * Speculative tool calls in the real loop: the scripted model streams a tool_use's input and holds the block
 * open until the test has seen what it waits for (events, never sleeps); real tools on real files, the
 * session's permission engine and hooks.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeModelScript } from "../../scripts/fake-model.mjs";
import { query, type AgentEvent } from "../../src/agent/query.js";
import { createSession, type Session } from "../../src/session/index.js";
import type { CanUseToolFn, SpeculationReport, TelemetrySink } from "../../src/core/Tool.js";
import type { Message, ToolResultBlockParam } from "../../src/core/messages.js";
import { anthropicAt, serve } from "../providers/support.js";
import { drive } from "./drive.js";
import { differences, makeFixtureTree, makeScript, runWorkload } from "./speculationWorkload.js";

const sessions: Session[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

const NOTES = "first line\nsecond line\nthird line\n";

async function project(settings?: object, mode: "default" | "acceptEdits" = "default") {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-spec-")));
  const home = path.join(dir, ".home");
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(dir, "notes.txt"), NOTES);
  fs.writeFileSync(path.join(dir, "secret.txt"), "do not read\n");
  fs.mkdirSync(path.join(dir, "sub"));
  fs.writeFileSync(path.join(dir, "sub", "a.ts"), "export const a = 1;\n");
  if (settings) {
    fs.mkdirSync(path.join(dir, ".toolgate"));
    fs.writeFileSync(path.join(dir, ".toolgate", "settings.json"), JSON.stringify(settings));
  }
  const session = await createSession({ cwd: dir, home, permissionMode: mode, sandbox: false, trust: true, env: { ...process.env, TOOLGATE_HOME: home } });
  sessions.push(session);
  return { dir, session };
}

type Speculation = Extract<AgentEvent, { type: "speculation" }>;
const speculations = (events: AgentEvent[]) => events.filter((e): e is Speculation => e.type === "speculation");
const settled = (events: AgentEvent[]) => speculations(events).filter((e) => e.phase === "settled") as Array<Speculation & SpeculationReport>;

function resultsOf(messages: Message[]): ToolResultBlockParam[] {
  return messages.flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content.filter((b): b is ToolResultBlockParam => b.type === "tool_result") : []));
}

/** One tool call streamed in `parts`, held open before part `holdBefore` until `release` exists; then a final answer. */
function oneCall(name: string, parts: string[], release: string, holdBefore = parts.length - 1): FakeModelScript {
  return {
    turns: [
      { content: [{ type: "tool_use", id: "toolu_1", name, input: JSON.parse(parts.join("")) as Record<string, unknown>, inputParts: parts, hold: { beforePart: holdBefore, waitForFile: release, timeoutMs: 5_000 } } as never] },
      { content: [{ type: "text", text: "done" }] },
    ],
  };
}

/** Runs the prompt; when the call's speculative run starts, `onStarted` runs (by default: release the held block). */
async function run(session: Session, script: FakeModelScript, release: string, options: { canUseTool?: CanUseToolFn; onStarted?: () => void; signal?: AbortSignal; telemetry?: TelemetrySink } = {}) {
  const server = await serve(script);
  const messages: Message[] = [];
  const order: string[] = [];
  const context = options.telemetry ? { ...session.context, telemetry: options.telemetry } : session.context;
  const driven = await drive(
    query("go", { provider: anthropicAt(server), context, canUseTool: options.canUseTool ?? session.canUseTool, system: ["test"], messages, ...(options.signal ? { signal: options.signal } : {}) }),
    (event) => {
      if (event.type === "stream" && event.event.type === "tool_call_complete") order.push(`complete:${event.event.id}`);
      if (event.type === "speculation") {
        order.push(`${event.phase}:${event.toolUseID}`);
        if (event.phase === "started") (options.onStarted ?? (() => fs.writeFileSync(release, "")))();
      }
    },
  );
  await server.close();
  return { ...driven, messages, order };
}

describe("speculative tool calls", () => {
  it("starts a Read whose streamed input is settled before its block ends, and uses its result (the same as without speculation)", async () => {
    const { dir, session } = await project();
    const release = path.join(dir, "release");
    const parts = ['{"file_path":', '"notes.txt"', "}"];
    const telemetry: SpeculationReport[] = [];
    const sink = { toolDecision() {}, toolResult() {}, modelRequest() {}, userPrompt() {}, linesChanged() {}, speculation: (r: SpeculationReport) => telemetry.push(r) };
    const on = await run(session, oneCall("Read", parts, release), release, { telemetry: sink });
    expect(on.order.indexOf("started:toolu_1")).toBeLessThan(on.order.indexOf("complete:toolu_1"));
    expect(settled(on.events).map((e) => e.outcome)).toEqual(["hit"]);
    expect(telemetry).toMatchObject([{ toolName: "Read", toolUseID: "toolu_1", outcome: "hit", wastedMs: 0 }]);
    // What the run recorded reached the session once adopted: the file counts as read.
    expect(session.context.readFileState.has(path.join(dir, "notes.txt"))).toBe(true);

    // Off: nothing will start, so the block is not held (its release file is there from the start).
    const off = await project({ speculativeToolCalls: false });
    fs.writeFileSync(path.join(off.dir, "release"), "");
    const offRun = await run(off.session, oneCall("Read", parts, path.join(off.dir, "release")), "");
    expect(speculations(offRun.events)).toEqual([]);
    expect(resultsOf(on.messages)).toEqual(resultsOf(offRun.messages));
    expect(resultsOf(on.messages)[0].content).toContain("second line");
  });

  it("discards the run when more input arrives that makes it a different call, and runs the call again", async () => {
    const { dir, session } = await project();
    const release = path.join(dir, "release");
    const out = await run(session, oneCall("Read", ['{"file_path":"notes.txt"', ',"offset":3}'], release), release);
    // The first run (no offset) is thrown away; the closing part may settle a second run that is then used.
    const outcomes = settled(out.events).map((e) => e.outcome);
    expect(outcomes[0]).toBe("miss");
    expect(outcomes.slice(1).every((o) => o === "hit")).toBe(true);
    expect(outcomes.length).toBeLessThanOrEqual(2);
    const [result] = resultsOf(out.messages);
    expect(result.content).toContain("third line");
    expect(result.content).not.toContain("first line");
    expect(result.is_error).toBeUndefined();
  });

  it("a block whose input never parses throws its run away, and the read leaves no trace in the session", async () => {
    const { dir, session } = await project();
    const release = path.join(dir, "release");
    const script: FakeModelScript = {
      turns: [
        { content: [{ type: "tool_use", id: "toolu_1", name: "Read", rawInput: '{"file_path":"notes.txt", "offset": }', inputParts: ['{"file_path":"notes.txt",', ' "offset": }'], hold: { beforePart: 1, waitForFile: release, timeoutMs: 5_000 } } as never] },
        { content: [{ type: "text", text: "done" }] },
      ],
    };
    const out = await run(session, script, release);
    expect(settled(out.events).map((e) => e.outcome)).toEqual(["discarded"]);
    const results = resultsOf(out.messages);
    expect(results).toHaveLength(1);
    expect(results[0].is_error).toBe(true);
    expect(session.context.readFileState.has(path.join(dir, "notes.txt"))).toBe(false);
  });

  it("never speculates after a call that writes, a denied call, a call that asks, or a tool with a PreToolUse hook", async () => {
    const { dir, session } = await project(
      {
        permissions: { deny: ["Read(secret.txt)"] },
        hooks: { PreToolUse: [{ matcher: "Glob", hooks: [{ type: "command", command: "echo ran >> hook.log" }] }] },
      },
      "acceptEdits",
    );
    let asked = 0;
    const canUseTool: CanUseToolFn = async (...args) => {
      asked++;
      return session.canUseTool(...args);
    };
    const script: FakeModelScript = {
      turns: [
        {
          content: [
            { type: "tool_use", id: "toolu_w", name: "Write", input: { file_path: "new.txt", content: "written first\n" } },
            { type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: "new.txt" } },
          ],
          chunks: 4,
        },
        {
          content: [
            { type: "tool_use", id: "toolu_d", name: "Read", input: { file_path: "secret.txt" } },
            { type: "tool_use", id: "toolu_a", name: "Bash", input: { command: "curl -s http://127.0.0.1:9/" } },
            { type: "tool_use", id: "toolu_h", name: "Glob", input: { pattern: "**/*.ts" } },
          ],
          chunks: 4,
        },
        { content: [{ type: "text", text: "done" }] },
      ],
    };
    const out = await run(session, script, "", { canUseTool });
    expect(speculations(out.events)).toEqual([]);
    const results = resultsOf(out.messages);
    expect(results.map((r) => r.tool_use_id)).toEqual(["toolu_w", "toolu_r", "toolu_d", "toolu_a", "toolu_h"]);
    expect(results[1].content).toContain("written first");
    expect(results[2].is_error).toBe(true);
    expect(results[3].is_error).toBe(true);
    expect(asked).toBe(1);
    expect(fs.readFileSync(path.join(dir, "hook.log"), "utf8")).toBe("ran\n");
  });

  it("an abort while the block streams cancels the speculative run; the call still gets exactly one result", async () => {
    const { dir, session } = await project();
    const abort = new AbortController();
    const out = await run(session, oneCall("Read", ['{"file_path":"notes.txt"', "}"], path.join(dir, "never")), "", { onStarted: () => abort.abort(), signal: abort.signal });
    expect(out.result.reason).toBe("aborted");
    expect(settled(out.events).map((e) => e.outcome)).toEqual(["discarded"]);
    expect(session.context.readFileState.has(path.join(dir, "notes.txt"))).toBe(false);
    const assistant = out.messages.find((m) => m.role === "assistant");
    if (assistant) expect(resultsOf(out.messages).map((r) => r.tool_use_id)).toEqual(assistant.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])));
  });

  it("speculates a read-only Bash command the rules allow; its description arriving later does not make it a different call", async () => {
    const { dir, session } = await project();
    const release = path.join(dir, "release");
    const out = await run(session, oneCall("Bash", ['{"command":"ls sub"', ',"description":"List sub"}'], release), release);
    expect(settled(out.events).map((e) => e.outcome)).toEqual(["hit"]);
    expect(resultsOf(out.messages)[0].content).toContain("a.ts");
  });
});

describe("speculation changes no result", () => {
  it("150 random read-only calls (Read, Grep, Glob, Bash), randomly chunked: the same tool_results with speculation on and off", async () => {
    const dir = makeFixtureTree();
    const script = makeScript({ seed: 32, calls: 150, dir, delayMs: [0, 2], maxParts: 6 });
    const on = await runWorkload(script, dir, true);
    const off = await runWorkload(script, dir, false);
    expect(on.results.size).toBe(150);
    expect(differences(on, off)).toEqual([]);
    expect(off.reports).toEqual([]);
    // Both fates were exercised: runs used and runs thrown away.
    const outcomes = new Set(on.reports.map((r) => r.outcome));
    expect(outcomes.has("hit")).toBe(true);
    expect(outcomes.has("miss")).toBe(true);
  }, 60_000);
});
