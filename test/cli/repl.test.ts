/**
 * The REPL tool through the real `toolgate` CLI: `exec` lines share one Python process, the sandbox holds its
 * writes, the process is gone when the CLI exits, and the tool is not offered without python3 on PATH.
 */
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { checkSandboxSupport } from "../../src/sandbox/index.js";
import { findPython3 } from "../../src/tools/REPL/index.js";
import { tempDir } from "../helpers.js";
import { cliArgs, cliEnv } from "../cliCommand.js";
import { agentEnv, project, runCli, serveModel } from "./agentRun.js";

const python = findPython3(process.env);
const support = checkSandboxSupport();
const bwrapRuns = support.available && spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"]).status === 0;

function isolatedEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = tempDir("tg-repl-cli-home-");
  return { ...process.env, ...cliEnv, TOOLGATE_HOME: home, HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"), ...extra };
}

/** Run `toolgate exec` with these lines on stdin until it exits; the parsed result lines. */
function exec(lines: object[], options: { cwd: string; env: NodeJS.ProcessEnv; args?: string[] }): Promise<{ results: { text: string; isError: boolean }[]; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliArgs, "exec", "--cwd", options.cwd, ...(options.args ?? [])], { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const results = stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const block = (JSON.parse(line) as { content: { content: string; is_error?: boolean }[] }).content[0];
          return { text: block.content, isError: block.is_error === true };
        });
      resolve({ results, code, stderr });
    });
    child.stdin.end(lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  });
}

let counter = 0;
const call = (code: string, extra: Record<string, unknown> = {}) => ({ type: "tool_use", id: `toolu_${++counter}`, name: "REPL", input: { code, ...extra } });

/** Live processes whose environment holds the marker (the Python process inherits the CLI's environment). */
function processesWithMarker(marker: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return fs.readFileSync(`/proc/${entry}/environ`, "latin1").includes(`TG_REPL_MARKER=${marker}`) && !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${entry}/stat`, "latin1"));
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.skipIf(!python)("REPL through toolgate exec", () => {
  it("keeps state across lines, restarts with a notice after ignored interrupts, and leaves no process behind", async () => {
    const marker = randomUUID();
    const cwd = tempDir("tg-repl-cli-");
    const { results, code } = await exec(
      [
        call("x = 20\nx * 2"),
        call("import os\nos.environ.get('TG_REPL_MARKER') == " + JSON.stringify(marker)),
        call("x + 1"),
        call("import time\nwhile True:\n    time.sleep(0.05)", { timeout: 200 }),
        call("x + 2"),
        call("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.05)", { timeout: 200 }),
        call("'x' in globals()"),
      ],
      { cwd, env: isolatedEnv({ TG_REPL_MARKER: marker }), args: ["--allowedTools", "REPL"] },
    );
    expect(code).toBe(0);
    expect(results.map((r) => r.text)).toEqual([
      "value: 40",
      "value: True",
      "value: 21",
      expect.stringContaining("stopped with KeyboardInterrupt; the interpreter and its state are kept"),
      "value: 22",
      expect.stringContaining("did not stop on KeyboardInterrupt"),
      "This is a new Python process: the previous one was killed. Variables, imports and definitions from earlier calls are gone.\nvalue: False",
    ]);
    expect(results[5].isError).toBe(true);
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it("leaves no process behind when the CLI is stopped by a signal mid-session", async () => {
    const marker = randomUUID();
    const cwd = tempDir("tg-repl-cli-");
    const child = spawn(process.execPath, [...cliArgs, "exec", "--cwd", cwd, "--allowedTools", "REPL"], { cwd, env: isolatedEnv({ TG_REPL_MARKER: marker }), stdio: ["pipe", "pipe", "pipe"] });
    const firstLine = new Promise<string>((resolve) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d;
        if (out.includes("\n")) resolve(out);
      });
    });
    child.stdin.write(`${JSON.stringify(call("import subprocess\nchild = subprocess.Popen(['sleep', '300'])\n'started'"))}\n`);
    expect(await firstLine).toContain("value: 'started'");
    expect(processesWithMarker(marker).length).toBeGreaterThan(0);
    const closed = new Promise((resolve) => child.on("close", resolve));
    child.kill("SIGTERM");
    await closed;
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it("the agent (-p) is offered REPL, and its calls share one interpreter", async () => {
    const dir = project();
    const server = await serveModel({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_1", name: "REPL", input: { code: "total = sum(range(10))" } }] },
        { content: [{ type: "tool_use", id: "toolu_2", name: "REPL", input: { code: "total * 2" } }] },
        { content: [{ type: "text", text: "The answer is 90." }] },
      ],
    });
    const result = await runCli(["-p", "compute", "--cwd", dir, "--allowedTools", "REPL"], agentEnv(server, dir));
    expect(result.stdout.trim()).toBe("The answer is 90.");
    expect(result.code).toBe(0);
    const requests = server.requests();
    expect((requests[0].body.tools as { name: string }[]).map((t) => t.name)).toContain("REPL");
    expect(requests[2].body.messages.at(-1).content[0].content).toBe("value: 90");
  });

  it("is denied without a REPL rule, since nobody can be asked", async () => {
    const cwd = tempDir("tg-repl-cli-");
    const { results } = await exec([call("1")], { cwd, env: isolatedEnv() });
    expect(results).toEqual([{ isError: true, text: expect.stringContaining('--allowedTools "REPL"') }]);
  });

  it.skipIf(!bwrapRuns)("runs in the sandbox: writes inside the project, not outside it", async () => {
    const cwd = tempDir("tg-repl-cli-");
    const outside = path.join(tempDir("tg-repl-cli-outside-"), "escaped.txt");
    const { results } = await exec(
      [call("open('made.txt', 'w').write('inside')"), call(`open(${JSON.stringify(outside)}, 'w').write('outside')`)],
      { cwd, env: isolatedEnv(), args: ["--allowedTools", "REPL"] },
    );
    expect(results[0]).toEqual({ text: "value: 6", isError: false });
    expect(fs.readFileSync(path.join(cwd, "made.txt"), "utf8")).toBe("inside");
    expect(results[1].isError).toBe(true);
    expect(results[1].text).toMatch(/Read-only file system|Permission denied/);
    expect(fs.existsSync(outside)).toBe(false);
  });

  it("is not offered when python3 is not on PATH", async () => {
    const cwd = tempDir("tg-repl-cli-");
    const emptyBin = tempDir("tg-repl-nopython-");
    const listing = (env: NodeJS.ProcessEnv) => {
      const out = spawnSync(process.execPath, [...cliArgs, "tools", "--json", "--cwd", cwd], { cwd, env, encoding: "utf8" });
      expect(out.status).toBe(0);
      return (JSON.parse(out.stdout) as { name: string }[]).map((t) => t.name);
    };
    expect(listing(isolatedEnv())).toContain("REPL");
    expect(listing(isolatedEnv({ PATH: emptyBin }))).not.toContain("REPL");
    const { results } = await exec([call("1")], { cwd, env: isolatedEnv({ PATH: emptyBin }), args: ["--allowedTools", "REPL"] });
    expect(results).toHaveLength(1);
    expect(results[0].isError).toBe(true);
  });
});
