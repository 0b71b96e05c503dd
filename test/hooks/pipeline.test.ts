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
