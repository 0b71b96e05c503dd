/**
 * toolgate ended by a signal (SIGHUP when the terminal closes or ssh drops, SIGTERM from a supervisor) leaves
 * no process behind: the real CLI runs real commands and hooks that start background, double-forked and
 * setsid children; each child carries a unique `sleep` duration as its marker in the process list.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { tempDir } from "../helpers.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cliEntry = path.join(repoRoot, "src/cli/main.ts");

// The CLI runs from source through tsx here: on a busy machine its cold start alone took over 20 s (a CI run
// failed so). The wait still ends the moment the processes appear; the deadline is only how long to hope.
const START_DEADLINE_MS = 60_000;
vi.setConfig({ testTimeout: 90_000 });

/** A sleep duration no other process on the machine uses: the marker of one child. */
let nextMarker = 700_000 + Math.floor(Math.random() * 90_000) * 10;
const marker = () => String(++nextMarker);

/** Live (not zombie) processes whose command line contains `sleep <marker>`, by marker. */
function liveMarkers(markers: readonly string[]): string[] {
  const found = new Set<string>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue;
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      const at = args.indexOf("sleep");
      if (at >= 0 && markers.includes(args[at + 1])) found.add(args[at + 1]);
    } catch {
      // exited while we looked
    }
  }
  return [...found].sort();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(check: () => boolean, deadlineMs: number): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) return false;
    await sleep(50);
  }
  return true;
}

const started: ChildProcess[] = [];
const allMarkers: string[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  // whatever a failed test left behind, by the markers it used
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (args[0] === "sleep" && allMarkers.includes(args[1])) process.kill(Number(entry), "SIGKILL");
    } catch {
      // gone
    }
  }
});

/** The real CLI with stdin left open (as a terminal would), fed `lines`. */
function startToolgate(args: string[], lines: unknown[]): { child: ChildProcess; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const home = tempDir("tg-sig-home-");
  const child = spawn(process.execPath, ["--import", "tsx", cliEntry, ...args], {
    cwd: repoRoot,
    env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
    stdio: ["pipe", "ignore", "ignore"],
  });
  started.push(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  for (const line of lines) child.stdin?.write(`${JSON.stringify(line)}\n`);
  return { child, exited };
}

const bash = (id: string, command: string, extra: Record<string, unknown> = {}) => ({ type: "tool_use", id, name: "Bash", input: { command, ...extra } });

/**
 * Children of every kind a command can leave: in its group, double-forked (re-parented), in a session of
 * its own, and a daemon (a session of its own and re-parented at once: outside the group and the tree).
 */
function childrenScript(markers: string[]): string {
  const [inGroup, doubleForked, ownSession, daemon] = markers;
  return `sleep ${inGroup} & (sleep ${doubleForked} &); setsid sleep ${ownSession} & setsid -f sleep ${daemon};`;
}
const CHILD_KINDS = 4;
/** The children's markers and one for the command's own last, blocking `sleep`. */
const markersFor = () => Array.from({ length: CHILD_KINDS + 1 }, marker);

describe.each(["SIGHUP", "SIGTERM"] as const)("toolgate exec ended by %s", (signal) => {
  it("stops the running command, background tasks and their children", async () => {
    const cwd = tempDir("tg-sig-cwd-");
    const background = markersFor();
    const foreground = markersFor();
    const markers = [...background, ...foreground];
    allMarkers.push(...markers);
    const { child, exited } = startToolgate(["exec", "--cwd", cwd, "--allowedTools", "Bash"], [
      bash("bg", `${childrenScript(background)} sleep ${background[CHILD_KINDS]}`, { run_in_background: true }),
      bash("fg", `${childrenScript(foreground)} sleep ${foreground[CHILD_KINDS]}`),
    ]);

    expect(await waitUntil(() => liveMarkers(markers).length === markers.length, START_DEADLINE_MS)).toBe(true);
    child.kill(signal);

    expect(await exited).toEqual({ code: signal === "SIGHUP" ? 129 : 143, signal: null });
    expect(await waitUntil(() => liveMarkers(markers).length === 0, 2_000)).toBe(true);
  });

  it("stops a running hook and the children it started", async () => {
    const cwd = tempDir("tg-sig-cwd-");
    const markers = markersFor();
    allMarkers.push(...markers);
    const hook = `${childrenScript(markers)} sleep ${markers[CHILD_KINDS]}; echo '{}'`;
    fs.mkdirSync(path.join(cwd, ".toolgate"));
    fs.writeFileSync(
      path.join(cwd, ".toolgate/settings.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook, timeout: 600 }] }] } }),
    );
    const { child, exited } = startToolgate(["exec", "--trust", "--cwd", cwd, "--allowedTools", "Bash"], [bash("b", "true")]);

    expect(await waitUntil(() => liveMarkers(markers).length === markers.length, START_DEADLINE_MS)).toBe(true);
    child.kill(signal);

    expect((await exited).code).toBe(signal === "SIGHUP" ? 129 : 143);
    expect(await waitUntil(() => liveMarkers(markers).length === 0, 2_000)).toBe(true);
  });
});

describe("toolgate exec ending normally (stdin closed)", () => {
  it("leaves no daemon behind that a command or a hook double-forked out of its tree", async () => {
    const cwd = tempDir("tg-sig-cwd-");
    const [fromCommand, fromHook] = [marker(), marker()];
    allMarkers.push(fromCommand, fromHook);
    fs.mkdirSync(path.join(cwd, ".toolgate"));
    fs.writeFileSync(
      path.join(cwd, ".toolgate/settings.json"),
      JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `setsid -f sleep ${fromHook}; echo '{}'` }] }] } }),
    );
    // Without the sandbox (whose pid namespace ends such a daemon with its command), a daemon outlives the
    // command that started it for as long as the session runs.
    const { child, exited } = startToolgate(["exec", "--trust", "--cwd", cwd, "--no-sandbox", "--allowedTools", "Bash"], [bash("d", `setsid -f sleep ${fromCommand}; echo started`)]);
    expect(await waitUntil(() => liveMarkers([fromCommand, fromHook]).length === 2, START_DEADLINE_MS)).toBe(true);
    child.stdin?.end();

    expect((await exited).code).toBe(0);
    expect(liveMarkers([fromCommand, fromHook])).toEqual([]);
  });
});

describe.each(["SIGHUP", "SIGTERM", "SIGINT"] as const)("toolgate mcp serve (stdio) ended by %s", (signal) => {
  it("closes the session and stops its commands, background tasks included", async () => {
    const cwd = tempDir("tg-sig-cwd-");
    const background = markersFor();
    const foreground = markersFor();
    const markers = [...background, ...foreground];
    allMarkers.push(...markers);
    const call = (id: number, args: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "Bash", arguments: args } });
    const { child, exited } = startToolgate(["mcp", "serve", "--cwd", cwd, "--allowedTools", "Bash"], [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "signals-test", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      call(2, { command: `${childrenScript(background)} sleep ${background[CHILD_KINDS]}`, run_in_background: true }),
      call(3, { command: `${childrenScript(foreground)} sleep ${foreground[CHILD_KINDS]}` }),
    ]);

    expect(await waitUntil(() => liveMarkers(markers).length === markers.length, START_DEADLINE_MS)).toBe(true);
    child.kill(signal);

    expect(await exited).toEqual({ code: { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 }[signal], signal: null });
    expect(await waitUntil(() => liveMarkers(markers).length === 0, 2_000)).toBe(true);
  });
});

describe("toolgate mcp serve --http ended by SIGHUP", () => {
  it("closes every session and stops its commands", async () => {
    const cwd = tempDir("tg-sig-cwd-");
    const markers = markersFor();
    allMarkers.push(...markers);
    const home = tempDir("tg-sig-home-");
    const child = spawn(process.execPath, ["--import", "tsx", cliEntry, "mcp", "serve", "--cwd", cwd, "--allowedTools", "Bash", "--http", "0"], {
      cwd: repoRoot,
      env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
      stdio: ["ignore", "ignore", "pipe"],
    });
    started.push(child);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let err = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        err += chunk.toString();
        const found = /listening on (\S+)/.exec(err);
        if (found) resolve(found[1]);
      });
      child.once("exit", (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    const client = new Client({ name: "signals-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await client.callTool({ name: "Bash", arguments: { command: `${childrenScript(markers)} sleep ${markers[CHILD_KINDS]}`, run_in_background: true } });

    expect(await waitUntil(() => liveMarkers(markers).length === markers.length, START_DEADLINE_MS)).toBe(true);
    child.kill("SIGHUP");

    expect(await exited).toBe(129);
    expect(await waitUntil(() => liveMarkers(markers).length === 0, 2_000)).toBe(true);
    await client.close().catch(() => undefined);
  });
});

const hasScript = spawnSync("script", ["--version"]).status === 0;

describe("toolgate exec on a terminal that closes", () => {
  it.skipIf(!hasScript)("ends with everything it started when the terminal goes away (script(1) killed, its pty closed)", async () => {
    const cwd = tempDir("tg-sig-cwd-");
    const markers = markersFor();
    allMarkers.push(...markers);
    const home = tempDir("tg-sig-home-");
    const command = [process.execPath, "--import", "tsx", cliEntry, "exec", "--cwd", cwd, "--allowedTools", "Bash"].map((a) => `'${a}'`).join(" ");
    const terminal = spawn("script", ["-qec", command, "/dev/null"], {
      cwd: repoRoot,
      env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
      stdio: ["pipe", "ignore", "ignore"],
    });
    started.push(terminal);
    terminal.stdin?.write(`${JSON.stringify(bash("t", `${childrenScript(markers)} sleep ${markers[CHILD_KINDS]}`))}\n`);

    expect(await waitUntil(() => liveMarkers(markers).length === markers.length, START_DEADLINE_MS)).toBe(true);
    terminal.kill("SIGKILL");

    expect(await waitUntil(() => liveMarkers(markers).length === 0, 5_000)).toBe(true);
  });
});
