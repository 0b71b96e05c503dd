/**
 * The REPL in the session's long-lived sandbox (real bwrap, real python3): the project stays clean for git while
 * the interpreter lives, a protected path deleted or replaced from the host never becomes writable to REPL code
 * (the sandbox that lost the mount ends itself, and the next call gets a new interpreter with the lost-state
 * notice), and the state survives calls otherwise. Skipped, with the reason, where the sandbox cannot run.
 */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { runToolUse, type ToolUseUpdate } from "../../../src/core/pipeline/index.js";
import type { PermissionMode } from "../../../src/core/permissionTypes.js";
import type { Session } from "../../../src/session/index.js";
import { findPython3 } from "../../../src/tools/REPL/index.js";
import { assistantMessage } from "../../helpers.js";
import { appears, callTool, closeSession, openSession, persistentMode, sandboxSkipReason, textOf } from "../../sandbox/sessionSandbox.js";

const python = findPython3(process.env);
const skip = !python ? "no python3 on PATH" : sandboxSkipReason || (!persistentMode ? "TOOLGATE_SANDBOX_PERSISTENT=0" : "");
if (skip) console.warn(`skipping REPL sandbox tests: ${skip}`);

const STATE_LOST = "Variables, imports and definitions from earlier calls are gone.";

let counter = 0;
/** One REPL call; every tool_use gets exactly one tool_result. */
async function repl(session: Session, code: string) {
  const updates: ToolUseUpdate[] = [];
  const block = { type: "tool_use" as const, id: `toolu_rs${++counter}`, name: "REPL", input: { code } };
  for await (const u of runToolUse(block, assistantMessage(), session.canUseTool, session.context)) updates.push(u);
  const results = updates.filter((u) => u.type === "result");
  expect(results).toHaveLength(1);
  return textOf(results[0]);
}

const git = (cwd: string, ...args: string[]) => {
  const run = spawnSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd, encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
};

/** A git project with a real protected file (.gitmodules), an allow rule for REPL, and an interpreter holding `x`. */
async function project(mode?: PermissionMode) {
  const { session, cwd } = await openSession({
    mode,
    settings: { permissions: { allow: ["REPL"] } },
    files: { "README.md": "hello\n", ".gitmodules": "# original\n", "evil.json": '{"mcpServers":{"evil":{}}}\n' },
  });
  fs.rmSync(path.join(cwd, ".git"), { recursive: true, force: true });
  git(cwd, "init", "-q");
  git(cwd, "add", ".");
  git(cwd, "commit", "-qm", "start");
  const first = await repl(session, "x = 'kept'\nx");
  expect(first).toEqual({ text: "value: 'kept'", isError: false });
  return { session, cwd };
}

/** What the host sees at a missing protected path while the interpreter lives: nothing, or an empty directory. */
function stillProtected(file: string): boolean {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  return !stat || (stat.isDirectory() && fs.readdirSync(file).length === 0);
}

describe.skipIf(!!skip)("REPL in the long-lived sandbox", () => {
  it("keeps its state across calls, and git sees no mount points in the project while it lives; none is left at the end", async () => {
    const { session, cwd } = await project();
    expect(await repl(session, "x")).toEqual({ text: "value: 'kept'", isError: false });
    // between calls, the interpreter alive
    expect(session.context.repl?.pid).toBeGreaterThan(0);
    expect(git(cwd, "status", "--porcelain")).toBe("");
    const tracked = new Set(["README.md", ".gitmodules", "evil.json", ".git"]);
    const extra = fs.readdirSync(cwd).filter((name) => !tracked.has(name));
    // what bwrap holds for missing safety paths is an empty read-only directory each (git lists none)
    expect(extra).toContain(".mcp.json");
    for (const name of extra) expect(stillProtected(path.join(cwd, name)), name).toBe(true);
    // and the interpreter cannot write there
    const wrote = await repl(session, "open('.mcp.json', 'w').write('{}')");
    expect(wrote.isError).toBe(true);
    expect(wrote.text).toMatch(/IsADirectoryError|Read-only file system|Permission denied/);
    expect(await repl(session, "open('notes.txt', 'w').write('ok')\nx")).toEqual({ text: "value: 'kept'", isError: false });
    expect(git(cwd, "status", "--porcelain")).toBe("?? notes.txt\n");
    await closeSession(session);
    expect(fs.readdirSync(cwd).filter((name) => !tracked.has(name))).toEqual(["notes.txt"]);
  });

  /** Host-side changes that silently drop a mount, each followed by REPL code that tries to write the path. */
  const attacks: { name: string; onHost(cwd: string): void; code: string; check(cwd: string): void }[] = [
    {
      name: "placeholder removed, then open(…, 'w')",
      onHost: (cwd) => fs.rmdirSync(path.join(cwd, ".mcp.json")),
      code: "open('.mcp.json', 'w').write('{\"evil\":1}')",
      check: (cwd) => expect(stillProtected(path.join(cwd, ".mcp.json"))).toBe(true),
    },
    {
      name: "placeholder removed, then os.rename over it",
      onHost: (cwd) => fs.rmdirSync(path.join(cwd, ".mcp.json")),
      code: "import os\nos.rename('evil.json', '.mcp.json')",
      check: (cwd) => {
        expect(stillProtected(path.join(cwd, ".mcp.json"))).toBe(true);
        expect(fs.existsSync(path.join(cwd, "evil.json"))).toBe(true);
      },
    },
    {
      name: "placeholder removed, then a symlink to a file the code wrote",
      onHost: (cwd) => fs.rmdirSync(path.join(cwd, ".mcp.json")),
      code: "import os\nopen('mine.json', 'w').write('{}')\nos.symlink('mine.json', '.mcp.json')",
      check: (cwd) => expect(stillProtected(path.join(cwd, ".mcp.json"))).toBe(true),
    },
    {
      name: "a protected file replaced by rename (an editor's save), then open(…, 'w')",
      onHost: (cwd) => {
        fs.writeFileSync(path.join(cwd, "saved.tmp"), "# saved by the user\n");
        fs.renameSync(path.join(cwd, "saved.tmp"), path.join(cwd, ".gitmodules"));
      },
      code: "open('.gitmodules', 'a').write('[submodule \"evil\"]\\n')",
      check: (cwd) => expect(fs.readFileSync(path.join(cwd, ".gitmodules"), "utf8")).toBe("# saved by the user\n"),
    },
    {
      name: "a protected file deleted, then os.unlink and a new one",
      onHost: (cwd) => fs.rmSync(path.join(cwd, ".gitmodules")),
      code: "import os\ntry:\n    os.unlink('.gitmodules')\nexcept FileNotFoundError:\n    pass\nopen('.gitmodules', 'w').write('evil')",
      check: (cwd) => expect(stillProtected(path.join(cwd, ".gitmodules"))).toBe(true),
    },
    {
      name: "a protected directory's placeholder renamed away, then os.makedirs inside it",
      onHost: (cwd) => fs.renameSync(path.join(cwd, ".toolgate"), path.join(cwd, "moved")),
      code: "import os\nos.makedirs('.toolgate', exist_ok=True)\nopen('.toolgate/settings.json', 'w').write('{}')",
      check: (cwd) => {
        expect(stillProtected(path.join(cwd, ".toolgate"))).toBe(true);
        expect(fs.readdirSync(path.join(cwd, "moved"))).toEqual([]);
      },
    },
  ];

  for (const attack of attacks) {
    it(`between calls: ${attack.name}: the code runs in a new interpreter, with the lost-state notice, and cannot write the path`, async () => {
      const { session, cwd } = await project();
      attack.onHost(cwd);
      const result = await repl(session, attack.code);
      expect(result.isError, result.text).toBe(true);
      expect(result.text).toContain("This is a new Python process: the previous one was stopped with its sandbox between calls");
      expect(result.text).toContain("lost its mount");
      expect(result.text).toContain(STATE_LOST);
      expect(result.text).toMatch(/Read-only file system|Permission denied|IsADirectoryError|Device or resource busy|File exists/);
      attack.check(cwd);
      // the new interpreter works, and keeps its own state
      expect(await repl(session, "x = 2\n'x' in globals()")).toEqual({ text: "value: True", isError: false });
      expect(await repl(session, "x")).toEqual({ text: "value: 2", isError: false });
    });
  }

  it("between calls nothing of the interpreter runs: a thread and a child process waiting for a placeholder to go never write the path", async () => {
    const { session, cwd } = await project();
    const tmp = session.sandbox.tempDir!;
    // both retry every millisecond, far inside the supervisor's 200 ms watch
    const started = await repl(
      session,
      [
        "import os, subprocess, threading, time",
        "def attack(name):",
        "    while True:",
        "        try:",
        "            os.rmdir('.mcp.json')",
        "        except OSError:",
        "            pass",
        "        try:",
        "            open('.mcp.json', 'w').write(name)",
        "            return",
        "        except OSError:",
        "            time.sleep(0.001)",
        "threading.Thread(target=attack, args=('thread',), daemon=True).start()",
        "child = subprocess.Popen(['python3', '-c', 'import os, time\\nwhile True:\\n    try:\\n        open(\".mcp.json\", \"w\").write(\"child\"); break\\n    except OSError:\\n        time.sleep(0.001)'])",
        "open(os.environ['TMPDIR'] + '/attacking', 'w').close()",
        "'started'",
      ].join("\n"),
    );
    expect(started).toEqual({ text: "value: 'started'", isError: false });
    await appears(tmp, "attacking");
    fs.rmdirSync(path.join(cwd, ".mcp.json"));
    // the supervisor's watch sees the lost mount and ends the sandbox, stopped processes and all
    const [pid] = session.sandbox.livePids!();
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        try {
          process.kill(pid!, 0);
        } catch {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    // Nothing written there: gone, or an empty directory (the mount point a sandbox makes for a missing path). What a
    // failure found is in its message: a file's content says which attacker wrote it.
    const mcp = path.join(cwd, ".mcp.json");
    const found = fs.lstatSync(mcp, { throwIfNoEntry: false });
    expect(stillProtected(mcp), found ? (found.isDirectory() ? `a directory holding ${JSON.stringify(fs.readdirSync(mcp))}` : `a file: ${fs.readFileSync(mcp, "utf8")}`) : "").toBe(true);
    const next = await repl(session, "'child' in globals()");
    expect(next.text).toContain("This is a new Python process");
    expect(next.text).toContain(STATE_LOST);
    expect(next.text).toContain("value: False");
    expect(stillProtected(path.join(cwd, ".mcp.json"))).toBe(true);
  });

  it("a Bash command that may write, run while the interpreter lives, leaves git clean and the state kept", async () => {
    const { session, cwd } = await project("acceptEdits");
    // in acceptEdits its sandbox may write the project; the missing safety paths it protects are the interpreter's directories already
    const bash = await callTool(session, "Bash", { command: "echo made > made.txt" });
    expect(bash.isError, bash.text).toBe(false);
    expect(fs.readFileSync(path.join(cwd, "made.txt"), "utf8")).toBe("made\n");
    expect(git(cwd, "status", "--porcelain")).toBe("?? made.txt\n");
    expect(stillProtected(path.join(cwd, ".mcp.json"))).toBe(true);
    expect(await repl(session, "x")).toEqual({ text: "value: 'kept'", isError: false });
  });

  it("what an interpreter that exited left running does not keep its sandbox: the next call ends both", async () => {
    const { session } = await project();
    const [first] = session.sandbox.livePids!();
    const died = await repl(session, "import os, subprocess\nsubprocess.Popen(['sleep', '300'])\nos._exit(3)");
    expect(died.text).toContain("exited with code 3");
    const next = await repl(session, "'x' in globals()");
    expect(next.text).toContain("value: False");
    expect(session.sandbox.livePids!()).not.toContain(first);
    expect(() => process.kill(first!, 0)).toThrow();
  });

  it("during a call: the sandbox that lost a mount ends the running code; the next call says the state is gone and works", async () => {
    const { session, cwd } = await project();
    const tmp = session.sandbox.tempDir!;
    const running = repl(session, "import os, time\nopen(os.environ['TMPDIR'] + '/running', 'w').close()\nwhile True:\n    time.sleep(0.01)");
    await appears(tmp, "running");
    fs.rmdirSync(path.join(cwd, ".mcp.json"));
    const ended = await running;
    expect(ended.isError).toBe(true);
    expect(ended.text).toContain("was stopped with its sandbox");
    expect(ended.text).toContain("lost its mount");
    expect(ended.text).toContain(STATE_LOST);
    const next = await repl(session, "open('.mcp.json', 'w')");
    expect(next.isError).toBe(true);
    expect(next.text).toContain("This is a new Python process");
    expect(stillProtected(path.join(cwd, ".mcp.json"))).toBe(true);
    expect(await repl(session, "1 + 1")).toEqual({ text: "value: 2", isError: false });
  });
});
