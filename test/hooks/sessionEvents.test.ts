/** UserPromptSubmit, SessionStart and Stop with Claude Code's protocol: real hook processes, real stdin/stdout. */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bashHook, hooksFor, makeContext, makeTempDir, removeTempDirs, runnerFor } from "./helpers.js";

afterEach(removeTempDirs);

function setup() {
  const dir = makeTempDir();
  return { dir, context: makeContext(dir, []) };
}

describe("session hook events", () => {
  it("UserPromptSubmit gets the prompt on stdin; its plain stdout becomes context for the model", async () => {
    const { dir, context } = setup();
    const seen = path.join(dir, "seen.json");
    const runner = runnerFor(dir, hooksFor("UserPromptSubmit", bashHook(dir, "p.sh", `cat > ${JSON.stringify(seen)}; echo "The build is on Node 20."`)), { sessionId: "s1" });
    const outcome = await runner.userPromptSubmit!({ context, prompt: "fix the tests" });
    expect(outcome.block).toBeUndefined();
    expect(outcome.additionalContext).toEqual(["The build is on Node 20."]);
    expect(JSON.parse(fs.readFileSync(seen, "utf8"))).toMatchObject({ hook_event_name: "UserPromptSubmit", prompt: "fix the tests", session_id: "s1", cwd: dir });
  });

  it("UserPromptSubmit blocks the prompt with exit 2 (stderr is the reason) or decision block", async () => {
    const { dir, context } = setup();
    const byExit = runnerFor(dir, hooksFor("UserPromptSubmit", bashHook(dir, "a.sh", `echo "no secrets in prompts" >&2; exit 2`)));
    expect((await byExit.userPromptSubmit!({ context, prompt: "my key is sk-123" })).block).toEqual({ reason: "no secrets in prompts" });
    const byJson = runnerFor(dir, hooksFor("UserPromptSubmit", bashHook(dir, "b.sh", `echo '{"decision":"block","reason":"office hours only"}'`)));
    expect((await byJson.userPromptSubmit!({ context, prompt: "x" })).block).toEqual({ reason: "office hours only" });
  });

  it("a UserPromptSubmit hook that fails (exit 1) gives no verdict and the user hears about it", async () => {
    const { dir, context } = setup();
    const runner = runnerFor(dir, hooksFor("UserPromptSubmit", bashHook(dir, "c.sh", `echo oops >&2; exit 1`)));
    const outcome = await runner.userPromptSubmit!({ context, prompt: "x" });
    expect(outcome.block).toBeUndefined();
    expect(outcome.notices[0]).toMatchObject({ level: "error", hookEvent: "UserPromptSubmit" });
    expect(outcome.notices[0].message).toMatch(/failed with exit code 1: oops/);
  });

  it("SessionStart matches on its source and adds context", async () => {
    const { dir, context } = setup();
    const runner = runnerFor(dir, hooksFor("SessionStart", bashHook(dir, "s.sh", `echo "open issues: 3"`), { matcher: "startup" }));
    expect((await runner.sessionStart!({ context, source: "startup" })).additionalContext).toEqual(["open issues: 3"]);
    expect((await runner.sessionStart!({ context, source: "resume" })).additionalContext).toEqual([]);
  });

  it("Stop hooks keep the model going with a reason (exit 2 or decision block), and learn when they already did", async () => {
    const { dir, context } = setup();
    const seen = path.join(dir, "stop.json");
    const script = `cat > ${JSON.stringify(seen)}; if grep -q '"stop_hook_active":true' ${JSON.stringify(seen)}; then exit 0; fi; echo "run the tests before stopping" >&2; exit 2`;
    const runner = runnerFor(dir, hooksFor("Stop", bashHook(dir, "stop.sh", script)));
    expect((await runner.stop!({ context, stopHookActive: false })).block).toEqual({ reason: "run the tests before stopping" });
    expect(JSON.parse(fs.readFileSync(seen, "utf8"))).toMatchObject({ hook_event_name: "Stop", stop_hook_active: false });
    expect((await runner.stop!({ context, stopHookActive: true })).block).toBeUndefined();
    const stopAll = runnerFor(dir, hooksFor("Stop", bashHook(dir, "halt.sh", `echo '{"continue":false,"stopReason":"budget spent"}'`)));
    expect((await stopAll.stop!({ context, stopHookActive: false })).preventContinuation).toEqual({ reason: "budget spent" });
  });

  it("tool hooks do not run for session events and session hooks do not run for tool calls", async () => {
    const { dir, context } = setup();
    const ran = path.join(dir, "ran");
    const runner = runnerFor(dir, hooksFor("PreToolUse", bashHook(dir, "t.sh", `touch ${JSON.stringify(ran)}`)));
    await runner.userPromptSubmit!({ context, prompt: "x" });
    await runner.stop!({ context, stopHookActive: false });
    expect(fs.existsSync(ran)).toBe(false);
  });
});
