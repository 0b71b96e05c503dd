/**
 * What a session's sandbox lets processes do across calls: a server started in one call answers a later one
 * (started with run_in_background or left running with `&`), readable with TaskOutput and stopped with
 * TaskStop; two read-only calls of one batch run at the same time. The overlap test runs in both modes
 * (a sandbox per command, and the long-lived one); the server tests need the long-lived sandbox, where calls
 * share one network namespace. Skipped, with the reason, where the sandbox cannot run.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runTools } from "../../src/core/executor/index.js";
import type { ToolUseUpdate } from "../../src/core/pipeline/index.js";
import { assistantMessage } from "../helpers.js";
import { appears, bash, callTool, closeSession, openSession, persistentMode, sandboxSkipReason, taskIdIn, textOf } from "./sessionSandbox.js";

if (sandboxSkipReason) console.warn(`skipping session sandbox tests: ${sandboxSkipReason}`);

/** An HTTP server on a free loopback port: logs each request, writes its port to $TMPDIR/<name>.port once it listens. */
const SERVER = `
const http = require("node:http");
const name = process.argv[2];
http.createServer((req, res) => { console.log("served " + req.url); res.end("pong " + req.url + "\\n"); })
  .listen(0, "127.0.0.1", function () {
    const file = process.env.TMPDIR + "/" + name + ".port";
    require("node:fs").writeFileSync(file + ".tmp", String(this.address().port));
    require("node:fs").renameSync(file + ".tmp", file);
  });
`;

const client = (name: string, request: string) => `curl -sS --noproxy '*' "http://127.0.0.1:$(cat "$TMPDIR/${name}.port")/${request}"`;

describe.skipIf(!!sandboxSkipReason)("processes across calls in the session's sandbox", () => {
  it("two read-only calls in one batch run at the same time: each can finish only once the other has started", async () => {
    const { session } = await openSession();
    const tmp = session.sandbox.tempDir!;
    // the relay opens a (blocks until the first call reads it), then b (until the second does), then answers both
    const relay = await bash(session, {
      command: 'mkfifo "$TMPDIR/a" "$TMPDIR/b" && touch "$TMPDIR/fifos" && exec 3>"$TMPDIR/a" 4>"$TMPDIR/b" && echo go >&3 && echo go >&4',
      run_in_background: true,
    });
    expect(relay.isError, relay.text).toBe(false);
    await appears(tmp, "fifos");
    // run one after the other, the first would wait forever for the second: the timeout turns that into a failure
    const blocks = ["a", "b"].map((fifo) => ({ type: "tool_use" as const, id: `toolu_overlap_${fifo}`, name: "Bash", input: { command: `cat "$TMPDIR/${fifo}"`, timeout: 20_000 } }));
    const results: ToolUseUpdate[] = [];
    for await (const u of runTools(blocks, assistantMessage(), session.canUseTool, session.context)) if (u.type === "result") results.push(u);
    expect(results.map((r) => textOf(r))).toEqual([
      { text: "go", isError: false },
      { text: "go", isError: false },
    ]);
    if (persistentMode) expect(session.sandbox.livePids?.()).toHaveLength(1);
  });

  describe.skipIf(!persistentMode)("with the long-lived sandbox", () => {
    it("a run_in_background server answers later calls; TaskOutput shows what it served; TaskStop ends it", async () => {
      const { session } = await openSession({ files: { "server.js": SERVER } });
      const tmp = session.sandbox.tempDir!;
      const started = await bash(session, { command: "node server.js bg", run_in_background: true });
      const id = taskIdIn(started.text);
      expect(id, started.text).toBeDefined();
      await appears(tmp, "bg.port");
      expect((await bash(session, { command: client("bg", "one") })).text).toBe("pong /one");
      expect((await bash(session, { command: client("bg", "two") })).text).toBe("pong /two");
      const output = await callTool(session, "TaskOutput", { task_id: id, block: false });
      expect(output.text).toContain("served /one");
      expect(output.text).toContain("served /two");
      expect(output.text).toContain("running");
      const stop = await callTool(session, "TaskStop", { task_id: id });
      expect(stop.isError, stop.text).toBe(false);
      const refused = await bash(session, { command: client("bg", "three") });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/Couldn't connect|Connection refused/i);
    });

    it("a server a foreground call left running with `&` becomes a task that answers later calls until TaskStop", async () => {
      const { session } = await openSession({ files: { "server.js": SERVER } });
      const tmp = session.sandbox.tempDir!;
      const started = await bash(session, { command: "node server.js fg & echo launched" });
      expect(started.isError, started.text).toBe(false);
      expect(started.text).toContain("launched");
      const id = taskIdIn(started.text);
      expect(id, started.text).toBeDefined();
      await appears(tmp, "fg.port");
      expect((await bash(session, { command: client("fg", "later") })).text).toBe("pong /later");
      const task = session.context.tasks.get(id!)!;
      expect(task.status()).toBe("running");
      expect(await task.readOutput()).toContain("served /later");
      await callTool(session, "TaskStop", { task_id: id });
      expect(task.status()).toBe("killed");
      expect((await bash(session, { command: client("fg", "gone") })).isError).toBe(true);
    });

    it("the session's end stops a server still running in its sandbox", async () => {
      const { session } = await openSession({ files: { "server.js": SERVER } });
      const tmp = session.sandbox.tempDir!;
      await bash(session, { command: "node server.js end", run_in_background: true });
      await appears(tmp, "end.port");
      const [pid] = session.sandbox.livePids!();
      expect(pid).toBeGreaterThan(0);
      await closeSession(session);
      expect(() => process.kill(pid!, 0)).toThrow();
      expect(fs.existsSync(path.join(tmp, "end.port"))).toBe(false);
    });
  });
});
