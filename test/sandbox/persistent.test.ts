/**
 * The session's long-lived sandbox (bwrap + supervisor): processes that outlive their call, leftovers
 * adopted as tasks, parallel read-only calls, one sandbox per policy, a supervisor killed from outside,
 * nothing left after close. Skipped, with the reason, where the sandbox cannot run.
 */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { describe, expect, it, vi } from "vitest";
import type { ToolUseUpdate } from "../../src/core/pipeline/index.js";
import { runTools } from "../../src/core/executor/index.js";
import { listProcesses, treeMembers } from "../../src/util/processTree.js";
import { assistantMessage, tempDir } from "../helpers.js";
import { appears, bash, callTool, closeSession, openSession, persistentMode, sandboxSkipReason, textOf } from "./sessionSandbox.js";

// A session's first call starts bwrap and the sandbox runtime: seconds on a loaded 2-core machine.
vi.setConfig({ testTimeout: 120_000 });

const skipReason = sandboxSkipReason || (persistentMode ? "" : "the long-lived sandbox is off (TOOLGATE_SANDBOX_PERSISTENT=0)");
if (skipReason) console.warn(`skipping persistent sandbox tests: ${skipReason}`);

/** A process as pid and start time (clock ticks since boot): survives pid reuse. */
function identity(pid: number): string {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return `${pid}:${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]}`;
  } catch {
    return `${pid}:gone`;
  }
}

describe.skipIf(!!skipReason)("the session's long-lived sandbox", () => {
  it("a background server started in one call answers a later call (a FIFO in the session temp dir)", async () => {
    const server = 'mkfifo "$TMPDIR/req" "$TMPDIR/resp.tmp" && mv "$TMPDIR/resp.tmp" "$TMPDIR/resp"\nwhile read -r line < "$TMPDIR/req"; do echo "pong $line" > "$TMPDIR/resp"; done\n';
    const client = 'until [ -p "$TMPDIR/resp" ]; do sleep 0.05; done\necho hello > "$TMPDIR/req"; cat "$TMPDIR/resp"\n';
    const { session } = await openSession({ files: { "server.sh": server, "client.sh": client } });
    const started = await bash(session, { command: "bash server.sh", run_in_background: true });
    expect(started.isError).toBe(false);
    const answer = await bash(session, { command: "bash client.sh" });
    expect(answer.text).toContain("pong hello");
    const again = await bash(session, { command: "bash client.sh" });
    expect(again.text).toContain("pong hello");
  });

  it("a foreground command's `sleep 1000 &` becomes a task that TaskOutput reads and TaskStop stops", async () => {
    const { session } = await openSession();
    const result = await bash(session, { command: "(echo from-the-leftover; exec sleep 1000) & echo done" });
    expect(result.isError).toBe(false);
    expect(result.text).toContain("done");
    const id = /background task (b[0-9a-f]{8})/.exec(result.text)?.[1];
    expect(id, result.text).toBeDefined();
    const task = session.context.tasks.get(id!)!;
    expect(task.status()).toBe("running");
    const output = await callTool(session, "TaskOutput", { task_id: id, block: false });
    expect(output.text).toContain("running");
    const stop = await callTool(session, "TaskStop", { task_id: id });
    expect(stop.isError).toBe(false);
    expect(task.status()).toBe("killed");
    const inside = await bash(session, { command: "ps -eo args" });
    expect(inside.text).not.toContain("sleep 1000");
  });

  it("a daemon that double-forked out of its group is adopted too, and TaskStop kills it", async () => {
    const { session } = await openSession();
    const tag = `tg-psbx-daemon-${process.pid}-${Date.now()}`;
    const result = await bash(session, { command: `(setsid bash -c 'exec -a ${tag} sleep 300' &) ; echo started` });
    const id = /background task (b[0-9a-f]{8})/.exec(result.text)?.[1];
    expect(id, result.text).toBeDefined();
    await callTool(session, "TaskStop", { task_id: id });
    expect(spawnSync("pgrep", ["-f", tag], { encoding: "utf8" }).stdout.trim()).toBe("");
  });

  it("two read-only calls in one batch run at the same time in the sandbox (their intervals intersect)", async () => {
    const { session } = await openSession();
    const command = "date +%s%N; sleep 1; date +%s%N";
    const blocks = [1, 2].map((n) => ({ type: "tool_use" as const, id: `toolu_par${n}`, name: "Bash", input: { command } }));
    const results: ToolUseUpdate[] = [];
    for await (const u of runTools(blocks, assistantMessage(), session.canUseTool, session.context)) if (u.type === "result") results.push(u);
    const intervals = results.map((r) => textOf(r).text.trim().split("\n").map((line) => BigInt(line.trim())));
    expect(intervals).toHaveLength(2);
    const [[s1, e1], [s2, e2]] = intervals as [[bigint, bigint], [bigint, bigint]];
    expect(s1 < e2 && s2 < e1).toBe(true);
    expect(session.sandbox.livePids?.()).toHaveLength(1);
  });

  it("one sandbox per policy: a new rule gives another sandbox, the same policy reuses it", async () => {
    const { session } = await openSession();
    const sandbox = session.sandbox;
    const permissionContext = () => session.context.getAppState().toolPermissionContext;
    const pids = async () => {
      const proc = await sandbox.spawn!({ permissionContext: permissionContext(), scope: "none", script: "true", cwd: session.context.getCwd(), env: { PATH: process.env.PATH } });
      await proc.ended;
      return proc.sandboxPid;
    };
    const first = await pids();
    expect(await pids()).toBe(first);
    session.context.setAppState((s) => ({
      ...s,
      toolPermissionContext: {
        ...s.toolPermissionContext,
        rules: [...s.toolPermissionContext.rules, { source: "session" as const, ruleBehavior: "deny" as const, ruleValue: { toolName: "Read", ruleContent: "secret.txt" } }],
      },
    }));
    const second = await pids();
    expect(second).not.toBe(first);
    // the old policy's sandbox is closed once nothing runs in it
    expect(sandbox.livePids?.()).toEqual([second]);
  });

  it("a supervisor killed from outside fails the running call with a message, and the next call works", async () => {
    const { session } = await openSession();
    const tmp = session.sandbox.tempDir!;
    const running = bash(session, { command: 'touch "$TMPDIR/started"; sleep 100' });
    await appears(tmp, "started");
    const [pid] = session.sandbox.livePids!();
    process.kill(pid!, "SIGKILL");
    const failed = await running;
    expect(failed.isError).toBe(true);
    expect(failed.text).toContain("The sandbox stopped while the command ran");
    const next = await bash(session, { command: "echo again" });
    expect(next.isError).toBe(false);
    expect(next.text).toContain("again");
  });

  it("a command in the sandbox still cannot write the project or outside it", async () => {
    const { session, cwd } = await openSession();
    const outside = tempDir("tg-psbx-out-");
    const result = await bash(session, { command: `touch x; touch ${outside}/y; echo tried` });
    expect(result.text).toContain("tried");
    expect(fs.existsSync(path.join(cwd, "x"))).toBe(false);
    expect(fs.existsSync(path.join(outside, "y"))).toBe(false);
    expect(result.text).toContain("The sandbox blocked");
  });

  it("a nested .git created in one call is protected in the next", async () => {
    const { session, cwd } = await openSession({ mode: "acceptEdits" });
    const made = await bash(session, { command: "mkdir -p sub/.git/hooks" });
    expect(made.isError, made.text).toBe(false);
    await bash(session, { command: "echo evil > sub/.git/hooks/pre-commit" });
    expect(fs.existsSync(path.join(cwd, "sub/.git/hooks/pre-commit"))).toBe(false);
  });

  it("closing the session leaves no process of the sandbox behind", async () => {
    const { session } = await openSession();
    await bash(session, { command: "sleep 1000 & echo left" });
    const [pid] = session.sandbox.livePids!();
    const members = treeMembers(await listProcesses(), pid!).map((p) => identity(p.pid));
    expect(members.length).toBeGreaterThan(2);
    await closeSession(session);
    // the kernel reaps what the sandbox's end killed a moment later: wait for it (zombies are already gone)
    const live = async () => treeMembers(await listProcesses(), pid!).filter((p) => !p.state.startsWith("Z")).map((p) => p.pid);
    for (let tries = 0; tries < 100 && (await live()).length > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
    const alive = await live();
    // a pid with the same start time is the same process (pids are reused on a busy machine)
    const still = (await listProcesses()).filter((p) => !p.state.startsWith("Z") && members.includes(identity(p.pid)));
    expect(alive).toEqual([]);
    expect(still).toEqual([]);
  });
});
