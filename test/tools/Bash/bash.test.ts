/** The Bash tool on real processes, driven through runToolUse / runTools. */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BashTool } from "../../../src/tools/Bash/index.js";
import { TaskOutputTool } from "../../../src/tools/TaskOutput/index.js";
import { TaskStopTool } from "../../../src/tools/TaskStop/index.js";
import { runToolsToMessage } from "../../../src/core/executor/index.js";
import type { ToolUseContext } from "../../../src/core/Tool.js";
import type { ToolUseBlock } from "../../../src/core/messages.js";
import { hasPermissionsToUseTool, createNonInteractiveCanUseTool } from "../../../src/permissions/index.js";
import { approveAll, assistantMessage, rejectAll, tempDir, testContext } from "../../helpers.js";
import { isRunning, permissionContext, readPids, runTool, waitFor, write } from "./helpers.js";

const tools = [BashTool, TaskOutputTool, TaskStopTool];
const contexts: ToolUseContext[] = [];

function session(cwd = tempDir("toolgate-bash-")): ToolUseContext {
  const context = testContext({ tools, cwd });
  contexts.push(context);
  return context;
}

afterAll(async () => {
  await Promise.all(contexts.map((c) => c.tasks.stopAll()));
});

const bash = (context: ToolUseContext, input: Record<string, unknown>) => runTool(context, "Bash", input, approveAll);

describe("Bash: output and environment", () => {
  it("merges stdout and stderr in the order they were written", async () => {
    const { text, result } = await bash(session(), { command: "echo one; echo two >&2; echo three; echo four >&2" });
    expect(result.block.is_error).toBeFalsy();
    expect(text).toBe("one\ntwo\nthree\nfour");
  });

  it("runs non-interactively: stdin is empty, pagers and editors return at once", async () => {
    const { text } = await bash(session(), { command: 'echo "$PAGER $GIT_PAGER $GIT_EDITOR"; read line; echo "read=$?"; cat; echo end' });
    expect(text).toBe("cat cat true\nread=1\nend");
  });

  it("saves long output to a file and shows a short preview of both ends, in Claude Code's persisted-output shape", async () => {
    const context = session();
    const { text, result } = await bash(context, { command: "seq 1 200000" });
    expect(result.block.is_error).toBeFalsy();
    expect(text.startsWith("<persisted-output>\nThe output is too long to show here (")).toBe(true);
    expect(text).toContain("\n\nFirst lines:\n1\n2\n3\n");
    expect(text.endsWith("199999\n200000\n</persisted-output>")).toBe(true);
    expect(text.length).toBeLessThan(3_500);
    const match = /\(([\d.]+ [KMG]?B), (\d+) lines\); all of it is saved in (\S+): Read that file/.exec(text);
    expect(match).not.toBeNull();
    const file = (match as RegExpExecArray)[3];
    const full = fs.readFileSync(file, "utf8");
    expect(full.split("\n").filter(Boolean)).toHaveLength(200000);
    expect(Number((match as RegExpExecArray)[2])).toBe(200000);
    expect(file.startsWith(context.paths.sessionDir + path.sep)).toBe(true);
  });

  it("streams progress with the latest lines while the command runs", async () => {
    const { progress, text } = await bash(session(), { command: "echo started; sleep 1.5; echo finished" });
    expect(text).toBe("started\nfinished");
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ type: "bash_progress", output: "started" });
  });

  it("keeps memory bounded on huge output and persists all of it", async () => {
    const context = session();
    const size = 512 * 1024 * 1024;
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const { text, result } = await bash(context, { command: `yes 0123456789abcdef | head -c ${size}`, timeout: 300_000 });
    clearInterval(sampler);
    expect(result.block.is_error).toBeFalsy();
    expect(text.length).toBeLessThan(3_500);
    expect(text).toContain("First lines:\n0123456789abcdef\n");
    const file = /saved in (\S+): Read/.exec(text)?.[1] as string;
    expect(fs.statSync(file).size).toBe(size);
    // a copy of the output in memory would add at least 512 MB
    expect(peak - baseline).toBeLessThan(200 * 1024 * 1024);
    fs.rmSync(file);
  }, 300_000);
});

describe("Bash: exit codes", () => {
  const cases: Array<{ command: string; isError: boolean; text: RegExp }> = [
    { command: "exit 3", isError: true, text: /^Exit code 3$/ },
    { command: "false", isError: true, text: /^Exit code 1$/ },
    { command: "echo out; ls /nonexistent-toolgate", isError: true, text: /^Exit code 2\nout\nls: cannot access/ },
    { command: "grep needle /dev/null", isError: false, text: /^\(exit code 1: no matches were found\)$/ },
    { command: "echo x | grep -q needle", isError: false, text: /no matches/ },
    { command: "timeout 5 grep needle /dev/null", isError: false, text: /no matches/ },
    { command: "test -f /nonexistent-toolgate", isError: false, text: /condition is false/ },
    { command: "[ 1 = 2 ]", isError: false, text: /condition is false/ },
    { command: "[[ a == b ]]", isError: false, text: /condition is false/ },
    { command: "diff <(echo a) <(echo b)", isError: false, text: /inputs differ/ },
    { command: "find /nonexistent-toolgate", isError: false, text: /find could not read/ },
    { command: "grep needle /dev/null | cat", isError: false, text: /^$/ },
    { command: "grep needle /dev/null; false", isError: true, text: /^Exit code 1$/ },
    { command: "! grep -q x <<< x", isError: true, text: /^Exit code 1$/ },
    { command: "grep -r needle /nonexistent-toolgate", isError: true, text: /^Exit code 2/ },
    { command: "sh -c 'kill -9 $$'", isError: true, text: /^Exit code 137\n[\s\S]*killed by SIGKILL/ },
  ];
  it.each(cases)("$command", async ({ command, isError, text }) => {
    const { result, text: content } = await bash(session(), { command });
    expect(Boolean(result.block.is_error)).toBe(isError);
    expect(content.replace(/^\(Bash completed with no output\)$/, "")).toMatch(text);
  });

  it("says which signal killed the shell itself", async () => {
    const { result, text } = await bash(session(), { command: "kill -9 $$" });
    expect(result.block.is_error).toBe(true);
    expect(text).toMatch(/killed by SIGKILL/);
  });
});

describe("Bash: working directory", () => {
  it("persists cd across calls and resets it when it leaves the working directories", async () => {
    const root = tempDir("toolgate-bash-cwd-");
    fs.mkdirSync(path.join(root, "sub", "deeper"), { recursive: true });
    const context = session(root);
    expect((await bash(context, { command: "cd sub" })).result.block.is_error).toBeFalsy();
    expect((await bash(context, { command: "pwd" })).text).toBe(path.join(root, "sub"));
    expect((await bash(context, { command: "cd deeper && pwd" })).text).toBe(path.join(root, "sub", "deeper"));
    expect(context.getCwd()).toBe(path.join(root, "sub", "deeper"));
    const left = await bash(context, { command: "cd / && echo moved" });
    expect(left.text).toContain("moved");
    expect(left.text).toContain(`reset to ${root}`);
    expect(context.getCwd()).toBe(root);
    expect((await bash(context, { command: "pwd" })).text).toBe(root);
  });

  it("starts in the project root when the shell's directory was removed", async () => {
    const root = tempDir("toolgate-bash-gone-");
    const context = session(root);
    await bash(context, { command: "mkdir gone && cd gone" });
    expect(context.getCwd()).toBe(path.join(root, "gone"));
    fs.rmdirSync(path.join(root, "gone"));
    const { text } = await bash(context, { command: "pwd" });
    expect(text).toContain("no longer exists");
    expect(text).toContain(root);
    expect(context.getCwd()).toBe(root);
  });
});

describe("Bash: stopping process trees", () => {
  const spawnTree = (pidFile: string, trapTerm = false) =>
    [
      trapTerm ? "trap '' TERM;" : "",
      `sh -c 'sleep 60 & echo $! >> ${pidFile}; sleep 60 & echo $! >> ${pidFile}; wait' &`,
      `echo $! >> ${pidFile};`,
      `setsid sleep 60 & echo $! >> ${pidFile};`,
      "wait",
    ].join(" ");

  it("a timeout kills the command and its grandchildren, also those in a new session", async () => {
    const dir = tempDir("toolgate-bash-tree-");
    const pidFile = path.join(dir, "pids");
    const context = session(dir);
    const run = bash(context, { command: spawnTree(pidFile), timeout: 1_500 });
    const pids = await readPids(pidFile, 4);
    expect(pids.every(isRunning)).toBe(true);
    const { result, text } = await run;
    expect(result.block.is_error).toBe(true);
    expect(text).toMatch(/timed out after 1\.5s/);
    expect(await waitFor(() => pids.every((pid) => !isRunning(pid)))).toBe(true);
  });

  it("escalates to SIGKILL for processes that ignore SIGTERM", async () => {
    const dir = tempDir("toolgate-bash-term-");
    const pidFile = path.join(dir, "pids");
    const run = bash(session(dir), { command: spawnTree(pidFile, true), timeout: 1_000 });
    const pids = await readPids(pidFile, 4);
    const { text } = await run;
    expect(text).toMatch(/timed out/);
    expect(await waitFor(() => pids.every((pid) => !isRunning(pid)))).toBe(true);
  });

  it("an abort kills the tree and the call is reported as cancelled", async () => {
    const dir = tempDir("toolgate-bash-abort-");
    const pidFile = path.join(dir, "pids");
    const context = session(dir);
    const run = bash(context, { command: spawnTree(pidFile) });
    const pids = await readPids(pidFile, 4);
    context.abortController.abort();
    const { result } = await run;
    expect(result.outcome).toBe("cancelled");
    expect(await waitFor(() => pids.every((pid) => !isRunning(pid)))).toBe(true);
  });

  it("stops processes a finished command left behind in its group, and says so", async () => {
    const dir = tempDir("toolgate-bash-left-");
    const pidFile = path.join(dir, "pids");
    const { text, result } = await bash(session(dir), { command: `sleep 60 & echo $! > ${pidFile}; echo done` });
    expect(result.block.is_error).toBeFalsy();
    expect(text).toContain("done");
    expect(text).toContain("left running in the background were stopped");
    const [pid] = await readPids(pidFile, 1);
    expect(await waitFor(() => !isRunning(pid))).toBe(true);
  });
});

describe("Bash: background tasks", () => {
  it("returns at once with a task id and output file; TaskOutput reads it without and with blocking", async () => {
    const context = session();
    const started = await bash(context, { command: "echo one; sleep 1; echo two", run_in_background: true });
    const id = /task id (\S+)\./.exec(started.text)?.[1] as string;
    expect(id).toBeTruthy();
    const task = context.tasks.get(id);
    expect(task?.status()).toBe("running");
    expect(started.text).toContain(task?.outputFile);
    expect(started.text).toContain("Files this background command changes from now on are not checkpointed: rewind cannot undo them.");

    const peek = await runTool(context, "TaskOutput", { task_id: id, block: false }, approveAll);
    expect(peek.text).toMatch(/is running/);

    const waited = await runTool(context, "TaskOutput", { task_id: id }, approveAll);
    expect(waited.text).toMatch(/has completed \(exit code 0\)/);
    expect(waited.text).toMatch(/Output:\none\ntwo$/);
    expect(fs.readFileSync(task?.outputFile as string, "utf8")).toBe("one\ntwo\n");
  });

  it("TaskOutput gives up after its timeout; TaskStop stops the tree; stopAll ends the rest", async () => {
    const dir = tempDir("toolgate-bash-bg-");
    const context = session(dir);
    const pidFile = path.join(dir, "pids");
    const first = await bash(context, { command: `sh -c 'sleep 60 & echo $! >> ${pidFile}; wait'`, run_in_background: true });
    const id = /task id (\S+)\./.exec(first.text)?.[1] as string;
    const [grandchild] = await readPids(pidFile, 1);

    const waited = await runTool(context, "TaskOutput", { task_id: id, timeout: 200 }, approveAll);
    expect(waited.text).toMatch(/still running/);

    const stop = await runTool(context, "KillShell", { task_id: id }, approveAll);
    expect(stop.text).toMatch(/^Stopped task/);
    expect(isRunning(grandchild)).toBe(false);
    expect((await runTool(context, "BashOutput", { task_id: id }, approveAll)).text).toMatch(/was stopped/);
    expect((await runTool(context, "TaskStop", { task_id: id }, approveAll)).text).toMatch(/was not running/);

    const second = await bash(context, { command: `sleep 60 & echo $! >> ${pidFile}; wait`, run_in_background: true });
    const secondId = /task id (\S+)\./.exec(second.text)?.[1] as string;
    const pids = await readPids(pidFile, 2);
    await context.tasks.stopAll();
    expect(context.tasks.get(secondId)?.status()).toBe("killed");
    expect(await waitFor(() => !isRunning(pids[1]))).toBe(true);
  });

  it("rejects unknown task ids with the known ones", async () => {
    const context = session();
    const { result, text } = await runTool(context, "TaskOutput", { task_id: "nope" }, approveAll);
    expect(result.block.is_error).toBe(true);
    expect(text).toMatch(/No background task has the id nope/);
    expect((await runTool(context, "TaskStop", { task_id: "nope" }, approveAll)).result.outcome).toBe("invalid_input");
  });
});

describe("Bash: read-only and concurrency", () => {
  const cases: Array<[string, boolean, boolean]> = [
    ["ls -la", true, true],
    ["git status && git diff", true, true],
    ["cat a | grep b | wc -l", true, true],
    ["echo hi > out.txt", false, false],
    ["echo hi > /dev/null", true, true],
    ["cd src", true, false],
    ["npm test", false, false],
    ["find . -exec rm {} ;", false, false],
    ["ls $(rm x)", false, false],
    ["echo 'unterminated", false, false],
    ["GIT_EXTERNAL_DIFF=x git diff", false, false],
  ];
  it.each(cases)("%s → read-only %s, concurrency-safe %s", (command, readOnly, safe) => {
    expect(BashTool.isReadOnly({ command })).toBe(readOnly);
    expect(BashTool.isConcurrencySafe({ command })).toBe(safe);
  });

  it("a background command is never batched", () => {
    expect(BashTool.isConcurrencySafe({ command: "ls", run_in_background: true })).toBe(false);
  });
});

describe("Bash: permissions through the pipeline", () => {
  function engineSession(cwd: string, rules: Parameters<typeof permissionContext>[1]) {
    const context = testContext({ tools, cwd, permissionContext: permissionContext(cwd, rules), permissionDecider: hasPermissionsToUseTool });
    contexts.push(context);
    return context;
  }

  it("denies a command with a denied part and never runs any of it", async () => {
    const cwd = tempDir("toolgate-bash-perm-");
    const victim = write(cwd, "victim.txt", "x");
    const context = engineSession(cwd, { allow: ["Bash(echo:*)"], deny: ["Bash(rm:*)"] });
    const { result, text } = await runTool(context, "Bash", { command: "echo hi > marker; echo $(rm victim.txt)" }, approveAll);
    expect(result.outcome).toBe("denied");
    expect(text).toMatch(/rm victim\.txt/);
    expect(text).toMatch(/Bash\(rm:\*\)/);
    expect(fs.existsSync(victim)).toBe(true);
    expect(fs.existsSync(path.join(cwd, "marker"))).toBe(false);
  });

  it("runs read-only commands inside the project without asking, asks for the rest", async () => {
    const cwd = tempDir("toolgate-bash-perm-");
    write(cwd, "README.md", "hello\n");
    const context = engineSession(cwd, {});
    let asked = 0;
    const counting: typeof approveAll = async (...args) => {
      asked++;
      return rejectAll(...args);
    };
    const read = await runTool(context, "Bash", { command: "cat README.md | wc -l" }, counting);
    expect(read.text).toBe("1");
    expect(asked).toBe(0);
    const install = await runTool(context, "Bash", { command: "touch made-by-bash" }, counting);
    expect(asked).toBe(1);
    expect(install.result.outcome).toBe("denied");
    expect(fs.existsSync(path.join(cwd, "made-by-bash"))).toBe(false);
  });

  it("a non-interactive session is told which rule would allow the command", async () => {
    const cwd = tempDir("toolgate-bash-perm-");
    const context = engineSession(cwd, {});
    const { result, text } = await runTool(context, "Bash", { command: "npm run build --silent" }, createNonInteractiveCanUseTool());
    expect(result.outcome).toBe("denied");
    expect(text).toContain("Bash(npm run build:*)");
  });
});

describe("Bash: sibling cancellation in a parallel batch", () => {
  it("a failing Bash call cancels the running sibling and names itself", async () => {
    const context = session();
    const marker = `7.${process.pid % 1000}`;
    const uses: ToolUseBlock[] = [
      { type: "tool_use", id: "slow", name: "Bash", input: { command: `sleep ${marker}; ls` } },
      { type: "tool_use", id: "fails", name: "Bash", input: { command: "ls /nonexistent-toolgate" } },
    ];
    expect(uses.every((u) => BashTool.isConcurrencySafe(u.input as { command: string }))).toBe(true);
    const sleeping = () =>
      fs
        .readdirSync("/proc")
        .filter((e) => /^\d+$/.test(e))
        .some((e) => {
          try {
            return fs.readFileSync(`/proc/${e}/cmdline`, "utf8") === `sleep\0${marker}\0` && isRunning(Number(e));
          } catch {
            return false;
          }
        });
    const { message, results } = await runToolsToMessage(uses, assistantMessage(), approveAll, context);
    const [slow, failed] = results;
    expect(failed.block.is_error).toBe(true);
    expect(slow.outcome).toBe("cancelled");
    expect(String(slow.block.content)).toContain("Bash(ls /nonexistent-toolgate) failed");
    expect(message.content).toHaveLength(2);
    expect(await waitFor(() => !sleeping())).toBe(true);
  });
});
