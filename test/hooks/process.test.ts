import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bashHook, hooksFor, isProcessAlive, makeContext, makeEchoTool, makeTempDir, nodeHook, removeTempDirs, runnerFor, waitFor } from "./helpers.js";
import { execHookCommand } from "../../src/hooks/execHook.js";

const pidsToReap: number[] = [];

afterEach(() => {
  for (const pid of pidsToReap.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  removeTempDirs();
});

function readPid(file: string): number {
  const pid = Number(fs.readFileSync(file, "utf8").trim());
  pidsToReap.push(pid);
  return pid;
}

describe("hook processes", () => {
  it("matching hooks run in parallel: each starts before the other finishes", async () => {
    const dir = makeTempDir();
    const { tool } = makeEchoTool();
    const stamp = (name: string) =>
      nodeHook(
        dir,
        `${name}.js`,
        `const fs = require("fs"); const at = (f) => fs.writeFileSync(${JSON.stringify(dir)} + "/" + f, String(Date.now()));
at("${name}.start"); setTimeout(() => at("${name}.end"), 1000);`,
      );
    const runner = runnerFor(dir, {
      PreToolUse: [
        { matcher: "*", hooks: [{ type: "command", command: stamp("a") }] },
        { matcher: "Echo", hooks: [{ type: "command", command: stamp("b") }] },
      ],
    });
    const context = makeContext(dir, [tool], { hookRunner: runner });
    await runner.preToolUse({ tool, input: { text: "x" }, toolUseID: "t", context });

    const t = (f: string) => BigInt(fs.readFileSync(path.join(dir, f), "utf8").trim());
    expect(t("a.start") < t("b.end")).toBe(true);
    expect(t("b.start") < t("a.end")).toBe(true);
  });

  it("a hanging hook is killed at its timeout, grandchild included, and gives no decision", async () => {
    const dir = makeTempDir();
    const { tool } = makeEchoTool();
    const pidFile = path.join(dir, "grandchild.pid");
    const command = bashHook(dir, "hang.sh", `sleep 300 &\necho $! > "${pidFile}"\necho '{"decision":"approve"}'\nwait`);
    const runner = runnerFor(dir, hooksFor("PreToolUse", command, { timeout: 1 }));
    const context = makeContext(dir, [tool], { hookRunner: runner });

    const outcome = await runner.preToolUse({ tool, input: { text: "x" }, toolUseID: "t", context });

    expect(outcome.permissionDecision).toBeUndefined();
    expect(outcome.notices).toHaveLength(1);
    expect(outcome.notices[0]).toMatchObject({ level: "error", hookEvent: "PreToolUse", command });
    expect(outcome.notices[0].message).toMatch(/timed out after 1 s and was killed/);
    const grandchild = readPid(pidFile);
    expect(await waitFor(() => !isProcessAlive(grandchild))).toBe(true);
  });

  it("a hook that ignores SIGTERM is SIGKILLed after the grace period", async () => {
    const dir = makeTempDir();
    const pidFile = path.join(dir, "stubborn.pid");
    const script = `process.on("SIGTERM", () => {}); require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`;
    const command = nodeHook(dir, "stubborn.js", script);

    const result = await execHookCommand({ command, stdin: "{}", cwd: dir, env: process.env, timeoutMs: 500, killGraceMs: 200 });

    expect(result.kind).toBe("timedOut");
    expect(await waitFor(() => !isProcessAlive(readPid(pidFile)))).toBe(true);
  });

  it("a hook killed by a signal is reported as a crash with no decision", async () => {
    const dir = makeTempDir();
    const { tool } = makeEchoTool();
    const runner = runnerFor(dir, hooksFor("PreToolUse", bashHook(dir, "crash.sh", `echo '{"decision":"block"}'; echo dying >&2; kill -SEGV $$`)));
    const context = makeContext(dir, [tool], { hookRunner: runner });

    const outcome = await runner.preToolUse({ tool, input: { text: "x" }, toolUseID: "t", context });

    expect(outcome.permissionDecision).toBeUndefined();
    expect(outcome.notices).toHaveLength(1);
    expect(outcome.notices[0].level).toBe("error");
    expect(outcome.notices[0].message).toMatch(/crashed \(killed by SIGSEGV\): dying/);
  });

  it("a hook that cannot start (project dir missing) is reported, not thrown", async () => {
    const dir = makeTempDir();
    const { tool } = makeEchoTool();
    const runner = runnerFor(path.join(dir, "gone"), hooksFor("PostToolUse", "exit 2"));
    const context = makeContext(dir, [tool], { hookRunner: runner });

    const outcome = await runner.postToolUse({ tool, input: { text: "x" }, toolUseID: "t", context, response: null });

    expect(outcome.blockingError).toBeUndefined();
    expect(outcome.notices).toHaveLength(1);
    expect(outcome.notices[0].message).toMatch(/could not start: .*ENOENT/);
  });

  it("aborting the call kills running hooks and their children", async () => {
    const dir = makeTempDir();
    const { tool } = makeEchoTool();
    const pidFile = path.join(dir, "child.pid");
    const command = bashHook(dir, "slow.sh", `sleep 300 &\necho $! > "${pidFile}"\nwait`);
    const runner = runnerFor(dir, hooksFor("PreToolUse", command));
    const context = makeContext(dir, [tool], { hookRunner: runner });

    const pending = runner.preToolUse({ tool, input: { text: "x" }, toolUseID: "t", context });
    expect(await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").trim() !== "")).toBe(true);
    context.abortController.abort();
    const outcome = await pending;

    expect(outcome.permissionDecision).toBeUndefined();
    expect(outcome.notices).toEqual([expect.objectContaining({ level: "info", message: expect.stringMatching(/killed because the tool call was cancelled/) })]);
    const child = readPid(pidFile);
    expect(await waitFor(() => !isProcessAlive(child))).toBe(true);
  });

  it("children a hook leaves behind (background, double-forked) are stopped when it exits", async () => {
    const dir = makeTempDir();
    const files = ["bg", "double", "nohup"].map((name) => path.join(dir, `${name}.pid`));
    const command = [
      `sleep 300 & echo $! > "${files[0]}"`,
      `(sleep 300 & echo $! > "${files[1]}")`,
      `nohup sleep 300 >/dev/null 2>&1 & echo $! > "${files[2]}"`,
      `echo '{"decision":"approve"}'`,
    ].join("; ");

    const result = await execHookCommand({ command, stdin: "", cwd: dir, env: process.env, timeoutMs: 20_000 });

    expect(result).toMatchObject({ kind: "exited", code: 0 });
    if (result.kind === "exited") expect(result.stdout.trim()).toBe('{"decision":"approve"}');
    for (const file of files) expect(isProcessAlive(readPid(file))).toBe(false);
  });

  it("a child that ignores SIGTERM after its hook exited is SIGKILLed", async () => {
    const dir = makeTempDir();
    const pidFile = path.join(dir, "stubborn.pid");
    const command = `bash -c 'trap "" TERM; echo $$ > "${pidFile}"; while :; do sleep 0.1; done' & while [ ! -s "${pidFile}" ]; do sleep 0.05; done; exit 0`;

    const result = await execHookCommand({ command, stdin: "", cwd: dir, env: process.env, timeoutMs: 20_000, killGraceMs: 200 });

    expect(result).toMatchObject({ kind: "exited", code: 0 });
    expect(isProcessAlive(readPid(pidFile))).toBe(false);
  });

  it("hooks starting after a cancellation (PostToolUseFailure for an interrupt) still run", async () => {
    const dir = makeTempDir();
    const { tool } = makeEchoTool();
    const runner = runnerFor(dir, hooksFor("PostToolUseFailure", bashHook(dir, "f.sh", `echo '{"hookSpecificOutput":{"additionalContext":"saw it"}}'`)));
    const context = makeContext(dir, [tool], { hookRunner: runner });
    context.abortController.abort();

    const outcome = await runner.postToolUseFailure({ tool, input: { text: "x" }, toolUseID: "t", context, error: "interrupted", isInterrupt: true });

    expect(outcome.additionalContext).toEqual(["saw it"]);
  });

  it("output beyond the cap is dropped while the hook keeps running to completion", async () => {
    const dir = makeTempDir();
    const command = `head -c 5000000 /dev/zero | tr '\\0' 'x'; head -c 3000000 /dev/zero | tr '\\0' 'y' >&2; exit 3`;

    const result = await execHookCommand({ command, stdin: "", cwd: dir, env: process.env, timeoutMs: 30_000, maxOutputBytes: 1024 * 1024 });

    expect(result).toMatchObject({ kind: "exited", code: 3, stdoutTruncated: true, stderrTruncated: true });
    if (result.kind !== "exited") throw new Error("unreachable");
    expect(result.stdout.length).toBe(1024 * 1024);
    expect(result.stderr.length).toBe(1024 * 1024);
  });

  it("a chatty failing hook's notice stays bounded and says the output was cut", async () => {
    const dir = makeTempDir();
    const { tool } = makeEchoTool();
    const runner = runnerFor(dir, hooksFor("PreToolUse", `head -c 3000000 /dev/zero | tr '\\0' 'e' >&2; exit 1`), { maxOutputBytes: 100_000 });
    const context = makeContext(dir, [tool], { hookRunner: runner });

    const outcome = await runner.preToolUse({ tool, input: { text: "x" }, toolUseID: "t", context });

    expect(outcome.notices).toHaveLength(1);
    expect(outcome.notices[0].message.length).toBeLessThan(11_000);
    expect(outcome.notices[0].message).toMatch(/characters truncated/);
    expect(outcome.notices[0].message).toMatch(/\[output truncated\]/);
  });

  it("a timeout beyond what a timer can hold does not fire at once", async () => {
    const result = await execHookCommand({ command: "sleep 0.2", stdin: "", cwd: makeTempDir(), env: process.env, timeoutMs: 1e13 });
    expect(result).toMatchObject({ kind: "exited", code: 0 });
  });

  it("a hook that does not read a large stdin neither hangs nor fails", async () => {
    const dir = makeTempDir();
    const result = await execHookCommand({ command: "exit 0", stdin: "z".repeat(5_000_000), cwd: dir, env: process.env, timeoutMs: 30_000 });
    expect(result).toMatchObject({ kind: "exited", code: 0 });
  });

  it("a backgrounded child holding stdout does not keep the hook pending", async () => {
    const dir = makeTempDir();
    const pidFile = path.join(dir, "bg.pid");
    const result = await execHookCommand({
      command: `sleep 30 & echo $! > "${pidFile}"; echo '{"decision":"approve"}'`,
      stdin: "",
      cwd: dir,
      env: process.env,
      timeoutMs: 20_000,
    });
    readPid(pidFile);
    expect(result).toMatchObject({ kind: "exited", code: 0 });
    if (result.kind === "exited") expect(result.stdout.trim()).toBe('{"decision":"approve"}');
  });
});
