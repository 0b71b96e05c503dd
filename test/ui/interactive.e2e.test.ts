/**
 * `toolgate` as a user runs it in a terminal: the real CLI in tmux (80×24) against the scripted model server,
 * keys sent one at a time after the first frame.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { FakeModelServer } from "../../scripts/fake-model.mjs";
import { closedAfterEach, hasTmux, Terminal } from "./tmux.js";
import { isRunning } from "../tools/Bash/helpers.js";
import { listSessions } from "../../src/agent/transcript.js";

// A start of the real CLI takes seconds on a loaded 2-core machine; every wait below polls the screen.
vi.setConfig({ testTimeout: 180_000 });

const { terminals, serve } = closedAfterEach();

function project(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-tui-")));
  fs.mkdirSync(path.join(dir, ".home"));
  return dir;
}

function open(dir: string, server: FakeModelServer, args: string[] = [], extraEnv: Record<string, string> = {}, stderrFile?: string): Terminal {
  const env = {
    ...extraEnv,
    TOOLGATE_HOME: path.join(dir, ".home"),
    HOME: path.join(dir, ".home"),
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: server.url,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    TERM: "xterm-256color",
  };
  const terminal = new Terminal(dir, env, ["--no-sandbox", ...args], { stderrFile });
  terminals.push(terminal);
  return terminal;
}

/** The first frame: the prompt is drawn and Ink reads keys from here on. */
const READY = "ask anything";

function transcriptLines(dir: string): Array<Record<string, any>> {
  const projects = path.join(dir, ".home", "projects");
  const files = fs.readdirSync(projects).flatMap((p) => fs.readdirSync(path.join(projects, p)).filter((f) => f.endsWith(".jsonl")).map((f) => path.join(projects, p, f)));
  return files.flatMap((f) => fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)));
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

if (!hasTmux) console.warn("tmux is not installed: the interactive UI terminal tests are skipped (apt-get install -y tmux)");

describe.skipIf(!hasTmux)("interactive UI in a real terminal", () => {
  it("asks before git push; 'don't ask again for this project' saves Bash(git push:*) and the next push runs without asking", async () => {
    const dir = project();
    const remote = path.join(dir, ".home", "remote.git");
    git(dir, "init", "-q", "--bare", remote);
    git(dir, "init", "-q");
    fs.writeFileSync(path.join(dir, "a.txt"), "one\n");
    git(dir, "add", "a.txt");
    git(dir, "commit", "-qm", "one");
    git(dir, "remote", "add", "origin", remote);
    const server = await serve({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_push1", name: "Bash", input: { command: "git push origin main" } }] },
        { content: [{ type: "text", text: "First push done." }] },
        { content: [{ type: "tool_use", id: "toolu_push2", name: "Bash", input: { command: "git push origin main:second" } }] },
        { content: [{ type: "text", text: "Second push done." }] },
      ],
    });
    const t = open(dir, server);
    await t.waitFor(READY);
    await t.type("push it");
    await t.key("Enter");
    const dialog = await t.waitFor("Allow Bash?");
    expect(dialog).toContain("git push origin main");
    // The dialog wraps inside its border: read it without the border and line breaks.
    const flat = dialog.replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");
    expect(flat).toContain("3. Yes, and don't ask again for `Bash(git push:*)` (only commands that start with `git push`) in this project, for you only (.toolgate/settings.local.json)");
    await t.key("3");
    await t.waitFor("First push done.", { all: true });
    const local = JSON.parse(fs.readFileSync(path.join(dir, ".toolgate/settings.local.json"), "utf8"));
    expect(local.permissions.allow).toEqual(["Bash(git push:*)"]);
    expect(git(remote, "branch", "--list")).toContain("main");

    await t.waitFor(READY);
    await t.type("again");
    await t.key("Enter");
    // Had it asked, no one would answer and this would never show.
    await t.waitFor("Second push done.", { all: true });
    expect(git(remote, "branch", "--list")).toContain("second");
    const results = server.requests().flatMap((r) => r.body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === "tool_result"));
    expect(results.find((b: any) => b.tool_use_id === "toolu_push2")?.is_error).toBeFalsy();
  });

  it("Esc during sleep 30 brings the prompt back, and the transcript has the interrupted call's tool_result", async () => {
    const dir = project();
    const server = await serve({
      turns: [{ content: [{ type: "text", text: "Sleeping now." }, { type: "tool_use", id: "toolu_sleep", name: "Bash", input: { command: "sleep 30" } }] }],
    });
    const t = open(dir, server, ["--allowedTools", "Bash(sleep:*)"]);
    await t.waitFor(READY);
    await t.type("sleep");
    await t.key("Enter");
    await t.waitFor("esc to interrupt");
    // The call is running once the status board says so: the mark of a queued call is replaced by progress.
    await t.waitFor(/sleep 30/);
    const pid = await waitForProcess("sleep 30", dir);
    expect(pid).toBeGreaterThan(0);
    const pressed = Date.now();
    await t.key("Escape");
    await t.waitFor(READY);
    const promptBack = Date.now() - pressed;
    await t.waitFor("Interrupted", { all: true });
    const loopDone = Date.now() - pressed;
    console.log(`[measure] Esc during sleep 30: prompt back after ${promptBack} ms, the loop ended (tool_result in) after ${loopDone} ms (both include the 150 ms pause after the key)`);
    // The sleep was stopped, not left running.
    expect(isRunning(pid)).toBe(false);
    const lines = transcriptLines(dir);
    const result = lines.flatMap((l) => (l.type === "message" && Array.isArray(l.message.content) ? l.message.content : [])).find((b: any) => b.type === "tool_result" && b.tool_use_id === "toolu_sleep");
    expect(result).toBeDefined();
    expect(result.is_error).toBe(true);
    expect(lines.some((l) => l.type === "result" && l.reason === "aborted")).toBe(true);
  });

  it("closing the terminal during sleep 30 stops the sleep, and the CLI ends without an error or a Node assertion", async () => {
    const dir = project();
    const stderrFile = path.join(dir, "stderr.txt");
    const server = await serve({ turns: [{ content: [{ type: "tool_use", id: "toolu_sleep", name: "Bash", input: { command: "sleep 30" } }] }] });
    const t = open(dir, server, ["--allowedTools", "Bash(sleep:*)"], {}, stderrFile);
    await t.waitFor(READY);
    await t.type("sleep");
    await t.key("Enter");
    const sleepPid = await waitForProcess("sleep 30", dir);
    // the CLI: the ancestor of the sleep that was started with our flags
    let cliPid = sleepPid;
    while (cliPid > 1 && !fs.readFileSync(`/proc/${cliPid}/cmdline`, "utf8").includes("Bash(sleep:*)")) cliPid = Number(fs.readFileSync(`/proc/${cliPid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ")[1]);
    expect(cliPid).toBeGreaterThan(1);
    t.close();
    const deadline = Date.now() + 60_000;
    while ((isRunning(cliPid) || isRunning(sleepPid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(isRunning(cliPid)).toBe(false);
    expect(isRunning(sleepPid)).toBe(false);
    const stderr = fs.readFileSync(stderrFile, "utf8");
    expect(stderr).not.toContain("Assertion failed");
    expect(stderr).not.toContain("internal error");
  });

  it("toolgate exec reading from a terminal that closes also ends without Node's assertion", async () => {
    const dir = project();
    const stderrFile = path.join(dir, "stderr.txt");
    const env = { TOOLGATE_HOME: path.join(dir, ".home"), HOME: path.join(dir, ".home"), PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color" };
    const t = new Terminal(dir, env, ["exec", "--no-sandbox"], { stderrFile });
    terminals.push(t);
    // exec says on stderr that it reads calls from the terminal: it is waiting for input now
    await waitForFile(stderrFile);
    let pid = 0;
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
        if (cmdline.includes("exec\0--no-sandbox") && fs.readlinkSync(`/proc/${entry}/cwd`) === dir) pid = Number(entry);
      } catch {
        // exited meanwhile
      }
    }
    expect(pid).toBeGreaterThan(0);
    t.close();
    const deadline = Date.now() + 60_000;
    while (isRunning(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(isRunning(pid)).toBe(false);
    const stderr = fs.readFileSync(stderrFile, "utf8");
    expect(stderr).toContain("toolgate exec reads tool calls from stdin");
    expect(stderr).not.toContain("Assertion failed");
  });

  it("Ctrl+O shows a 200-line output whole", async () => {
    const dir = project();
    const server = await serve({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_seq", name: "Bash", input: { command: "seq 1 200" } }] },
        { content: [{ type: "text", text: "Listed them." }] },
      ],
    });
    const t = open(dir, server, ["--allowedTools", "Bash(seq:*)"]);
    await t.waitFor(READY);
    await t.type("count");
    await t.key("Enter");
    await t.waitFor("Listed them.", { all: true });
    const collapsed = t.all();
    expect(collapsed).toContain("ctrl+o");
    expect(collapsed).not.toMatch(/^\s*150\s*$/m);
    await t.key("C-o");
    const expanded = await t.waitFor(/^\s*200\s*$/m, { all: true });
    // the Bash renderer puts its result gutter (⎿) before the first line
    const numbers = expanded.split("\n").map((l) => l.replace(/^[\s⎿]+/, "").trim()).filter((l) => /^\d+$/.test(l)).map(Number);
    // Every line, in order, after the collapsed copy's first lines.
    const start = numbers.lastIndexOf(1);
    expect(numbers.slice(start)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });
});

describe.skipIf(!hasTmux)("rewind, modes and commands", () => {
  it("Esc Esc on an empty prompt rewinds: the conversation is cut before the picked prompt and the file restored", async () => {
    const dir = project();
    const file = path.join(dir, "notes.txt");
    const server = await serve({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_w1", name: "Write", input: { file_path: file, content: "version one\n" } }] },
        { content: [{ type: "text", text: "Wrote version one." }] },
        { content: [{ type: "tool_use", id: "toolu_w2", name: "Write", input: { file_path: file, content: "version two\n" } }] },
        { content: [{ type: "text", text: "Wrote version two." }] },
        { content: [{ type: "text", text: "Fresh start." }] },
      ],
    });
    const t = open(dir, server, ["--allowedTools", "Write"]);
    await t.waitFor(READY);
    await t.type("first");
    await t.key("Enter");
    await t.waitFor("Wrote version one.", { all: true });
    await t.type("second");
    await t.key("Enter");
    await t.waitFor("Wrote version two.", { all: true });
    expect(fs.readFileSync(file, "utf8")).toBe("version two\n");
    await t.waitFor(READY);
    await t.key("Escape");
    await t.key("Escape");
    await t.waitFor("Rewind:");
    // Newest prompt first: Enter picks "second".
    await t.key("Enter");
    await t.waitFor("rewound to before: second", { all: true });
    expect(fs.readFileSync(file, "utf8")).toBe("version one\n");
    // The prompt is given back to edit; sending it continues from the cut conversation.
    await t.waitFor("> second");
    await t.key("Enter");
    await t.waitFor("Fresh start.", { all: true });
    const last = server.requests().at(-1)!.body.messages as Array<{ role: string; content: any }>;
    const texts = last.flatMap((m) => (Array.isArray(m.content) ? m.content : [{ type: "text", text: m.content }])).filter((b: any) => b.type === "text").map((b: any) => b.text);
    expect(texts.filter((x: string) => x === "second")).toHaveLength(1);
    expect(texts).not.toContain("Wrote version two.");
  });

  it("!command runs in the project directory; its output is shown and goes to the model with the next prompt", async () => {
    const dir = project();
    fs.writeFileSync(path.join(dir, "marker.txt"), "");
    const server = await serve({ turns: [{ content: [{ type: "text", text: "Seen it." }] }] });
    const t = open(dir, server);
    await t.waitFor(READY);
    await t.type("!ls; echo done-$((6*7))");
    await t.key("Enter");
    await t.waitFor("done-42", { all: true });
    await t.waitFor("(exit 0)", { all: true });
    expect(server.requests()).toHaveLength(0);
    await t.type("what now");
    await t.key("Enter");
    await t.waitFor("Seen it.", { all: true });
    const sent = JSON.stringify(server.requests()[0]!.body.messages);
    expect(sent).toContain("marker.txt");
    expect(sent).toContain("done-42");
    expect(sent).toContain("what now");
    // The command's output is context for the model, not the person's words: the session list shows their prompt.
    expect(listSessions(path.join(dir, ".home"), dir)[0]!.lastPrompt).toBe("what now");
  });

  it("a prompt the model server refuses comes back into the input; sent again it goes once, not twice", async () => {
    const dir = project();
    const refusal = { type: "error", error: { type: "invalid_request_error", message: "the attached document could not be read" } };
    const server = await serve({ turns: [{ status: 400, body: refusal }, { content: [{ type: "text", text: "Fine now." }] }] });
    const t = open(dir, server);
    await t.waitFor(READY);
    await t.type("summarise zebra-notes");
    await t.key("Enter");
    await t.waitFor("the attached document could not be read", { all: true });
    await t.waitFor("its text is back in the input", { all: true });
    await t.key("Enter");
    await t.waitFor("Fine now.", { all: true });
    const sent = JSON.stringify(server.requests()[1]!.body.messages);
    expect(sent.split("summarise zebra-notes")).toHaveLength(2);
  });

  it("@file attaches the file's content to the prompt (read through Read), and says so", async () => {
    const dir = project();
    fs.writeFileSync(path.join(dir, "notes.txt"), "the launch moves to thursday\n");
    const server = await serve({ turns: [{ content: [{ type: "text", text: "Thursday, then." }] }] });
    const t = open(dir, server);
    await t.waitFor(READY);
    await t.write("when is the launch? see @notes.txt\r");
    await t.waitFor("Thursday, then.", { all: true });
    await t.waitFor("attached @notes.txt", { all: true });
    const sent = JSON.stringify(server.requests()[0]!.body.messages);
    expect(sent).toContain("the launch moves to thursday");
    expect(sent).toContain("when is the launch? see @notes.txt");
  });

  it("text and Enter arriving in one write are sent as a prompt; a pasted block of lines stays in the input", async () => {
    const dir = project();
    const server = await serve({ turns: [{ content: [{ type: "text", text: "Quick answer." }] }, { content: [{ type: "text", text: "Both lines seen." }] }] });
    const t = open(dir, server);
    await t.waitFor(READY);
    await t.write("say hi quickly\r");
    await t.waitFor("Quick answer.", { all: true });
    expect(JSON.stringify(server.requests()[0]!.body.messages)).toContain("say hi quickly");
    await t.write("first pasted line\rsecond pasted line\r");
    await t.waitFor("second pasted line");
    expect(server.requests()).toHaveLength(1);
    await t.key("Enter");
    await t.waitFor("Both lines seen.", { all: true });
    expect(JSON.stringify(server.requests()[1]!.body.messages)).toContain("first pasted line\\nsecond pasted line");
  });

  it("a / opens the command menu; typing narrows it, Tab completes, and the command's output comes under its own line", async () => {
    const dir = project();
    fs.mkdirSync(path.join(dir, ".toolgate", "commands"), { recursive: true });
    fs.writeFileSync(path.join(dir, ".toolgate", "commands", "tidy-up.md"), "---\ndescription: tidy the imports\n---\nTidy the imports.\n");
    const server = await serve({ turns: [] });
    const t = open(dir, server);
    await t.waitFor(READY);
    await t.key("/");
    // the menu (the empty prompt's placeholder names /help too)
    const all = await t.waitFor(/\/clear +start a new conversation/);
    expect(all).toMatch(/\/help +/);
    await t.type("co");
    const narrowed = await t.waitFor("/config");
    expect(narrowed).toContain("/compact");
    expect(narrowed).toContain("/cost");
    expect(narrowed).not.toContain("/help");
    await t.key("n");
    await t.key("Tab");
    await t.waitFor("> /config ");
    await t.key("Enter");
    const shown = await t.waitFor("permission mode: default", { all: true });
    expect(shown).toMatch(/> \/config\s*\n/);
    expect(shown).toContain(`project: ${path.join(dir, ".toolgate", "settings.json")} (not there)`);
    // the project's own commands are in the menu too
    await t.write("/ti");
    await t.waitFor(/\/tidy-up +tidy the imports/);
  });

  it("/init asks the model to write AGENTS.md; the long prompt is sent, not shown", async () => {
    const dir = project();
    const server = await serve({ turns: [{ content: [{ type: "text", text: "Wrote AGENTS.md." }] }] });
    const t = open(dir, server);
    await t.waitFor(READY);
    await t.write("/init\r");
    const screen = await t.waitFor("Wrote AGENTS.md.", { all: true });
    expect(screen).toContain("> /init");
    expect(screen).not.toContain("Study this repository");
    const sent = JSON.stringify(server.requests()[0]!.body.messages);
    expect(sent).toContain("Study this repository");
    expect(sent).toContain("AGENTS.md");
  });

  it("with CI=true in the environment (a CI runner's shell) the screen still draws, and commands still see CI", async () => {
    const server = await serve({ turns: [] });
    const t = open(project(), server, [], { CI: "true", CONTINUOUS_INTEGRATION: "1" });
    await t.waitFor(READY);
    await t.type("!echo ci-$CI-$CONTINUOUS_INTEGRATION");
    await t.key("Enter");
    await t.waitFor("ci-true-1", { all: true });
  });

  it("--continue draws the earlier conversation (prompt, the call and its output, the answer) before the prompt", async () => {
    const dir = project();
    const server = await serve({
      turns: [
        { content: [{ type: "text", text: "Counting." }, { type: "tool_use", id: "toolu_echo", name: "Bash", input: { command: "echo marker-$((6*7))" } }] },
        { content: [{ type: "text", text: "The first answer." }] },
      ],
    });
    const first = open(dir, server, ["--allowedTools", "Bash(echo:*)"]);
    await first.waitFor(READY);
    await first.type("count once");
    await first.key("Enter");
    await first.waitFor("The first answer.", { all: true });
    await first.type("/exit");
    await first.key("Enter");
    await waitForFile(first.exitFile);
    fs.rmSync(first.exitFile);
    const resumed = open(dir, server, ["--continue"]);
    await resumed.waitFor(READY);
    const screen = await resumed.waitFor("The first answer.", { all: true });
    const order = ["count once", "Counting.", "echo marker-$((6*7))", "marker-42", "The first answer.", "resumed session"].map((text) => screen.indexOf(text));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(server.requests()).toHaveLength(2);
  });

  it("Shift+Tab cycles default → acceptEdits → plan → default; /permissions lists a rule added with /permissions allow", async () => {
    const dir = project();
    const server = await serve({ turns: [] });
    const t = open(dir, server);
    await t.waitFor(READY);
    await t.key("BTab");
    await t.waitFor("acceptEdits mode");
    await t.key("BTab");
    await t.waitFor("plan mode");
    await t.key("BTab");
    await t.waitFor("default mode");
    await t.type("/permissions allow Bash(npm test) project");
    await t.key("Enter");
    await t.waitFor("allow Bash(npm test) —", { all: true });
    expect(JSON.parse(fs.readFileSync(path.join(dir, ".toolgate/settings.json"), "utf8")).permissions.allow).toEqual(["Bash(npm test)"]);
    await t.type("/permissions");
    await t.key("Enter");
    await t.waitFor(/allow\s+Bash\(npm test\)\s+project settings/, { all: true });
    await t.type("/permissions remove Bash(npm test)");
    await t.key("Enter");
    await t.waitFor("removed allow Bash(npm test)", { all: true });
    expect(JSON.parse(fs.readFileSync(path.join(dir, ".toolgate/settings.json"), "utf8")).permissions.allow).toEqual([]);
    await t.type("/exit");
    await t.key("Enter");
    await waitForFile(t.exitFile);
    expect(fs.readFileSync(t.exitFile, "utf8").trim()).toBe("0");
  });
});

async function waitForFile(file: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!fs.existsSync(file) || !fs.readFileSync(file, "utf8").trim()) {
    if (Date.now() > deadline) throw new Error(`${file} never appeared`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!hasTmux)("colours", () => {
  it("NO_COLOR: no colour escape sequences; without it the mode is coloured", async () => {
    const server = await serve({ turns: [] });
    const plain = open(project(), server, [], { NO_COLOR: "1" });
    await plain.waitFor(READY);
    await plain.key("BTab");
    await plain.waitFor("acceptEdits mode");
    expect(plain.rawScreen()).not.toMatch(/\u001b\[(3[0-9]|9[0-7]|38;)/);
    const coloured = open(project(), server);
    await coloured.waitFor(READY);
    await coloured.key("BTab");
    await coloured.waitFor("acceptEdits mode");
    expect(coloured.rawScreen()).toMatch(/\u001b\[(3[0-9]|9[0-7]|38;)/);
  });
});

describe.skipIf(!hasTmux)("folder trust", () => {
  it("a folder that ships a hook is asked about once: no keeps it off, yes runs it and is remembered", async () => {
    const dir = project();
    const marker = path.join(dir, "hook-ran");
    fs.mkdirSync(path.join(dir, ".toolgate"));
    fs.writeFileSync(path.join(dir, ".toolgate/settings.json"), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: `echo ran > ${marker}` }] }] }, permissions: { allow: ["Bash"] } }));
    const server = await serve({ turns: [] });

    const declined = open(dir, server);
    const question = (await declined.waitFor("Do you trust the files in this folder?")).replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");
    expect(question).toContain(`SessionStart: echo ran > ${marker}`);
    expect(question).toContain("permissions.allow");
    expect(question).toContain("Bash");
    await declined.key("n");
    await declined.waitFor(READY);
    await declined.waitFor("this folder is not trusted", { all: true });
    expect(fs.existsSync(marker)).toBe(false);
    await declined.type("/exit");
    await declined.key("Enter");
    await waitForFile(declined.exitFile);
    fs.rmSync(declined.exitFile);

    const accepted = open(dir, server);
    await accepted.waitFor("Do you trust the files in this folder?");
    await accepted.key("y");
    await accepted.waitFor(READY);
    await waitForFile(marker);
    const store = JSON.parse(fs.readFileSync(path.join(dir, ".home", "trusted-folders.json"), "utf8"));
    expect(store.folders.map((f: { path: string }) => f.path)).toEqual([dir]);
    await accepted.type("/exit");
    await accepted.key("Enter");
    await waitForFile(accepted.exitFile);
    fs.rmSync(accepted.exitFile);

    // remembered: the next start goes straight to the prompt
    fs.rmSync(marker);
    const again = open(dir, server);
    await again.waitFor(READY);
    expect(again.all()).not.toContain("Do you trust");
    await waitForFile(marker);
  });
});

/** The pid of a running process whose command line is exactly `command`, running in `cwd`. */
async function waitForProcess(command: string, cwd: string): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
        if (cmdline === command && fs.readlinkSync(`/proc/${entry}/cwd`) === cwd) return Number(entry);
      } catch {
        // exited meanwhile
      }
    }
    if (Date.now() > deadline) throw new Error(`no process ${command}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
