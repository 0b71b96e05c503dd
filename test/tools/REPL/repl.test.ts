/**
 * The REPL tool through the real pipeline and a real session: a real python3, the real bwrap sandbox when it
 * can run here (the sandbox tests are skipped with the reason otherwise).
 */
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { runToolUse, type ToolUseUpdate } from "../../../src/core/pipeline/index.js";
import type { CanUseToolFn } from "../../../src/core/Tool.js";
import type { Session } from "../../../src/session/index.js";
import { findPython3 } from "../../../src/tools/REPL/index.js";
import { approveAll, assistantMessage, tempDir } from "../../helpers.js";
import { openSession, sandboxSkipReason, type SessionSetup } from "../../sandbox/sessionSandbox.js";
import { waitFor } from "../Bash/helpers.js";

const python = findPython3(process.env);
if (!python) console.warn("skipping REPL tests: no python3 on PATH");
if (sandboxSkipReason) console.warn(`skipping REPL sandbox tests: ${sandboxSkipReason}`);

type Setup = Pick<SessionSetup, "sandbox" | "allowedTools" | "settings"> & {
  /** Put in the session's environment, to find the interpreter's processes. */
  marker?: string;
};

/** A project with no repository in it. */
const open = ({ marker, ...setup }: Setup = {}) =>
  openSession({ ...setup, prefix: "tg-repl-", gitHooks: false, env: marker ? { TG_REPL_MARKER: marker } : {} });

let counter = 0;
async function repl(session: Session, input: Record<string, unknown>, canUseTool: CanUseToolFn = session.canUseTool) {
  const updates: ToolUseUpdate[] = [];
  const block = { type: "tool_use" as const, id: `toolu_${++counter}`, name: "REPL", input };
  for await (const u of runToolUse(block, assistantMessage(), canUseTool, session.context)) updates.push(u);
  const results = updates.filter((u) => u.type === "result");
  expect(results).toHaveLength(1);
  const result = results[0];
  if (result.type !== "result") throw new Error("no result");
  const content = result.block.content;
  const text = typeof content === "string" ? content : (content ?? []).map((c) => ("text" in c ? c.text : "")).join("\n");
  return { text, isError: result.block.is_error === true, outcome: result.outcome };
}

/** Pids of live processes whose environment holds the marker (found across the sandbox's pid namespace). */
function processesWithMarker(marker: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`, "latin1");
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "latin1");
      // a zombie has no environment left; count only processes still running
      if (environ.includes(`TG_REPL_MARKER=${marker}`) && !/^\d+ \(.*\) Z/.test(stat)) found.push(Number(entry));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

describe.skipIf(!python)("REPL", () => {
  it("keeps variables, imports and definitions between calls and returns the last expression's value", async () => {
    const { session } = await open({ sandbox: false, allowedTools: ["REPL"] });
    const first = await repl(session, { code: "import math\nx = 41\ndef twice(n):\n    return 2 * n\nprint('hello')\nx + 1" });
    expect(first).toMatchObject({ text: "stdout:\nhello\nvalue: 42", isError: false });
    const second = await repl(session, { code: "twice(x) + math.floor(1.5)" });
    expect(second).toMatchObject({ text: "value: 83", isError: false });
    expect((await repl(session, { code: "_" })).text).toBe("value: 83");
    // a class defined in the REPL lives in its __main__, where pickle looks for it; the driver's names are not there
    const pickled = await repl(session, { code: "import pickle\nclass Point:\n    def __init__(self, x): self.x = x\npickle.loads(pickle.dumps(Point(3))).x, '_send' in globals()" });
    expect(pickled).toMatchObject({ text: "value: (3, False)", isError: false });
  });

  it("reports stdout, stderr and exceptions, and the interpreter survives them", async () => {
    const { session } = await open({ sandbox: false, allowedTools: ["REPL"] });
    const result = await repl(session, { code: "import sys\ny = 7\nprint('out')\nsys.stdout.buffer.write('bytes é\\n'.encode())\nprint('err', file=sys.stderr)\n1/0" });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("stdout:\nout\nbytes é");
    expect(result.text).toContain("stderr:\nerr");
    expect(result.text).toContain("ZeroDivisionError: division by zero");
    expect(result.text).not.toContain("_run");
    const syntax = await repl(session, { code: "def f(:" });
    expect(syntax.isError).toBe(true);
    expect(syntax.text).toMatch(/SyntaxError/);
    expect(syntax.text).not.toContain("ast.py");
    expect(await repl(session, { code: "exit()" })).toMatchObject({ isError: true, text: expect.stringContaining("exit() and quit() do not end it") });
    expect(await repl(session, { code: "y" })).toMatchObject({ text: "value: 7", isError: false });
  });

  it("does not let code printing to the real stdout corrupt the protocol", async () => {
    const { session } = await open({ sandbox: false, allowedTools: ["REPL"] });
    const result = await repl(session, { code: 'import os, subprocess\nos.write(1, b\'{"t":"done","id":99}\\n\')\nsubprocess.run(["echo", "from a child"])\n"still here"' });
    expect(result.isError).toBe(false);
    expect(result.text).toContain('{"t":"done","id":99}');
    expect(result.text).toContain("from a child");
    expect(result.text).toContain("value: 'still here'");
  });

  it("bounds long output like Bash and saves the whole of it", async () => {
    const { session } = await open({ sandbox: false, allowedTools: ["REPL"] });
    const result = await repl(session, { code: "for i in range(20000): print('line', i)" });
    expect(result.isError).toBe(false);
    expect(result.text).toContain("<persisted-output>");
    const file = /saved in (\S+\.stdout\.log)/.exec(result.text)?.[1];
    expect(file).toBeDefined();
    const saved = fs.readFileSync(file as string, "utf8");
    expect(saved.split("\n")).toHaveLength(20001);
    expect(saved).toContain("line 19999\n");
  });

  it("on timeout stops code that yields with KeyboardInterrupt and keeps the state", async () => {
    const { session } = await open({ sandbox: false, allowedTools: ["REPL"] });
    await repl(session, { code: "x = 'kept'" });
    const result = await repl(session, { code: "import time\nwhile True:\n    time.sleep(0.05)", timeout: 300 });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("timed out after 0.3s and was stopped with KeyboardInterrupt; the interpreter and its state are kept");
    expect(result.text).toContain("KeyboardInterrupt");
    expect(await repl(session, { code: "x" })).toMatchObject({ text: "value: 'kept'", isError: false });
  });

  it("kills and restarts code that ignores KeyboardInterrupt, saying the state was lost", async () => {
    const marker = randomUUID();
    const { session } = await open({ sandbox: false, allowedTools: ["REPL"], marker });
    await repl(session, { code: "x = 'lost'" });
    const before = processesWithMarker(marker);
    expect(before.length).toBeGreaterThan(0);
    const result = await repl(session, { code: "import time\nwhile True:\n    try:\n        time.sleep(0.05)\n    except KeyboardInterrupt:\n        pass", timeout: 300 });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("did not stop on KeyboardInterrupt");
    expect(result.text).toContain("Variables, imports and definitions from earlier calls are gone");
    expect(processesWithMarker(marker).filter((pid) => before.includes(pid))).toEqual([]);
    const after = await repl(session, { code: "'x' in globals()" });
    expect(after.text).toBe("This is a new Python process: the previous one was killed. Variables, imports and definitions from earlier calls are gone.\nvalue: False");
  });

  it("an abort interrupts the code, the call is reported as cancelled, and code that yields keeps the state", async () => {
    const { session, cwd } = await open({ sandbox: false, allowedTools: ["REPL"] });
    await repl(session, { code: "x = 'kept'" });
    const started = path.join(cwd, "started");
    const run = repl(session, { code: `import time\nopen(${JSON.stringify(started)}, 'w').close()\nwhile True:\n    time.sleep(0.05)` });
    expect(await waitFor(() => fs.existsSync(started))).toBe(true);
    session.context.abortController.abort();
    const result = await run;
    expect(result.isError).toBe(true);
    expect(result.outcome).toBe("cancelled");
    session.context.abortController = new AbortController();
    expect(await repl(session, { code: "x" })).toMatchObject({ text: "value: 'kept'", isError: false });
  });

  it.skipIf(!!sandboxSkipReason)("restarts the sandboxed interpreter with a notice when the sandbox policy changes", async () => {
    const { session } = await open({ allowedTools: ["REPL"] });
    await repl(session, { code: "x = 1" });
    expect((await repl(session, { code: "x" })).text).toBe("value: 1");
    const extra = tempDir("tg-repl-extra-");
    session.context.setAppState((prev) => ({
      ...prev,
      toolPermissionContext: { ...prev.toolPermissionContext, additionalWorkingDirectories: [...prev.toolPermissionContext.additionalWorkingDirectories, { path: extra, source: "session" }] },
    }));
    const after = await repl(session, { code: `open(${JSON.stringify(path.join(extra, "f.txt"))}, 'w').write('ok')\n'x' in globals()` });
    expect(after.text).toBe("The sandbox policy changed since the Python process started (write scope, directories or allowed hosts), so it was restarted. Variables, imports and definitions from earlier calls are gone.\nvalue: False");
    expect(fs.readFileSync(path.join(extra, "f.txt"), "utf8")).toBe("ok");
  });

  it("says so when the process dies, and starts a new one on the next call", async () => {
    const { session } = await open({ sandbox: false, allowedTools: ["REPL"] });
    const died = await repl(session, { code: "import os\nos._exit(3)" });
    expect(died).toMatchObject({ isError: true, text: expect.stringContaining("The Python process exited with code 3 while running the code") });
    expect((await repl(session, { code: "1 + 1" })).text).toContain("value: 2");
  });

  it("says so when the process ended between calls", async () => {
    const marker = randomUUID();
    const { session } = await open({ sandbox: false, allowedTools: ["REPL"], marker });
    await repl(session, { code: "import os, threading\nx = 1\nthreading.Timer(0.1, lambda: os._exit(0)).start()" });
    expect(await waitFor(() => processesWithMarker(marker).length === 0)).toBe(true);
    // gone from /proc is not yet seen by the host: wait for its exit event, or the call races it
    expect(await waitFor(() => session.context.repl?.pid === undefined)).toBe(true);
    expect((await repl(session, { code: "'x' in globals()" })).text).toBe(
      "This is a new Python process: the previous one ended between calls. Variables, imports and definitions from earlier calls are gone.\nvalue: False",
    );
  });

  it("refuses empty code with a message saying what to pass", async () => {
    const { session } = await open({ sandbox: false, allowedTools: ["REPL"] });
    const result = await repl(session, { code: "  " });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("pass the Python source to run in `code`");
  });

  it("asks unless a rule allows it: denied with no one to ask, allowed by a bare REPL rule or an approval", async () => {
    const { session } = await open({ sandbox: false });
    const denied = await repl(session, { code: "1" });
    expect(denied.isError).toBe(true);
    expect(denied.text).toMatch(/REPL/);
    expect(await repl(session, { code: "1" }, approveAll)).toMatchObject({ text: "value: 1", isError: false });
    const { session: allowed } = await open({ sandbox: false, settings: { permissions: { allow: ["REPL"] } } });
    expect(await repl(allowed, { code: "2" })).toMatchObject({ text: "value: 2", isError: false });
    const { session: denying } = await open({ sandbox: false, settings: { permissions: { allow: ["REPL"], deny: ["REPL"] } } });
    expect(await repl(denying, { code: "3" }, approveAll)).toMatchObject({ isError: true });
  });

  it("stops the Python process when the session closes", async () => {
    const marker = randomUUID();
    const { session } = await open({ sandbox: false, allowedTools: ["REPL"], marker });
    await repl(session, { code: "import subprocess\nchild = subprocess.Popen(['sleep', '300'])" });
    expect(processesWithMarker(marker).length).toBeGreaterThanOrEqual(2);
    await session.close();
    expect(processesWithMarker(marker)).toEqual([]);
  });

  describe.skipIf(!!sandboxSkipReason)("in the OS sandbox", () => {
    it("writes inside the project when permitted, and cannot write outside it", async () => {
      const { session, cwd } = await open({ allowedTools: ["REPL"] });
      const outside = path.join(tempDir("tg-repl-outside-"), "escaped.txt");
      const inside = await repl(session, { code: "open('inside.txt', 'w').write('ok')" });
      expect(inside).toMatchObject({ text: "value: 2", isError: false });
      expect(fs.readFileSync(path.join(cwd, "inside.txt"), "utf8")).toBe("ok");
      const escaped = await repl(session, { code: `open(${JSON.stringify(outside)}, 'w').write('no')` });
      expect(escaped.isError).toBe(true);
      expect(escaped.text).toMatch(/Read-only file system|Permission denied/);
      expect(fs.existsSync(outside)).toBe(false);
      // the same process served both calls
      expect(await repl(session, { code: "x = 1\nx" })).toMatchObject({ text: "value: 1", isError: false });
      expect((await repl(session, { code: "x" })).text).toBe("value: 1");
    });

    it("stops the sandboxed process when the session closes", async () => {
      const marker = randomUUID();
      const { session } = await open({ allowedTools: ["REPL"], marker });
      await repl(session, { code: "import os\nos.getpid()" });
      expect(processesWithMarker(marker).length).toBeGreaterThan(0);
      await session.close();
      expect(processesWithMarker(marker)).toEqual([]);
    });
  });
});
