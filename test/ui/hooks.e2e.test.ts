/** Notification (permission_prompt, idle_prompt) and SessionEnd hooks in the terminal UI: the real CLI in tmux, hooks that record their stdin. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { closedAfterEach, hasTmux, Terminal, tuiEnv } from "./tmux.js";

vi.setConfig({ testTimeout: 180_000 });

const { terminals, serve } = closedAfterEach();

const READY = "ask anything";

/** Polls `read` until it gives a value `accept` takes (what the hook wrote), failing after `timeoutMs`. */
async function eventually<T>(read: () => T, accept: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`not seen within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!hasTmux)("hooks in the terminal UI", () => {
  it("Notification runs when the permission dialog opens; SessionEnd runs on /clear (clear) and on /exit (prompt_input_exit)", async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-tui-hooks-")));
    const home = path.join(dir, ".home");
    fs.mkdirSync(home);
    const log = path.join(dir, "hooks.jsonl");
    const hook = { hooks: [{ type: "command", command: `{ cat; echo; } >> ${JSON.stringify(log)}`, timeout: 10 }] };
    // User settings: no folder trust question.
    fs.writeFileSync(path.join(home, "settings.json"), JSON.stringify({ hooks: { Notification: [hook], SessionEnd: [hook] } }));
    const server = await serve({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_bash", name: "Bash", input: { command: "echo hi > out.txt" } }] },
        { content: [{ type: "text", text: "Wrote it." }] },
      ],
    });
    const env = tuiEnv(home, server.url);
    const t = new Terminal(dir, env, ["--no-sandbox"]);
    terminals.push(t);
    const recorded = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);

    await t.waitFor(READY);
    await t.type("write out.txt");
    await t.key("Enter");
    await t.waitFor("Allow Bash?");
    const [notification] = await eventually(recorded, (r) => r.length >= 1);
    expect(notification).toMatchObject({ hook_event_name: "Notification", notification_type: "permission_prompt", message: "toolgate needs your permission to use Bash", cwd: dir });
    await t.key("1");
    await t.waitFor("Wrote it.", { all: true });

    await t.waitFor(READY);
    await t.type("/clear");
    await t.key("Enter");
    await t.waitFor("conversation cleared", { all: true });
    const afterClear = await eventually(recorded, (r) => r.length >= 2);
    expect(afterClear[1]).toMatchObject({ hook_event_name: "SessionEnd", reason: "clear", session_id: notification.session_id });

    await t.type("/exit");
    await t.key("Enter");
    await eventually(() => fs.existsSync(t.exitFile), Boolean);
    expect(fs.readFileSync(t.exitFile, "utf8").trim()).toBe("0");
    const all = recorded();
    expect(all.map((r) => [r.hook_event_name, r.reason ?? r.notification_type])).toEqual([
      ["Notification", "permission_prompt"],
      ["SessionEnd", "clear"],
      ["SessionEnd", "prompt_input_exit"],
    ]);
  });

  it("Notification idle_prompt: once per idle period after a turn, never while a turn runs", async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-tui-idle-")));
    const home = path.join(dir, ".home");
    fs.mkdirSync(home);
    const log = path.join(dir, "hooks.jsonl");
    const release = path.join(dir, "release");
    // The hook records its input, then hangs until its 2 s timeout kills it: the timeout's notice on screen is the
    // UI's own clock, proof that 2 s passed in the UI with nothing typed (a repeating notification would have fired).
    const hook = { hooks: [{ type: "command", command: `{ cat; echo; } >> ${JSON.stringify(log)}; exec sleep 30`, timeout: 2 }] };
    fs.writeFileSync(path.join(home, "settings.json"), JSON.stringify({ hooks: { Notification: [hook] } }));
    const server = await serve({
      turns: [
        { content: [{ type: "text", text: "First answer." }] },
        // held open until the test releases it
        { content: [{ type: "text", text: "Second answer." }], steps: [{ after: 0, waitForFile: release, timeoutMs: 120_000 }] },
      ],
    });
    const env = tuiEnv(home, server.url, { TOOLGATE_IDLE_NOTIFY_MS: "300" });
    const t = new Terminal(dir, env, ["--no-sandbox"], { columns: 200 });
    terminals.push(t);
    const recorded = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);
    const timeouts = () => t.allJoined().split("timed out after 2 s").length - 1;

    await t.waitFor(READY);
    await t.write("one\r");
    await t.waitFor("First answer.", { all: true });
    const [idle] = await eventually(recorded, (r) => r.length >= 1);
    expect(idle).toEqual({
      session_id: expect.any(String),
      // as in every hook of the main session (its runner is not told the transcript's path yet)
      transcript_path: expect.any(String),
      cwd: dir,
      permission_mode: "default",
      hook_event_name: "Notification",
      message: "toolgate is waiting for your input",
      notification_type: "idle_prompt",
    });
    await eventually(timeouts, (n) => n >= 1);
    expect(recorded()).toHaveLength(1);

    // a turn held open: the spinner's clock shows 2 s have passed in the UI, with no notification
    await t.write("two\r");
    await eventually(() => server.requests().length, (n) => n === 2);
    await t.waitFor(/Working… \((?:[2-9]|\d\d+)s ·/);
    expect(recorded()).toHaveLength(1);
    fs.writeFileSync(release, "");
    await t.waitFor("Second answer.", { all: true });
    const after = await eventually(recorded, (r) => r.length >= 2);
    expect(after[1]).toMatchObject({ hook_event_name: "Notification", notification_type: "idle_prompt", session_id: idle.session_id });
    await eventually(timeouts, (n) => n >= 2);
    expect(recorded()).toHaveLength(2);
  });

  it("--fallback-model: a 529 from the model is answered by the fallback model, the UI says so, and the next prompt tries the main model again", async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-tui-fallback-")));
    const home = path.join(dir, ".home");
    fs.mkdirSync(home);
    const server = await serve({ turns: [{ status: 529 }, { content: [{ type: "text", text: "Answer from the backup." }] }, { content: [{ type: "text", text: "Answer from the main model." }] }] });
    const env = tuiEnv(home, server.url, { TOOLGATE_MAX_RETRIES: "0" });
    const t = new Terminal(dir, env, ["--no-sandbox", "--model", "primary-model", "--fallback-model", "backup-model"]);
    terminals.push(t);
    await t.waitFor(READY);
    await t.type("hello");
    await t.key("Enter");
    await t.waitFor("Answer from the backup.", { all: true });
    expect(t.allJoined()).toContain("fallback model backup-model");
    await t.type("again");
    await t.key("Enter");
    await t.waitFor("Answer from the main model.", { all: true });
    expect(server.requests().map((r) => r.body.model)).toEqual(["primary-model", "backup-model", "primary-model"]);
  });
});
