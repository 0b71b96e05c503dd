import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bashHook, hooksFor, loadedSettings, makeContext, makeEchoTool, makeTempDir, nodeHook, removeTempDirs, runnerFor } from "./helpers.js";
import { createHookRunner } from "../../src/hooks/index.js";

afterEach(removeTempDirs);

const READ_STDIN_TO = (file: string) => `
const fs = require("node:fs");
let data = "";
process.stdin.on("data", (c) => (data += c));
process.stdin.on("end", () => {
  fs.writeFileSync(${JSON.stringify(file)}, JSON.stringify({
    stdin: JSON.parse(data),
    env: { TOOLGATE_PROJECT_DIR: process.env.TOOLGATE_PROJECT_DIR, CLAUDE_PROJECT_DIR: process.env.CLAUDE_PROJECT_DIR, EXTRA: process.env.EXTRA },
    cwd: process.cwd(),
  }));
});
`;

function setup() {
  const dir = makeTempDir();
  const sub = path.join(dir, "sub");
  fs.mkdirSync(sub);
  const { tool } = makeEchoTool({ aliases: ["OldEcho"] });
  return { dir, sub, tool };
}

describe("what a hook receives", () => {
  it("bash PreToolUse hook gets every stdin field, runs in the project dir and sees TOOLGATE_PROJECT_DIR", async () => {
    const { dir, sub, tool } = setup();
    const out = path.join(dir, "received");
    const command = bashHook(dir, "pre.sh", `cat > "${out}.json"; printf '%s\\n%s\\n%s\\n' "$TOOLGATE_PROJECT_DIR" "$CLAUDE_PROJECT_DIR" "$PWD" > "${out}.env"`);
    const runner = runnerFor(dir, hooksFor("PreToolUse", command), {
      sessionId: "sess-42",
      transcriptPath: "/tmp/transcript.jsonl",
      env: { ...process.env, EXTRA: "x" },
    });
    const context = makeContext(dir, [tool], { hookRunner: runner });
    context.setAppState((s) => ({ ...s, toolPermissionContext: { ...s.toolPermissionContext, mode: "acceptEdits" } }));
    context.setCwd(sub);

    const outcome = await runner.preToolUse({ tool, input: { text: "hi", count: 2 }, toolUseID: "toolu_abc", context });

    expect(outcome).toEqual({ additionalContext: [], notices: [] });
    expect(JSON.parse(fs.readFileSync(`${out}.json`, "utf8"))).toEqual({
      session_id: "sess-42",
      transcript_path: "/tmp/transcript.jsonl",
      cwd: sub,
      permission_mode: "acceptEdits",
      hook_event_name: "PreToolUse",
      tool_name: "Echo",
      tool_input: { text: "hi", count: 2 },
      tool_use_id: "toolu_abc",
    });
    expect(fs.readFileSync(`${out}.env`, "utf8").split("\n").slice(0, 3)).toEqual([dir, dir, dir]);
  });

  it("node PostToolUse hook gets tool_response; session id and env default to the context's", async () => {
    const { dir, tool } = setup();
    const out = path.join(dir, "post.json");
    const runner = runnerFor(dir, hooksFor("PostToolUse", nodeHook(dir, "post.js", READ_STDIN_TO(out))));
    const context = makeContext(dir, [tool], { hookRunner: runner });
    context.env = { ...process.env, EXTRA: "from-context" };

    await runner.postToolUse({ tool, input: { text: "a" }, toolUseID: "toolu_p", context, response: { echoed: "a", n: [1, 2] } });

    const got = JSON.parse(fs.readFileSync(out, "utf8"));
    expect(got.stdin).toEqual({
      session_id: "session-1",
      transcript_path: "",
      cwd: dir,
      permission_mode: "default",
      hook_event_name: "PostToolUse",
      tool_name: "Echo",
      tool_input: { text: "a" },
      tool_use_id: "toolu_p",
      tool_response: { echoed: "a", n: [1, 2] },
    });
    expect(got.env).toEqual({ TOOLGATE_PROJECT_DIR: dir, CLAUDE_PROJECT_DIR: dir, EXTRA: "from-context" });
    expect(got.cwd).toBe(dir);
  });

  it("node PostToolUseFailure hook gets error and is_interrupt", async () => {
    const { dir, tool } = setup();
    const out = path.join(dir, "fail.json");
    const runner = runnerFor(dir, hooksFor("PostToolUseFailure", nodeHook(dir, "fail.js", READ_STDIN_TO(out))));
    const context = makeContext(dir, [tool], { hookRunner: runner });

    await runner.postToolUseFailure({ tool, input: { text: "a" }, toolUseID: "toolu_f", context, error: "disk on fire", isInterrupt: false });

    const { stdin } = JSON.parse(fs.readFileSync(out, "utf8"));
    expect(stdin).toMatchObject({ hook_event_name: "PostToolUseFailure", error: "disk on fire", is_interrupt: false, tool_use_id: "toolu_f" });
    expect(stdin).not.toHaveProperty("tool_response");
  });

  it("PermissionRequest hook gets the pending decision's message and permission_suggestions", async () => {
    const { dir, tool } = setup();
    const out = path.join(dir, "perm.json");
    const runner = runnerFor(dir, hooksFor("PermissionRequest", nodeHook(dir, "perm.js", READ_STDIN_TO(out))));
    const context = makeContext(dir, [tool], { hookRunner: runner });
    const suggestions = [{ type: "addRules" as const, behavior: "allow" as const, rules: [{ toolName: "Echo" }], destination: "session" as const }];

    const outcome = await runner.permissionRequest({
      tool,
      input: { text: "a" },
      toolUseID: "toolu_r",
      context,
      decision: { behavior: "ask", message: "Echo wants to echo", suggestions },
    });

    expect(outcome.decision).toBeUndefined();
    const { stdin } = JSON.parse(fs.readFileSync(out, "utf8"));
    expect(stdin).toMatchObject({ hook_event_name: "PermissionRequest", message: "Echo wants to echo", permission_suggestions: suggestions });
  });

  it("tool_response that JSON cannot encode still reaches the hook", async () => {
    const { dir, tool } = setup();
    const out = path.join(dir, "odd.json");
    const runner = runnerFor(dir, hooksFor("PostToolUse", nodeHook(dir, "odd.js", READ_STDIN_TO(out))));
    const context = makeContext(dir, [tool], { hookRunner: runner });
    const response: Record<string, unknown> = { big: 10n };
    response.self = response;

    const outcome = await runner.postToolUse({ tool, input: { text: "a" }, toolUseID: "t", context, response });

    expect(outcome.notices).toEqual([]);
    expect(JSON.parse(fs.readFileSync(out, "utf8")).stdin.tool_response).toEqual({ big: "10", self: "[Circular]" });
  });
});

describe("exit codes and stdout", () => {
  async function pre(dir: string, script: string, extra: { hooks?: unknown } = {}) {
    const { tool } = makeEchoTool();
    const runner = runnerFor(dir, extra.hooks ?? hooksFor("PreToolUse", bashHook(dir, "h.sh", script)));
    const context = makeContext(dir, [tool], { hookRunner: runner });
    return runner.preToolUse({ tool, input: { text: "a" }, toolUseID: "t", context });
  }

  it("exit 0 with no output: no decision, no notice", async () => {
    expect(await pre(makeTempDir(), "exit 0")).toEqual({ additionalContext: [], notices: [] });
  });

  it("exit 0 with plain text stdout is ignored", async () => {
    expect(await pre(makeTempDir(), "echo 'just some log line'; echo '[1,2]'")).toEqual({ additionalContext: [], notices: [] });
  });

  it("exit 2 denies with stderr as the reason; stdout JSON is not read", async () => {
    const outcome = await pre(makeTempDir(), `echo '{"decision":"approve"}'; echo "no rm -rf here" >&2; exit 2`);
    expect(outcome.permissionDecision).toMatchObject({ behavior: "deny", reason: "no rm -rf here" });
    expect(outcome.permissionDecision?.command).toMatch(/h\.sh/);
  });

  it("exit 2 without stderr still denies with a message naming the hook", async () => {
    const outcome = await pre(makeTempDir(), "exit 2");
    expect(outcome.permissionDecision?.behavior).toBe("deny");
    expect(outcome.permissionDecision?.reason).toMatch(/exited with code 2 without a message/);
  });

  it("exit 1 is a non-blocking error notice naming the command and its stderr", async () => {
    const dir = makeTempDir();
    const outcome = await pre(dir, `echo "lint config missing" >&2; exit 1`);
    expect(outcome.permissionDecision).toBeUndefined();
    expect(outcome.notices).toHaveLength(1);
    expect(outcome.notices[0]).toMatchObject({ hookEvent: "PreToolUse", level: "error" });
    expect(outcome.notices[0].command).toContain(path.join(dir, "h.sh"));
    expect(outcome.notices[0].message).toContain("exit code 1");
    expect(outcome.notices[0].message).toContain("lint config missing");
  });

  it("malformed JSON is reported and gives no decision", async () => {
    const outcome = await pre(makeTempDir(), `echo '{"hookSpecificOutput": {"permissionDecision": "deny"'`);
    expect(outcome.permissionDecision).toBeUndefined();
    expect(outcome.notices).toHaveLength(1);
    expect(outcome.notices[0].level).toBe("error");
    expect(outcome.notices[0].message).toMatch(/malformed JSON: its stdout starts with "\{" but is not valid JSON/);
  });

  it("JSON with wrong field types is reported, names the field, and gives no decision", async () => {
    const outcome = await pre(makeTempDir(), `echo '{"systemMessage": "hi", "hookSpecificOutput": {"permissionDecision": "maybe"}}'`);
    expect(outcome.permissionDecision).toBeUndefined();
    expect(outcome.notices).toHaveLength(1);
    expect(outcome.notices[0].message).toMatch(/wrong type .*hookSpecificOutput\.permissionDecision/);
  });

  it("updatedInput must be an object", async () => {
    const outcome = await pre(makeTempDir(), `echo '{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": [1]}}'`);
    expect(outcome.updatedInput).toBeUndefined();
    expect(outcome.permissionDecision).toBeUndefined();
    expect(outcome.notices[0].message).toMatch(/updatedInput/);
  });
});

describe("JSON output fields", () => {
  async function preWith(outputs: unknown[], event = "PreToolUse") {
    const dir = makeTempDir();
    const { tool } = makeEchoTool();
    const groups = outputs.map((o, i) => ({ matcher: "", hooks: [{ type: "command", command: bashHook(dir, `h${i}.sh`, `cat <<'EOF'\n${JSON.stringify(o)}\nEOF`) }] }));
    const runner = runnerFor(dir, { [event]: groups });
    const context = makeContext(dir, [tool], { hookRunner: runner });
    return { runner, tool, context };
  }

  it.each([
    ["deny", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "nope" } }, "deny", "nope"],
    ["ask", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "check" } }, "ask", "check"],
    ["allow", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } }, "allow", undefined],
    ["legacy approve", { decision: "approve", reason: "fine" }, "allow", "fine"],
    ["legacy block", { decision: "block", reason: "bad" }, "deny", "bad"],
  ])("%s", async (_label, output, behavior, reason) => {
    const { runner, tool, context } = await preWith([output]);
    const outcome = await runner.preToolUse({ tool, input: { text: "a" }, toolUseID: "t", context });
    expect(outcome.permissionDecision?.behavior).toBe(behavior);
    expect(outcome.permissionDecision?.reason).toBe(reason);
    expect(outcome.notices).toEqual([]);
  });

  it("hookSpecificOutput wins over the legacy decision of the same hook", async () => {
    const { runner, tool, context } = await preWith([{ decision: "approve", hookSpecificOutput: { permissionDecision: "ask" } }]);
    const outcome = await runner.preToolUse({ tool, input: { text: "a" }, toolUseID: "t", context });
    expect(outcome.permissionDecision?.behavior).toBe("ask");
  });

  it("deny > ask > allow across hooks, reasons of the winners joined", async () => {
    const { runner, tool, context } = await preWith([
      { hookSpecificOutput: { permissionDecision: "allow", permissionDecisionReason: "a" } },
      { hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "d1" } },
      { hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "q" } },
      { hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "d2" } },
    ]);
    const outcome = await runner.preToolUse({ tool, input: { text: "a" }, toolUseID: "t", context });
    expect(outcome.permissionDecision).toMatchObject({ behavior: "deny", reason: "d1\nd2" });
    expect(outcome.permissionDecision?.command).toMatch(/h1\.sh/);

    const askOnly = await preWith([
      { hookSpecificOutput: { permissionDecision: "allow" } },
      { hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "q" } },
    ]);
    const asked = await askOnly.runner.preToolUse({ tool, input: { text: "a" }, toolUseID: "t", context: askOnly.context });
    expect(asked.permissionDecision).toMatchObject({ behavior: "ask", reason: "q" });
  });

  it("systemMessage becomes a notice; additionalContext from every hook is collected", async () => {
    const { runner, tool, context } = await preWith([
      { systemMessage: "formatter ran", hookSpecificOutput: { additionalContext: "ctx one" } },
      { hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "ctx two" } },
    ]);
    const outcome = await runner.preToolUse({ tool, input: { text: "a" }, toolUseID: "t", context });
    expect(outcome.additionalContext).toEqual(["ctx one", "ctx two"]);
    expect(outcome.notices).toEqual([expect.objectContaining({ level: "info", message: "formatter ran", hookEvent: "PreToolUse" })]);
  });

  it("continue:false with stopReason prevents continuation", async () => {
    const { runner, tool, context } = await preWith([{ continue: false, stopReason: "build is red" }]);
    const outcome = await runner.preToolUse({ tool, input: { text: "a" }, toolUseID: "t", context });
    expect(outcome.preventContinuation).toEqual({ reason: "build is red" });
  });

  it("hookSpecificOutput for another event is ignored with a warning", async () => {
    const { runner, tool, context } = await preWith([{ hookSpecificOutput: { hookEventName: "PostToolUse", permissionDecision: "deny" } }]);
    const outcome = await runner.preToolUse({ tool, input: { text: "a" }, toolUseID: "t", context });
    expect(outcome.permissionDecision).toBeUndefined();
    expect(outcome.notices[0]).toMatchObject({ level: "warning" });
    expect(outcome.notices[0].message).toMatch(/hookEventName is "PostToolUse"/);
  });

  it("several rewrites: the last in configuration order wins and the user is told", async () => {
    const { runner, tool, context } = await preWith([
      { hookSpecificOutput: { permissionDecision: "allow", updatedInput: { text: "first" } } },
      { hookSpecificOutput: { updatedInput: { text: "second" } } },
      { hookSpecificOutput: { permissionDecision: "allow" } },
    ]);
    const outcome = await runner.preToolUse({ tool, input: { text: "a" }, toolUseID: "t", context });
    expect(outcome.updatedInput).toEqual({ text: "second" });
    expect(outcome.notices).toHaveLength(1);
    expect(outcome.notices[0]).toMatchObject({ level: "warning" });
    expect(outcome.notices[0].message).toMatch(/2 PreToolUse hooks rewrote the input of Echo.*h1\.sh.*the last in configuration order/);
  });

  it("a deny carries no rewrite, and an overruled allow's rewrite is not used", async () => {
    const denied = await preWith([
      { hookSpecificOutput: { permissionDecision: "allow", updatedInput: { text: "x" } } },
      { hookSpecificOutput: { permissionDecision: "deny" } },
    ]);
    const d = await denied.runner.preToolUse({ tool: denied.tool, input: { text: "a" }, toolUseID: "t", context: denied.context });
    expect(d.permissionDecision?.behavior).toBe("deny");
    expect(d.updatedInput).toBeUndefined();

    const asked = await preWith([
      { hookSpecificOutput: { permissionDecision: "allow", updatedInput: { text: "from-allow" } } },
      { hookSpecificOutput: { permissionDecision: "ask", updatedInput: { text: "from-ask" } } },
    ]);
    const a = await asked.runner.preToolUse({ tool: asked.tool, input: { text: "a" }, toolUseID: "t", context: asked.context });
    expect(a.permissionDecision?.behavior).toBe("ask");
    expect(a.updatedInput).toEqual({ text: "from-ask" });
  });

  it("PostToolUse decision block becomes a blockingError", async () => {
    const { runner, tool, context } = await preWith([{ decision: "block", reason: "tests now fail" }], "PostToolUse");
    const outcome = await runner.postToolUse({ tool, input: { text: "a" }, toolUseID: "t", context, response: {} });
    expect(outcome.blockingError).toBe("tests now fail");
  });

  it("PermissionRequest allow with updatedInput and deny with interrupt", async () => {
    const allow = await preWith([{ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedInput: { text: "safe" } } } }], "PermissionRequest");
    const a = await allow.runner.permissionRequest({ tool: allow.tool, input: { text: "a" }, toolUseID: "t", context: allow.context, decision: { behavior: "ask", message: "?" } });
    expect(a.decision).toEqual({
      behavior: "allow",
      updatedInput: { text: "safe" },
      decisionReason: { type: "hook", hookEvent: "PermissionRequest", command: expect.stringMatching(/h0\.sh/) },
    });

    const deny = await preWith(
      [
        { hookSpecificOutput: { decision: { behavior: "allow" } } },
        { hookSpecificOutput: { decision: { behavior: "deny", message: "not on Fridays", interrupt: true } } },
      ],
      "PermissionRequest",
    );
    const d = await deny.runner.permissionRequest({ tool: deny.tool, input: { text: "a" }, toolUseID: "t", context: deny.context, decision: { behavior: "ask", message: "?" } });
    expect(d.decision).toEqual({
      behavior: "deny",
      message: "not on Fridays",
      decisionReason: { type: "hook", hookEvent: "PermissionRequest", command: expect.stringMatching(/h1\.sh/), reason: "not on Fridays" },
    });
    expect(d.preventContinuation).toEqual({ reason: "not on Fridays" });
  });

  it("PermissionRequest exit 2 denies with stderr", async () => {
    const dir = makeTempDir();
    const { tool } = makeEchoTool();
    const runner = runnerFor(dir, hooksFor("PermissionRequest", bashHook(dir, "p.sh", "echo 'ask a human' >&2; exit 2")));
    const context = makeContext(dir, [tool], { hookRunner: runner });
    const outcome = await runner.permissionRequest({ tool, input: { text: "a" }, toolUseID: "t", context, decision: { behavior: "ask", message: "?" } });
    expect(outcome.decision).toMatchObject({ behavior: "deny", message: "ask a human", decisionReason: { type: "hook", reason: "ask a human" } });
  });
});

describe("configuration", () => {
  it("the same command in two settings files runs once; files run in order", async () => {
    const dir = makeTempDir();
    const { tool } = makeEchoTool();
    const log = path.join(dir, "log");
    const command = bashHook(dir, "once.sh", `echo ran >> "${log}"`);
    const runner = createHookRunner({ settings: loadedSettings(hooksFor("PreToolUse", command), hooksFor("PreToolUse", command)), projectDir: dir });
    const context = makeContext(dir, [tool], { hookRunner: runner });
    await runner.preToolUse({ tool, input: { text: "a" }, toolUseID: "t", context });
    expect(fs.readFileSync(log, "utf8")).toBe("ran\n");
  });

  it("malformed entries are reported once with the settings file path, the valid hooks still run", async () => {
    const dir = makeTempDir();
    const { tool } = makeEchoTool();
    const marker = path.join(dir, "ran");
    const runner = createHookRunner({
      settings: loadedSettings({
        PreToolUse: [
          { matcher: "*", hooks: [{ type: "command", command: 42 }, { type: "command", command: `touch "${marker}"` }] },
          { matcher: "(", hooks: [{ type: "command", command: "exit 2" }] },
          "not an object",
        ],
        Bogus: [],
      }),
      projectDir: dir,
    });
    expect(runner.configNotices).toHaveLength(4);
    const context = makeContext(dir, [tool], { hookRunner: runner });
    const first = await runner.preToolUse({ tool, input: { text: "a" }, toolUseID: "t", context });
    expect(fs.existsSync(marker)).toBe(true);
    expect(first.permissionDecision).toBeUndefined();
    expect(first.notices.map((n) => n.message)).toEqual([
      expect.stringMatching(/^\/settings\/0\.json: hooks\.PreToolUse\[0\]\.hooks\[0\]: command: .*ignored/),
      expect.stringMatching(/hooks\.PreToolUse\[1\]\.matcher: invalid matcher regular expression/),
      expect.stringMatching(/hooks\.PreToolUse\[2\]: Invalid input: expected object/),
      expect.stringMatching(/hooks\.Bogus: unknown hook event "Bogus"/),
    ]);
    expect(first.notices.every((n) => n.level === "error")).toBe(true);
    const second = await runner.preToolUse({ tool, input: { text: "a" }, toolUseID: "t", context });
    expect(second.notices).toEqual([]);
  });

  it("a fault of the runner itself fails closed before the call and is only a notice after it", async () => {
    const dir = makeTempDir();
    const { tool } = makeEchoTool();
    const runner = runnerFor(dir, { ...(hooksFor("PreToolUse", "exit 0") as object), ...(hooksFor("PostToolUse", "exit 0") as object) });
    const context = makeContext(dir, [tool], { hookRunner: runner });
    context.getAppState = () => {
      throw new Error("state store is gone");
    };

    const pre = await runner.preToolUse({ tool, input: { text: "a" }, toolUseID: "t", context });
    const post = await runner.postToolUse({ tool, input: { text: "a" }, toolUseID: "t", context, response: null });

    expect(pre.permissionDecision).toEqual({ behavior: "deny", reason: expect.stringMatching(/failed while running PreToolUse hooks: state store is gone/) });
    expect(pre.notices).toEqual([expect.objectContaining({ level: "error", message: expect.stringMatching(/state store is gone/) })]);
    expect(post).toEqual({ additionalContext: [], notices: [expect.objectContaining({ level: "error", hookEvent: "PostToolUse" })] });
  });
});
