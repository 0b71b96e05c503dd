/**
 * PreCompact, SessionEnd and Notification hooks, and --include-hook-events, through the real CLI against the
 * scripted model server. The hooks are real shell commands that append their stdin JSON to a file.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { FakeModelServer } from "../../scripts/fake-model.mjs";
import { cliEnv } from "../cliCommand.js";
import { serveModel, startCli } from "../cli/agentRun.js";

vi.setConfig({ testTimeout: 120_000 });

/** A project whose settings run `hooks`; each recording hook appends its stdin to `<dir>/hooks.jsonl`. */
function project(hooks: Record<string, unknown>, extraSettings: Record<string, unknown> = {}) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-lifecycle-")));
  fs.mkdirSync(path.join(dir, ".home"));
  fs.mkdirSync(path.join(dir, ".toolgate"));
  fs.writeFileSync(path.join(dir, ".toolgate", "settings.json"), JSON.stringify({ hooks, ...extraSettings }));
  return dir;
}

const record = (dir: string) => `{ cat; echo; } >> ${JSON.stringify(path.join(dir, "hooks.jsonl"))}`;
const recorded = (dir: string): Array<Record<string, any>> => {
  const file = path.join(dir, "hooks.jsonl");
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
};
const group = (command: string, matcher?: string) => [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command, timeout: 10 }] }];

function envFor(server: FakeModelServer, dir: string): NodeJS.ProcessEnv {
  return { ...process.env, ...cliEnv, TOOLGATE_HOME: path.join(dir, ".home"), OPENAI_API_KEY: "", OPENAI_BASE_URL: "", ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url };
}

/** Polls a condition the test cannot be told about (the model server got a request). */
async function eventuallyTrue(check: () => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const base = (dir: string) => ["--cwd", dir, "--output-format", "stream-json", "--no-sandbox", "--trust"];

describe("PreCompact and SessionEnd hooks through toolgate -p", () => {
  it("auto compaction runs PreCompact (trigger auto) and goes on despite its block; every run ends with one SessionEnd (reason other)", async () => {
    const dir = project({ PreCompact: group(`${record("$TOOLGATE_PROJECT_DIR")}; echo "please keep it all" >&2; exit 2`), SessionEnd: group(`${record("$TOOLGATE_PROJECT_DIR")}`) }, { models: { "claude-sonnet-4-5": { contextWindow: 8_000, maxOutputTokens: 1_000 } } });
    const server = await serveModel({
      turns: [
        { content: [{ type: "text", text: `long answer ${"z".repeat(30_000)}` }], usage: { input_tokens: 500, output_tokens: 7_500 } },
        { content: [{ type: "text", text: "SUMMARY" }] },
        { content: [{ type: "text", text: "after compaction" }], usage: { input_tokens: 900, output_tokens: 5 } },
      ],
    });
    const env = envFor(server, dir);
    const first = await startCli(["-p", "write a long essay", ...base(dir)], env).done;
    expect(first.code).toBe(0);
    expect(recorded(dir).map((r) => r.hook_event_name)).toEqual(["SessionEnd"]);
    const second = await startCli(["-p", "now shorten it", ...base(dir), "--continue"], env).done;
    expect(second.code).toBe(0);
    const boundary = second.lines.find((l) => l.subtype === "compact_boundary");
    expect(boundary).toMatchObject({ trigger: "auto", kind: "summarised" });
    expect(boundary!.message).toContain("a PreCompact hook asked to block it (please keep it all), but an automatic compaction must go on");
    const runs = recorded(dir);
    expect(runs.map((r) => r.hook_event_name)).toEqual(["SessionEnd", "PreCompact", "SessionEnd"]);
    const sessionId = second.lines[0].session_id;
    expect(runs[1]).toMatchObject({ hook_event_name: "PreCompact", trigger: "auto", custom_instructions: "", session_id: sessionId, cwd: dir });
    // the session's own transcript, as Claude Code sends it (the continued session's file, already written)
    expect(runs[1].transcript_path).toMatch(new RegExp(`/projects/[^/]+/${sessionId}\\.jsonl$`));
    expect(fs.readFileSync(runs[1].transcript_path, "utf8")).toContain("write a long essay");
    expect(runs[2]).toMatchObject({ hook_event_name: "SessionEnd", reason: "other", session_id: sessionId });
  });

  it("a PreCompact hook that exits 2 stops /compact, and its reason is shown; a manual matcher sees the focus", async () => {
    const blocker = `${record("$TOOLGATE_PROJECT_DIR")}; echo "keep the whole history for the audit" >&2; exit 2`;
    const dir = project({ PreCompact: group(blocker, "manual") });
    const server = await serveModel({ loop: true, turns: [{ content: [{ type: "text", text: "hello" }] }] });
    const env = envFor(server, dir);
    expect((await startCli(["-p", "hi", ...base(dir)], env).done).code).toBe(0);
    const requestsBefore = server.requests().length;
    const manual = await startCli(["-p", "/compact keep the tests", ...base(dir), "--continue"], env).done;
    expect(manual.code).not.toBe(0);
    const boundary = manual.lines.find((l) => l.subtype === "compact_boundary");
    expect(boundary).toMatchObject({ trigger: "manual", kind: "failed" });
    expect(boundary!.message).toContain("keep the whole history for the audit");
    expect(manual.lines.at(-1)).toMatchObject({ type: "result", is_error: true });
    expect(manual.lines.at(-1)!.result).toContain("keep the whole history for the audit");
    // No summary was asked for.
    expect(server.requests().length).toBe(requestsBefore);
    expect(recorded(dir)).toEqual([expect.objectContaining({ hook_event_name: "PreCompact", trigger: "manual", custom_instructions: "keep the tests" })]);
  });

  it("SIGTERM during a model request runs SessionEnd once before toolgate exits", async () => {
    const dir = project({ SessionEnd: group(record("$TOOLGATE_PROJECT_DIR")) });
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "slow" }], steps: [{ after: 0, stallMs: 60_000 }] }] });
    const run = startCli(["-p", "hi", ...base(dir)], envFor(server, dir));
    await run.waitFor((l) => l.subtype === "init");
    await eventuallyTrue(() => server.requests().length === 1);
    run.child.kill("SIGTERM");
    const done = await run.done;
    expect(done.code).toBe(143);
    expect(recorded(dir)).toEqual([expect.objectContaining({ hook_event_name: "SessionEnd", reason: "other" })]);
  });

  it("a SessionEnd hook that hangs is killed at its timeout and the run still ends", async () => {
    const dir = project({ SessionEnd: [{ hooks: [{ type: "command", command: "sleep 30", timeout: 1 }] }] });
    const server = await serveModel({ loop: true, turns: [{ content: [{ type: "text", text: "bye" }] }] });
    const started = Date.now();
    const run = await startCli(["-p", "hi", ...base(dir), "--verbose"], envFor(server, dir)).done;
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)).toMatchObject({ type: "result", result: "bye" });
    expect(Date.now() - started).toBeLessThan(25_000);
  });
});

describe("--include-hook-events", () => {
  it("adds hook_started and hook_response lines for each hook run, and nothing without the flag", async () => {
    const dir = project({ SessionStart: group("echo starting"), PreToolUse: group(`echo checked; echo warn >&2`, "Read"), SessionEnd: group(record("$TOOLGATE_PROJECT_DIR")) });
    fs.writeFileSync(path.join(dir, "notes.txt"), "ship it\n");
    const server = await serveModel({
      loop: true,
      turns: [
        { content: [{ type: "tool_use", id: "toolu_read", name: "Read", input: { file_path: "notes.txt" } }] },
        { content: [{ type: "text", text: "read" }] },
      ],
    });
    const env = envFor(server, dir);
    const withEvents = await startCli(["-p", "read notes", ...base(dir), "--include-hook-events"], env).done;
    expect(withEvents.code).toBe(0);
    const started = withEvents.lines.filter((l) => l.subtype === "hook_started");
    const responses = withEvents.lines.filter((l) => l.subtype === "hook_response");
    expect(started.map((l) => l.hook_event)).toEqual(["SessionStart", "PreToolUse", "SessionEnd"]);
    // SessionStart ran before the run's first message: its lines come first.
    expect(withEvents.lines.slice(0, 2).map((l) => l.subtype)).toEqual(["hook_started", "hook_response"]);
    expect(withEvents.lines[1]).toMatchObject({ hook_name: "SessionStart:startup", stdout: "starting\n", outcome: "success" });
    const [, preStarted] = started;
    expect(preStarted).toMatchObject({ type: "system", hook_name: "PreToolUse:Read", hook_event: "PreToolUse" });
    expect(typeof preStarted.uuid).toBe("string");
    const init = withEvents.lines.find((l) => l.subtype === "init")!;
    expect(preStarted.session_id).toBe(init.session_id);
    const pre = responses.find((l) => l.hook_id === preStarted.hook_id);
    expect(pre).toMatchObject({ hook_name: "PreToolUse:Read", hook_event: "PreToolUse", stdout: "checked\n", stderr: "warn\n", exit_code: 0, outcome: "success" });
    expect(withEvents.lines.indexOf(pre!)).toBeGreaterThan(withEvents.lines.indexOf(preStarted));
    expect(responses.find((l) => l.hook_event === "SessionEnd")).toMatchObject({ hook_name: "SessionEnd:other", outcome: "success" });

    const without = await startCli(["-p", "read notes", ...base(dir)], env).done;
    expect(without.code).toBe(0);
    expect(without.lines.filter((l) => String(l.subtype).startsWith("hook_"))).toEqual([]);
  });

  it("needs stream-json output", async () => {
    const dir = project({});
    const server = await serveModel({ loop: true, turns: [{ content: [{ type: "text", text: "x" }] }] });
    const run = await startCli(["-p", "hi", "--cwd", dir, "--include-hook-events"], envFor(server, dir)).done;
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("--include-hook-events needs --output-format stream-json");
  });
});

describe("Notification hooks", () => {
  it("run with notification_type permission_prompt when a permission request goes to the controlling program", async () => {
    const dir = project({ Notification: group(record("$TOOLGATE_PROJECT_DIR"), "permission_prompt") });
    const server = await serveModel({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_bash", name: "Bash", input: { command: "echo hi > out.txt" } }] },
        { content: [{ type: "text", text: "done" }] },
      ],
    });
    const run = startCli(["-p", ...base(dir), "--input-format", "stream-json", "--verbose", "--include-hook-events"], envFor(server, dir));
    run.child.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: "write out.txt" } })}\n`);
    const ask = await run.waitFor((l) => l.type === "control_request" && l.request?.subtype === "can_use_tool");
    const response = await run.waitFor((l) => l.subtype === "hook_response" && l.hook_event === "Notification");
    expect(response).toMatchObject({ hook_name: "Notification:permission_prompt", outcome: "success" });
    expect(recorded(dir)).toEqual([expect.objectContaining({ hook_event_name: "Notification", notification_type: "permission_prompt", message: "toolgate needs your permission to use Bash", cwd: dir })]);
    run.child.stdin.write(`${JSON.stringify({ type: "control_response", response: { subtype: "success", request_id: ask.request_id, response: { behavior: "deny", message: "no" } } })}\n`);
    await run.waitFor((l) => l.type === "result");
    run.child.stdin.end();
    expect((await run.done).code).toBe(0);
  });
});

describe("--fallback-model", () => {
  it("a request the main model fails with 529 is tried again on the fallback model, with a system message; the next prompt starts on the main model again", async () => {
    const dir = project({});
    const server = await serveModel({
      turns: [
        { status: 529 },
        { content: [{ type: "text", text: "answered by the fallback" }] },
        { content: [{ type: "text", text: "second prompt" }] },
      ],
    });
    const env = { ...envFor(server, dir), TOOLGATE_MAX_RETRIES: "0" };
    const user = (text: string) => `${JSON.stringify({ type: "user", message: { role: "user", content: text } })}\n`;
    const run = startCli(["-p", ...base(dir), "--input-format", "stream-json", "--model", "primary-model", "--fallback-model", "backup-model"], env);
    run.child.stdin.write(user("hi"));
    const first = await run.waitFor((l) => l.type === "result");
    expect(first).toMatchObject({ is_error: false, result: "answered by the fallback" });
    run.child.stdin.write(user("again"));
    await run.waitFor((l) => l.type === "result" && l !== first);
    run.child.stdin.end();
    const done = await run.done;
    expect(done.code).toBe(0);
    expect(done.lines.find((l) => l.subtype === "informational" && l.from_model)).toMatchObject({ type: "system", level: "warning", from_model: "primary-model", to_model: "backup-model" });
    // The Agent SDK's documented behaviour: an outage does not demote the session for good.
    expect(server.requests().map((r) => r.body.model)).toEqual(["primary-model", "backup-model", "primary-model"]);
    expect(done.lines.filter((l) => l.subtype === "init").map((l) => l.model)).toEqual(["primary-model", "primary-model"]);
  });

  it("a comma-separated list is tried in order, and a tool loop goes on with the model that answered", async () => {
    const dir = project({}, { permissions: { allow: ["Bash(echo:*)"] } });
    const server = await serveModel({
      turns: [
        { status: 529 },
        { status: 404 },
        { content: [{ type: "tool_use", id: "toolu_echo", name: "Bash", input: { command: "echo from the loop" } }] },
        { content: [{ type: "text", text: "answered by the second" }] },
      ],
    });
    const run = await startCli(["-p", "hi", ...base(dir), "--model", "primary-model", "--fallback-model", "first-backup, second-backup"], { ...envFor(server, dir), TOOLGATE_MAX_RETRIES: "0" }).done;
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)).toMatchObject({ type: "result", is_error: false, result: "answered by the second" });
    expect(server.requests().map((r) => r.body.model)).toEqual(["primary-model", "first-backup", "second-backup", "second-backup"]);
    expect(run.lines.filter((l) => l.subtype === "informational" && l.from_model).map((l) => [l.from_model, l.to_model])).toEqual([
      ["primary-model", "first-backup"],
      ["first-backup", "second-backup"],
    ]);
  });

  it("without --fallback-model a 529 ends the turn with the error", async () => {
    const dir = project({});
    const server = await serveModel({ turns: [{ status: 529 }] });
    const run = await startCli(["-p", "hi", ...base(dir), "--model", "primary-model"], { ...envFor(server, dir), TOOLGATE_MAX_RETRIES: "0" }).done;
    expect(run.lines.at(-1)).toMatchObject({ type: "result", is_error: true });
    expect(server.requests()).toHaveLength(1);
  });
});

describe("prompt hooks", () => {
  it("a PreToolUse prompt hook asks the model with the event; ok false blocks the call with its reason, ok true lets the next one run", async () => {
    const dir = project({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "prompt", prompt: "Refuse commands that use the network. Event: $ARGUMENTS" }] }] }, { permissions: { allow: ["Bash"] } });
    const server = await serveModel({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_curl", name: "Bash", input: { command: "curl example.com" } }] },
        { content: [{ type: "text", text: '{"ok": false, "reason": "curl uses the network"}' }] },
        { content: [{ type: "tool_use", id: "toolu_echo", name: "Bash", input: { command: "echo local > out.txt" } }] },
        { content: [{ type: "text", text: '```json\n{"ok": true}\n```' }] },
        { content: [{ type: "text", text: "done" }] },
      ],
    });
    const run = await startCli(["-p", "fetch it", ...base(dir)], envFor(server, dir)).done;
    expect(run.code).toBe(0);
    const bodies = server.requests().map((r) => r.body);
    // The hook's request: no tools, the event JSON in place of $ARGUMENTS.
    expect(bodies[1].tools ?? []).toEqual([]);
    const asked = JSON.stringify(bodies[1].messages);
    expect(asked).toContain("Refuse commands that use the network. Event: ");
    expect(asked).toContain('\\"tool_name\\":\\"Bash\\"');
    expect(asked).toContain("curl example.com");
    const results = bodies[2].messages.at(-1).content;
    expect(results[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_curl", is_error: true });
    expect(JSON.stringify(results[0].content)).toContain("curl uses the network");
    expect(fs.readFileSync(path.join(dir, "out.txt"), "utf8")).toBe("local\n");
    expect(run.lines.at(-1)).toMatchObject({ type: "result", result: "done" });
  });

  it("a Stop prompt hook that answers ok false sends the model back to work with the reason", async () => {
    const dir = project({ Stop: [{ hooks: [{ type: "prompt", prompt: "Did the agent run the tests?" }] }] });
    const server = await serveModel({
      turns: [
        { content: [{ type: "text", text: "finished" }] },
        { content: [{ type: "text", text: '{"ok": false, "reason": "run the tests first"}' }] },
        { content: [{ type: "text", text: "tests pass" }] },
        { content: [{ type: "text", text: '{"ok": true}' }] },
      ],
    });
    const run = await startCli(["-p", "do it", ...base(dir)], envFor(server, dir)).done;
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)).toMatchObject({ type: "result", result: "tests pass" });
    const bodies = server.requests().map((r) => r.body);
    expect(JSON.stringify(bodies[1].messages)).toContain('\\"hook_event_name\\":\\"Stop\\"');
    expect(JSON.stringify(bodies[2].messages)).toContain("run the tests first");
  });

  it("prompt hooks on events where a verdict changes nothing are reported as unsupported", async () => {
    const dir = project({ SessionEnd: [{ hooks: [{ type: "prompt", prompt: "judge" }] }], Stop: [{ hooks: [{ type: "agent", prompt: "x" }] }] });
    const server = await serveModel({ loop: true, turns: [{ content: [{ type: "text", text: "hi" }] }] });
    const run = await startCli(["-p", "hi", "--cwd", dir, "--no-sandbox", "--trust", "--verbose"], envFor(server, dir)).done;
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("hooks.SessionEnd[0].hooks[0]: prompt hooks are not supported for SessionEnd");
    expect(run.stderr).toContain('hooks.Stop[0].hooks[0]: hook type "agent" is not supported');
    expect(server.requests()).toHaveLength(1);
  });
});
