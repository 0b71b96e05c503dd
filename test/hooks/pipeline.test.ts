import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  bashHook,
  hooksFor,
  makeContext,
  makeEchoTool,
  makeTempDir,
  nodeHook,
  recordingCanUseTool,
  removeTempDirs,
  resultText,
  runnerFor,
  runOne,
} from "./helpers.js";

afterEach(removeTempDirs);

const jsonHook = (dir: string, name: string, output: unknown) => nodeHook(dir, name, `process.stdout.write(${JSON.stringify(JSON.stringify(output))});`);

function setup(hooks: (dir: string) => unknown, toolOptions: Parameters<typeof makeEchoTool>[0] = {}) {
  const dir = makeTempDir();
  const echo = makeEchoTool(toolOptions);
  const runner = runnerFor(dir, hooks(dir));
  const context = makeContext(dir, [echo.tool], { hookRunner: runner });
  return { dir, ...echo, context };
}

describe("PreToolUse hooks in the pipeline", () => {
  it("exit 2 blocks the call: stderr reaches the model and call() never runs", async () => {
    const { calls, context } = setup((dir) => hooksFor("PreToolUse", bashHook(dir, "block.sh", `echo "Use the safe-rm wrapper instead" >&2\nexit 2`)));
    const canUseTool = recordingCanUseTool("allow");

    const result = await runOne(context, "Echo", { text: "rm -rf /" }, canUseTool.fn);

    expect(result.block.is_error).toBe(true);
    expect(result.outcome).toBe("denied");
    expect(resultText(result)).toBe("A PreToolUse hook blocked this Echo call: Use the safe-rm wrapper instead");
    expect(calls).toEqual([]);
    expect(canUseTool.asked).toEqual([]);
  });

  it("exit 1 is a notice for the user only; the tool still runs", async () => {
    const { calls, context } = setup((dir) => hooksFor("PreToolUse", bashHook(dir, "warn.sh", `echo "formatter not installed" >&2\nexit 1`)));

    const result = await runOne(context, "Echo", { text: "hi" });

    expect(result.outcome).toBe("success");
    expect(resultText(result)).toBe("echo: hi");
    expect(calls).toEqual([{ text: "hi" }]);
    expect(result.notices).toEqual([expect.objectContaining({ level: "error", message: expect.stringContaining("formatter not installed") })]);
  });

  it("JSON deny blocks with the hook's reason", async () => {
    const { calls, context } = setup((dir) =>
      hooksFor("PreToolUse", jsonHook(dir, "deny.js", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "not in prod" } })),
    );

    const result = await runOne(context, "Echo", { text: "hi" });

    expect(result.block.is_error).toBe(true);
    expect(resultText(result)).toBe("A PreToolUse hook blocked this Echo call: not in prod");
    expect(calls).toEqual([]);
  });

  it("JSON allow skips the prompt the tool would otherwise need", async () => {
    const asked = recordingCanUseTool("deny");
    const without = setup(() => ({}), { permission: "passthrough" });
    const unhooked = await runOne(without.context, "Echo", { text: "hi" }, asked.fn);
    expect(unhooked.outcome).toBe("denied");
    expect(asked.asked).toHaveLength(1);

    const withHook = setup((dir) => hooksFor("PreToolUse", jsonHook(dir, "allow.js", { hookSpecificOutput: { permissionDecision: "allow" } })), { permission: "passthrough" });
    const prompt = recordingCanUseTool("deny");
    const hooked = await runOne(withHook.context, "Echo", { text: "hi" }, prompt.fn);
    expect(hooked.outcome).toBe("success");
    expect(prompt.asked).toEqual([]);
    expect(withHook.calls).toEqual([{ text: "hi" }]);
  });

  it("updatedInput replaces the input before the call", async () => {
    const { calls, context } = setup((dir) =>
      hooksFor("PreToolUse", jsonHook(dir, "rewrite.js", { hookSpecificOutput: { permissionDecision: "allow", updatedInput: { text: "rewritten", count: 3 } } })),
    );

    const result = await runOne(context, "Echo", { text: "original" });

    expect(resultText(result)).toBe("echo: rewritten");
    expect(calls).toEqual([{ text: "rewritten", count: 3 }]);
  });

  it("an updatedInput that breaks the schema gives an is_error result and no call", async () => {
    const { calls, context } = setup((dir) => hooksFor("PreToolUse", jsonHook(dir, "bad.js", { hookSpecificOutput: { updatedInput: { text: 5, extra: true } } })));

    const result = await runOne(context, "Echo", { text: "original" });

    expect(result.block.is_error).toBe(true);
    expect(result.outcome).toBe("invalid_input");
    expect(resultText(result)).toMatch(/PreToolUse hook rewrote the input of Echo into an invalid one/);
    expect(resultText(result)).toMatch(/text/);
    expect(resultText(result)).toMatch(/extra/);
    expect(calls).toEqual([]);
  });

  it("an updatedInput that fails the tool's own validation gives an is_error result and no call", async () => {
    const { calls, context } = setup((dir) => hooksFor("PreToolUse", jsonHook(dir, "forbid.js", { hookSpecificOutput: { updatedInput: { text: "forbidden" } } })));

    const result = await runOne(context, "Echo", { text: "fine" });

    expect(result.block.is_error).toBe(true);
    expect(resultText(result)).toBe("<tool_use_error>text may not be 'forbidden'</tool_use_error>");
    expect(calls).toEqual([]);
  });

  it("additionalContext from PreToolUse and PostToolUse hooks reaches the tool_result", async () => {
    const { context } = setup((dir) => ({
      PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: jsonHook(dir, "pre.js", { hookSpecificOutput: { additionalContext: "pre: the repo uses tabs" } }) }] }],
      PostToolUse: [{ matcher: "*", hooks: [{ type: "command", command: jsonHook(dir, "post.js", { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "post: 3 lint warnings" } }) }] }],
    }));

    const result = await runOne(context, "Echo", { text: "hi" });

    expect(result.block.content).toEqual([
      { type: "text", text: "echo: hi" },
      { type: "text", text: "pre: the repo uses tabs" },
      { type: "text", text: "post: 3 lint warnings" },
    ]);
  });

  it("continue:false before the call stops the turn and the tool does not run", async () => {
    const { calls, context } = setup((dir) => hooksFor("PreToolUse", jsonHook(dir, "stop.js", { continue: false, stopReason: "quota exhausted" })));

    const result = await runOne(context, "Echo", { text: "hi" });

    expect(result.preventContinuation).toEqual({ reason: "quota exhausted" });
    expect(result.block.is_error).toBe(true);
    expect(resultText(result)).toMatch(/quota exhausted/);
    expect(calls).toEqual([]);
  });
});

describe("PostToolUse and PostToolUseFailure hooks in the pipeline", () => {
  it("a PostToolUse block (exit 2) tells the model after the tool ran", async () => {
    const { calls, context } = setup((dir) => hooksFor("PostToolUse", bashHook(dir, "post.sh", `echo "the file no longer compiles" >&2\nexit 2`)));

    const result = await runOne(context, "Echo", { text: "hi" });

    expect(calls).toHaveLength(1);
    expect(result.block.content).toEqual([
      { type: "text", text: "echo: hi" },
      { type: "text", text: "A PostToolUse hook objected to this result: the file no longer compiles" },
    ]);
  });

  it("PostToolUse continue:false lets the result through and stops the turn", async () => {
    const { calls, context } = setup((dir) => hooksFor("PostToolUse", jsonHook(dir, "stop.js", { continue: false, stopReason: "enough for today" })));

    const result = await runOne(context, "Echo", { text: "hi" });

    expect(calls).toHaveLength(1);
    expect(result.outcome).toBe("success");
    expect(result.preventContinuation).toEqual({ reason: "enough for today" });
  });

  it("PostToolUseFailure receives the tool's error and can add context", async () => {
    const { context, dir } = setup(
      (d) =>
        hooksFor(
          "PostToolUseFailure",
          bashHook(d, "fail.sh", `cat > "${d}/failure.json"\necho '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"retry with --force"}}'`),
        ),
      { fail: "kaboom: disk full" },
    );

    const result = await runOne(context, "Echo", { text: "hi" }, undefined, "toolu_fail");

    expect(result.outcome).toBe("tool_error");
    const stdin = JSON.parse(fs.readFileSync(path.join(dir, "failure.json"), "utf8"));
    expect(stdin).toMatchObject({ hook_event_name: "PostToolUseFailure", tool_name: "Echo", tool_use_id: "toolu_fail", is_interrupt: false });
    expect(stdin.error).toContain("kaboom: disk full");
    expect(resultText(result)).toContain("retry with --force");
  });

  it("PostToolUse hooks do not run for a failed call, PostToolUseFailure hooks do not run for a good one", async () => {
    const hooks = (d: string) => ({
      PostToolUse: [{ hooks: [{ type: "command", command: `touch "${d}/post"` }] }],
      PostToolUseFailure: [{ hooks: [{ type: "command", command: `touch "${d}/failure"` }] }],
    });
    const good = setup(hooks);
    await runOne(good.context, "Echo", { text: "hi" });
    expect([fs.existsSync(path.join(good.dir, "post")), fs.existsSync(path.join(good.dir, "failure"))]).toEqual([true, false]);

    const bad = setup(hooks, { fail: "nope" });
    await runOne(bad.context, "Echo", { text: "hi" });
    expect([fs.existsSync(path.join(bad.dir, "post")), fs.existsSync(path.join(bad.dir, "failure"))]).toEqual([false, true]);
  });
});

describe("PermissionRequest hooks in the pipeline", () => {
  it("allow answers the prompt: canUseTool is not asked and the tool runs", async () => {
    const { calls, context } = setup(
      (dir) => hooksFor("PermissionRequest", jsonHook(dir, "yes.js", { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } })),
      { permission: "passthrough" },
    );
    const prompt = recordingCanUseTool("deny");

    const result = await runOne(context, "Echo", { text: "hi" }, prompt.fn);

    expect(result.outcome).toBe("success");
    expect(prompt.asked).toEqual([]);
    expect(calls).toEqual([{ text: "hi" }]);
  });

  it("deny answers the prompt: the model gets the hook's message and the tool does not run", async () => {
    const { calls, context } = setup(
      (dir) =>
        hooksFor("PermissionRequest", jsonHook(dir, "no.js", { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "Echo is off limits" } } })),
      { permission: "passthrough" },
    );
    const prompt = recordingCanUseTool("allow");

    const result = await runOne(context, "Echo", { text: "hi" }, prompt.fn);

    expect(result.block.is_error).toBe(true);
    expect(resultText(result)).toBe("Echo is off limits");
    expect(prompt.asked).toEqual([]);
    expect(calls).toEqual([]);
  });

  it("allow with updatedInput changes what the tool receives", async () => {
    const { calls, context } = setup(
      (dir) => hooksFor("PermissionRequest", jsonHook(dir, "edit.js", { hookSpecificOutput: { decision: { behavior: "allow", updatedInput: { text: "approved version" } } } })),
      { permission: "passthrough" },
    );

    const result = await runOne(context, "Echo", { text: "hi" });

    expect(resultText(result)).toBe("echo: approved version");
    expect(calls).toEqual([{ text: "approved version" }]);
  });

  it("does not run when nothing would ask", async () => {
    const { context, dir } = setup((d) => hooksFor("PermissionRequest", `touch "${d}/asked"`));
    await runOne(context, "Echo", { text: "hi" });
    expect(fs.existsSync(path.join(dir, "asked"))).toBe(false);
  });
});

describe("refused calls reach the hooks too", () => {
  /** Every event appends its stdin to events.jsonl. */
  const logAll = (d: string) => {
    const log = bashHook(d, "log.sh", `{ cat; echo; } >> "${d}/events.jsonl"`);
    return Object.fromEntries(
      ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"].map((event) => [event, [{ hooks: [{ type: "command", command: log }] }]]),
    );
  };
  const events = (dir: string) =>
    fs.readFileSync(path.join(dir, "events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);

  it("an unknown tool, a schema failure and a validateInput failure get PostToolUseFailure with the error", async () => {
    const { context, dir, calls } = setup(logAll);

    const unknown = await runOne(context, "echo", { text: "hi" }, undefined, "t_unknown");
    const invalid = await runOne(context, "Echo", { text: 3 }, undefined, "t_schema");
    const rejected = await runOne(context, "Echo", { text: "forbidden" }, undefined, "t_validate");

    expect([unknown.outcome, invalid.outcome, rejected.outcome]).toEqual(["unknown_tool", "invalid_input", "invalid_input"]);
    expect(resultText(unknown)).toBe("<tool_use_error>Error: No such tool available: echo. Did you mean Echo?</tool_use_error>");
    expect(calls).toEqual([]);
    const log = events(dir);
    expect(log.map((e) => [e.hook_event_name, e.tool_use_id, e.tool_name])).toEqual([
      ["PostToolUseFailure", "t_unknown", "echo"],
      ["PostToolUseFailure", "t_schema", "Echo"],
      ["PostToolUseFailure", "t_validate", "Echo"],
    ]);
    expect(log[0]).toMatchObject({ error: "No such tool available: echo. Did you mean Echo?", is_interrupt: false, tool_input: { text: "hi" } });
    expect(log[1].error).toContain("text: wrong type, expected string but got number");
    expect(log[2]).toMatchObject({ error: "text may not be 'forbidden'", tool_input: { text: "forbidden" } });
  });

  it("a call cancelled before it started gets PostToolUseFailure with is_interrupt", async () => {
    const { context, dir, calls } = setup(logAll);
    context.abortController.abort();

    const result = await runOne(context, "Echo", { text: "hi" }, undefined, "t_cancel");

    expect(result.outcome).toBe("cancelled");
    expect(calls).toEqual([]);
    expect(events(dir)).toEqual([expect.objectContaining({ hook_event_name: "PostToolUseFailure", tool_use_id: "t_cancel", is_interrupt: true })]);
  });

  it("denials by a PreToolUse hook and by the user get PermissionDenied with the reason", async () => {
    const { context, dir, calls } = setup((d) => ({
      ...logAll(d),
      PreToolUse: [
        { hooks: [{ type: "command", command: bashHook(d, "log-pre.sh", `{ cat; echo; } >> "${d}/events.jsonl"`) }] },
        { matcher: "Echo", hooks: [{ type: "command", command: bashHook(d, "no-secrets.sh", `grep -q secret && { echo "no secrets here" >&2; exit 2; }; exit 0`) }] },
      ],
    }), { permission: "passthrough" });

    const byHook = await runOne(context, "Echo", { text: "a secret" }, undefined, "t_hook");
    const byUser = await runOne(context, "Echo", { text: "hi" }, recordingCanUseTool("deny").fn, "t_user");

    expect([byHook.outcome, byUser.outcome]).toEqual(["denied", "denied"]);
    expect(calls).toEqual([]);
    const log = events(dir);
    expect(log.map((e) => [e.hook_event_name, e.tool_use_id])).toEqual([
      ["PreToolUse", "t_hook"],
      ["PermissionDenied", "t_hook"],
      ["PreToolUse", "t_user"],
      ["PermissionRequest", "t_user"],
      ["PermissionDenied", "t_user"],
    ]);
    expect(log[1].reason).toBe("A PreToolUse hook blocked this Echo call: no secrets here");
    expect(log[4].reason).toBe("The user said no.");
  });

  it("a PermissionDenied hook can add context for the model; exit 2 is reported to it", async () => {
    const { context } = setup((d) => ({
      PermissionDenied: [
        { hooks: [{ type: "command", command: jsonHook(d, "ctx.js", { hookSpecificOutput: { hookEventName: "PermissionDenied", additionalContext: "ask the user to run it" } }) }] },
        { hooks: [{ type: "command", command: bashHook(d, "two.sh", `echo "logged as a violation" >&2; exit 2`) }] },
      ],
    }), { permission: "passthrough" });

    const result = await runOne(context, "Echo", { text: "hi" }, recordingCanUseTool("deny").fn);

    expect(result.outcome).toBe("denied");
    expect(resultText(result)).toBe("The user said no.\nask the user to run it\nA PermissionDenied hook reported: logged as a violation");
  });
});
