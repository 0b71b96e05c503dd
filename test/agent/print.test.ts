/**
 * `toolgate -p` as a user runs it: the real CLI process against the scripted model server (both providers),
 * asserting on what toolgate printed and on what the model server received.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { FakeModelScript, FakeModelServer } from "../../scripts/fake-model.mjs";
import { repoRoot, serveModel, startCli } from "../cli/agentRun.js";
import { checkSandboxSupport } from "../../src/sandbox/index.js";

// Each test starts the real CLI one to four times; on a loaded 2-core machine a start takes seconds.
vi.setConfig({ testTimeout: 120_000 });

const sandboxSupport = checkSandboxSupport();
const sandboxRuns = sandboxSupport.available && spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"]).status === 0;

const permissionServer = path.join(repoRoot, "test/agent/fixtures/permissionServer.ts");

function project(files: Record<string, string> = {}) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-print-")));
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  fs.mkdirSync(path.join(dir, ".home"));
  return dir;
}

function envFor(server: FakeModelServer, provider: "anthropic" | "openai", dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base = { ...process.env, TOOLGATE_HOME: path.join(dir, ".home"), ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", ANTHROPIC_BASE_URL: "", OPENAI_BASE_URL: "", ...extra };
  return provider === "anthropic"
    ? { ...base, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url }
    : { ...base, TOOLGATE_PROVIDER: "openai", OPENAI_API_KEY: "test", OPENAI_BASE_URL: `${server.url}/v1` };
}

const readTurns: FakeModelScript = {
  turns: [
    { content: [{ type: "text", text: "Reading." }, { type: "tool_use", id: "toolu_read", name: "Read", input: { file_path: "notes.txt" } }], chunks: 2, usage: { input_tokens: 100, output_tokens: 12 } },
    { content: [{ type: "text", text: "The note says: ship it." }], usage: { input_tokens: 140, output_tokens: 9 } },
  ],
};

describe("toolgate -p", () => {
  for (const provider of ["anthropic", "openai"] as const) {
    it(`${provider}: stream-json prints init, messages, status and a final result; turn 2 carries the tool_result`, async () => {
      const server = await serveModel(readTurns);
      const dir = project({ "notes.txt": "ship it\n" });
      const run = await startCli(["-p", "What does notes.txt say?", "--cwd", dir, "--output-format", "stream-json", "--toolgate-events", "--no-sandbox"], envFor(server, provider, dir)).done;
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const types = run.lines.map((l) => (l.type === "system" ? `system:${l.subtype}` : l.type));
      expect(types[0]).toBe("system:init");
      expect(types.at(-1)).toBe("result");
      expect(types).toContain("system:tool_status");
      expect(run.lines[0]).toMatchObject({ cwd: dir, permissionMode: "default", mcp_servers: [] });
      expect(run.lines[0].tools).toEqual(expect.arrayContaining(["Read", "Bash", "Edit"]));
      const result = run.lines.at(-1)!;
      expect(result).toMatchObject({ subtype: "success", is_error: false, num_turns: 2, result: "The note says: ship it.", permission_denials: [] });
      expect(result.usage).toMatchObject({ input_tokens: 240, output_tokens: 21 });
      expect(typeof result.duration_ms).toBe("number");
      const userResults = run.lines.filter((l) => l.type === "user" && Array.isArray(l.message.content) && l.message.content[0]?.type === "tool_result");
      expect(userResults).toHaveLength(1);
      // The server side: the second request carries the Read result for toolu_read.
      const second = server.requests()[1];
      const body = JSON.stringify(second.body);
      expect(body).toContain("toolu_read");
      expect(body).toContain("ship it");
      if (provider === "openai") expect(second.body.messages.some((m: any) => m.role === "tool" && m.tool_call_id === "toolu_read")).toBe(true);
      else expect(second.body.messages.at(-1).content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_read" });
    });
  }

  it("text output prints only the answer; json prints one result object", async () => {
    const server = await serveModel({ loop: true, turns: [{ content: [{ type: "text", text: "forty-two" }] }] });
    const dir = project();
    const text = await startCli(["-p", "answer?", "--cwd", dir, "--no-sandbox"], envFor(server, "anthropic", dir)).done;
    expect(text).toMatchObject({ code: 0, stdout: "forty-two\n" });
    const json = await startCli(["-p", "--cwd", dir, "--output-format", "json", "--no-sandbox"], envFor(server, "anthropic", dir), "answer from stdin?").done;
    expect(json.code).toBe(0);
    expect(json.lines).toHaveLength(1);
    expect(json.lines[0]).toMatchObject({ type: "result", subtype: "success", result: "forty-two" });
    expect(JSON.stringify(server.requests()[1].body)).toContain("answer from stdin?");
  });

  it("a Bash call the script waits for starts before the model's message ends", async () => {
    const dir = project();
    const flag = path.join(dir, "started-while-streaming");
    const server = await serveModel({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_touch", name: "Bash", input: { command: `touch ${flag}` } }, { type: "text", text: "touched" }], steps: [{ after: 1, waitForFile: flag, timeoutMs: 20_000 }] },
        { content: [{ type: "text", text: "done" }] },
      ],
    });
    const run = await startCli(["-p", "touch it", "--cwd", dir, "--output-format", "stream-json", "--toolgate-events", "--allowedTools", "Bash(touch:*)"], envFor(server, "anthropic", dir)).done;
    expect(run.code).toBe(0);
    expect(fs.existsSync(flag)).toBe(true);
    expect(run.lines.at(-1)).toMatchObject({ subtype: "success", num_turns: 2 });
  });

  it.skipIf(!sandboxRuns)("--verbose says when the sandbox is what lets a Bash call run", async () => {
    const dir = project();
    const server = await serveModel({ turns: [{ content: [{ type: "tool_use", id: "toolu_ls", name: "Bash", input: { command: "touch made.txt" } }] }, { content: [{ type: "text", text: "ok" }] }] });
    const run = await startCli(["-p", "make it", "--cwd", dir, "--verbose"], envFor(server, "anthropic", dir)).done;
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("[toolgate] Bash allowed: sandboxed, read-only: no rule allows this command, so it runs in the sandbox");
    // read-only indeed: the touch did not write
    expect(fs.existsSync(path.join(dir, "made.txt"))).toBe(false);
  });

  it("SIGINT during `sleep 30`: a result line within 3 s, exit 130, and every tool_use has its result", async () => {
    const dir = project();
    const server = await serveModel({
      turns: [{ content: [{ type: "tool_use", id: "toolu_sleep", name: "Bash", input: { command: "sleep 30" } }], usage: { input_tokens: 5, output_tokens: 5 } }, { content: [{ type: "text", text: "unreached" }] }],
    });
    const proc = startCli(["-p", "wait", "--cwd", dir, "--output-format", "stream-json", "--toolgate-events", "--no-sandbox"], envFor(server, "anthropic", dir));
    let signalledAt = 0;
    proc.onLine((line) => {
      if (line.type === "system" && line.subtype === "tool_status" && line.status === "running" && !signalledAt) {
        setTimeout(() => {
          signalledAt = Date.now();
          proc.child.kill("SIGINT");
        }, 300);
      }
    });
    let resultAt = 0;
    proc.onLine((line) => {
      if (line.type === "result") resultAt = Date.now();
    });
    const run = await proc.done;
    expect(signalledAt).toBeGreaterThan(0);
    expect(resultAt - signalledAt).toBeLessThan(3_000);
    expect(run.code).toBe(130);
    const result = run.lines.at(-1)!;
    expect(result).toMatchObject({ type: "result", is_error: true, terminal_reason: "aborted_tools" });
    const answered = run.lines.filter((l) => l.type === "user").flatMap((l) => (Array.isArray(l.message.content) ? l.message.content : [])).filter((b: any) => b.type === "tool_result");
    expect(answered.map((b: any) => b.tool_use_id)).toEqual(["toolu_sleep"]);
    expect(server.requests()).toHaveLength(1);
  });

  for (const answer of ["allow", "deny"] as const) {
    it(`--permission-prompt-tool that answers ${answer}: git push ${answer === "allow" ? "runs" : "does not run"}`, async () => {
      const dir = project();
      const remote = path.join(dir, "remote.git");
      const work = path.join(dir, "work");
      const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } }).toString();
      fs.mkdirSync(work);
      git(dir, "init", "-q", "--bare", remote);
      git(work, "init", "-q", "-b", "main");
      fs.writeFileSync(path.join(work, "a.txt"), "a");
      git(work, "add", "a.txt");
      git(work, "commit", "-qm", "first");
      git(work, "remote", "add", "origin", remote);
      const log = path.join(dir, "questions.jsonl");
      const mcpConfig = JSON.stringify({ mcpServers: { perm: { command: process.execPath, args: ["--import", "tsx", permissionServer], env: { PERMISSION_ANSWER: answer, PERMISSION_LOG: log } } } });
      const server = await serveModel({ turns: [{ content: [{ type: "tool_use", id: "toolu_push", name: "Bash", input: { command: "git push origin main" } }] }, { content: [{ type: "text", text: "pushed?" }] }] });
      const run = await startCli(
        ["-p", "push", "--cwd", work, "--output-format", "stream-json", "--toolgate-events", "--no-sandbox", "--mcp-config", mcpConfig, "--permission-prompt-tool", "mcp__perm__approve"],
        { ...envFor(server, "anthropic", dir), GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
      ).done;
      expect(run.code).toBe(0);
      const question = JSON.parse(fs.readFileSync(log, "utf8").trim().split("\n")[0]);
      expect(question).toMatchObject({ tool_name: "Bash", tool_use_id: "toolu_push", input: { command: "git push origin main" } });
      const pushed = git(remote, "branch", "--list", "main").trim();
      const result = run.lines.at(-1)!;
      if (answer === "allow") {
        expect(pushed).toBe("main");
        expect(result.permission_denials).toEqual([]);
      } else {
        expect(pushed).toBe("");
        expect(result.permission_denials).toEqual([{ tool_name: "Bash", tool_use_id: "toolu_push", tool_input: { command: "git push origin main" } }]);
        expect(JSON.stringify(server.requests()[1].body)).toContain("The reviewer said no.");
      }
    });
  }

  it("stream-json input: several prompts in one conversation, and a can_use_tool control request answered on stdin", async () => {
    const dir = project();
    const target = path.join(dir, "out.txt");
    const server = await serveModel({
      turns: [
        { content: [{ type: "text", text: "first answer" }] },
        { content: [{ type: "tool_use", id: "toolu_write", name: "Write", input: { file_path: target, content: "approved" } }] },
        { content: [{ type: "text", text: "written" }] },
      ],
    });
    const proc = startCli(["-p", "--cwd", dir, "--input-format", "stream-json", "--output-format", "stream-json", "--toolgate-events", "--no-sandbox"], envFor(server, "anthropic", dir));
    proc.child.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: "hello" } })}\n`);
    let results = 0;
    proc.onLine((line) => {
      if (line.type === "result" && ++results === 1) proc.child.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text: "now write the file" }] } })}\n`);
      if (line.type === "control_request" && line.request.subtype === "can_use_tool") {
        proc.child.stdin.write(`${JSON.stringify({ type: "control_response", response: { subtype: "success", request_id: line.request_id, response: { behavior: "allow" } } })}\n`);
      }
      if (line.type === "result" && results === 2) proc.child.stdin.end();
    });
    const run = await proc.done;
    expect(run.code).toBe(0);
    expect(fs.readFileSync(target, "utf8")).toBe("approved");
    const control = run.lines.find((l) => l.type === "control_request")!;
    expect(control.request).toMatchObject({ subtype: "can_use_tool", tool_name: "Write", tool_use_id: "toolu_write" });
    expect(run.lines.filter((l) => l.type === "result").map((l) => l.result)).toEqual(["first answer", "written"]);
    // One conversation: the third request still carries the first prompt.
    expect(JSON.stringify(server.requests()[2].body)).toContain("hello");
  });

  it("updatedPermissions in a can_use_tool answer are remembered (the next call does not ask); unusable ones are reported and skipped", async () => {
    const dir = project();
    const touch = (id: string, command: string) => ({ content: [{ type: "tool_use" as const, id, name: "Bash", input: { command } }] });
    const server = await serveModel({ turns: [touch("toolu_a", "touch a.txt"), touch("toolu_b", "touch b.txt"), touch("toolu_rm", "rm a.txt"), { content: [{ type: "text", text: "done" }] }] });
    const proc = startCli(["-p", "--cwd", dir, "--input-format", "stream-json", "--output-format", "stream-json", "--toolgate-events", "--no-sandbox"], envFor(server, "anthropic", dir));
    proc.child.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: "make two files, then remove one" } })}\n`);
    const asked: string[] = [];
    proc.onLine((line) => {
      if (line.type === "control_request" && line.request.subtype === "can_use_tool") {
        asked.push(line.request.input.command);
        const first = asked.length === 1;
        const response = first
          ? {
              behavior: "allow",
              updatedPermissions: [
                { type: "addRules", behavior: "allow", rules: [{ toolName: "Bash", ruleContent: "touch:*" }], destination: "localSettings" },
                // not honoured: turning the checks off, a rule that does not parse, something that is no update
                { type: "setMode", mode: "bypassPermissions", destination: "session" },
                { type: "addRules", behavior: "allow", rules: ["Bash(rm"], destination: "session" },
                { type: "replaceEverything" },
              ],
            }
          : { behavior: "deny", message: "keep a.txt" };
        proc.child.stdin.write(`${JSON.stringify({ type: "control_response", response: { subtype: "success", request_id: line.request_id, response } })}\n`);
      }
      if (line.type === "result") proc.child.stdin.end();
    });
    const run = await proc.done;
    expect(run.code).toBe(0);
    // touch b.txt ran without a question; rm still asked (no bypass) and was denied
    expect(asked).toEqual(["touch a.txt", "rm a.txt"]);
    expect(fs.existsSync(path.join(dir, "a.txt")) && fs.existsSync(path.join(dir, "b.txt"))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(dir, ".toolgate/settings.local.json"), "utf8")).permissions.allow).toEqual(["Bash(touch:*)"]);
    const notices = run.lines.filter((l) => l.subtype === "notice").map((l) => `${l.level}: ${l.message}`);
    expect(notices.filter((n) => n.startsWith("info:"))).toEqual(['info: the controlling client remembered: allow "Bash(touch:*)" — .toolgate/settings.local.json']);
    const warnings = notices.filter((n) => n.startsWith("warning:"));
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain("updatedPermissions[1] was ignored: an answer cannot switch to bypassPermissions");
    expect(warnings[1]).toContain("updatedPermissions[2] was ignored");
    expect(warnings[2]).toContain("updatedPermissions[3] was ignored");
  });

  it("denied calls are told to the person on stderr with what would allow them; an ask no one could answer exits 3", async () => {
    const dir = project();
    const target = path.join(dir, "out.txt");
    const server = await serveModel({ turns: [{ content: [{ type: "tool_use", id: "toolu_w", name: "Write", input: { file_path: target, content: "x" } }] }, { content: [{ type: "text", text: "Done." }] }] });
    const run = await startCli(["-p", "write out.txt", "--cwd", dir, "--no-sandbox"], envFor(server, "anthropic", dir)).done;
    expect(run.stdout).toBe("Done.\n");
    expect(fs.existsSync(target)).toBe(false);
    expect(run.code).toBe(3);
    const line = run.stderr.split("\n").find((l) => l.startsWith("toolgate: denied Write"))!;
    expect(line).toContain(target);
    expect(line).toMatch(/--allowedTools|--permission-mode acceptEdits/);
    // a deny rule is the person's own choice: the line still comes, the exit code stays 0
    const server2 = await serveModel({ turns: [{ content: [{ type: "tool_use", id: "toolu_w2", name: "Write", input: { file_path: target, content: "x" } }] }, { content: [{ type: "text", text: "Done." }] }] });
    const denied = await startCli(["-p", "write out.txt", "--cwd", dir, "--no-sandbox", "--output-format", "json", "--disallowedTools", "Write"], envFor(server2, "anthropic", dir)).done;
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout).permission_denials).toEqual([expect.objectContaining({ tool_use_id: "toolu_w2" })]);
    expect(denied.stderr).toMatch(/toolgate: denied Write .*out\.txt: .*denied/);
  });

  it("a prompt larger than a request may be is refused before it is sent, and the session goes on with --continue", async () => {
    const dir = project();
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "first answer" }] }, { content: [{ type: "text", text: "still here" }] }] });
    const env = envFor(server, "anthropic", dir);
    expect((await startCli(["-p", "hello", "--cwd", dir, "--no-sandbox"], env).done).code).toBe(0);
    const huge = "x".repeat(5 * 1024 * 1024);
    const refused = await startCli(["-p", "--cwd", dir, "--no-sandbox", "--continue"], env, huge).done;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/The prompt was not sent: it is about \d+ tokens \(5\.0 MB\), and claude-sonnet-4-5 takes at most \d+ tokens/);
    expect(server.requests()).toHaveLength(1);
    const next = await startCli(["-p", "are you there?", "--cwd", dir, "--no-sandbox", "--continue"], env).done;
    expect(next.code).toBe(0);
    expect(next.stdout).toBe("still here\n");
    expect(JSON.stringify(server.requests()[1].body)).not.toContain("xxxxxxxxxx");
  });

  it("a prompt the server refuses (HTTP 400) is taken back out of the session, so --continue still works; the transcript keeps it", async () => {
    const dir = project();
    const home = path.join(dir, ".home");
    const refusal = { type: "error", error: { type: "invalid_request_error", message: "messages.2.content.0: the document could not be read" } };
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "first answer" }] }, { status: 400, body: refusal }, { content: [{ type: "text", text: "still here" }] }] });
    const env = envFor(server, "anthropic", dir);
    expect((await startCli(["-p", "hello", "--cwd", dir, "--no-sandbox"], env).done).code).toBe(0);
    const refused = await startCli(["-p", "read the broken document", "--cwd", dir, "--no-sandbox", "--continue"], env).done;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("the document could not be read");
    expect(refused.stderr).toContain("the prompt was not kept in the session (the model server refused it)");
    const next = await startCli(["-p", "are you there?", "--cwd", dir, "--no-sandbox", "--continue"], env).done;
    expect(next.code).toBe(0);
    expect(next.stdout).toBe("still here\n");
    const sent = JSON.stringify(server.requests()[2].body.messages);
    expect(sent).toContain("hello");
    expect(sent).toContain("first answer");
    expect(sent).not.toContain("read the broken document");
    // Nothing the person wrote is lost: the refused prompt is in the transcript file, off the history's chain.
    const files = fs.readdirSync(home, { recursive: true }).map(String).filter((f) => f.endsWith(".jsonl"));
    expect(files).toHaveLength(1);
    const lines = fs.readFileSync(path.join(home, files[0]!), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const prompt = lines.find((l) => l.type === "message" && JSON.stringify(l.message).includes("read the broken document"));
    expect(prompt).toBeDefined();
    expect(lines.find((l) => l.type === "refused")).toMatchObject({ messageUuid: prompt.uuid, parentUuid: prompt.parentUuid });
  });

  it("@file in a -p prompt attaches the file through Read; a file a rule denies is not attached, and stderr says so", async () => {
    const dir = project({ "notes.txt": "the launch moves to thursday\n", "secret.txt": "hunter2\n" });
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "Thursday." }] }, { content: [{ type: "text", text: "Cannot see it." }] }] });
    const env = envFor(server, "anthropic", dir);
    const run = await startCli(["-p", "when is the launch? @notes.txt", "--cwd", dir, "--no-sandbox"], env).done;
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("Thursday.\n");
    expect(JSON.stringify(server.requests()[0]!.body.messages)).toContain("the launch moves to thursday");
    const denied = await startCli(["-p", "what is in @secret.txt", "--cwd", dir, "--no-sandbox", "--disallowedTools", "Read(./secret.txt)"], env).done;
    expect(denied.stdout).toBe("Cannot see it.\n");
    expect(denied.stderr).toMatch(/warning: @secret\.txt was not attached: .*denied/i);
    expect(JSON.stringify(server.requests()[1]!.body)).not.toContain("hunter2");
  });

  it("no API key: the message names the variables to set, and nothing is sent", async () => {
    const dir = project();
    const run = await startCli(["-p", "hi", "--cwd", dir, "--no-sandbox"], { ...process.env, TOOLGATE_HOME: path.join(dir, ".home"), ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", ANTHROPIC_BASE_URL: "", OPENAI_BASE_URL: "", TOOLGATE_PROVIDER: "" }).done;
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("No API key for Anthropic: set ANTHROPIC_API_KEY");
    expect(run.stderr).toContain("OPENAI_BASE_URL and OPENAI_API_KEY");
    expect(run.stderr).not.toContain("Could not resolve authentication method");
  });

  it("a server that cannot be reached is named with the setting that chose it and the cause; each retry says attempt N of M", async () => {
    const dir = project();
    // a port nothing listens on: bind one, note it, close it
    const closed = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    for (const provider of ["anthropic", "openai"] as const) {
      const url = provider === "anthropic" ? `http://127.0.0.1:${closed}` : `http://127.0.0.1:${closed}/v1`;
      const variable = provider === "anthropic" ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL";
      const env = { ...process.env, TOOLGATE_HOME: path.join(dir, ".home"), TOOLGATE_MAX_RETRIES: "1", ANTHROPIC_BASE_URL: "", OPENAI_BASE_URL: "", ...(provider === "anthropic" ? { ANTHROPIC_API_KEY: "test" } : { TOOLGATE_PROVIDER: "openai", OPENAI_API_KEY: "test" }), [variable]: url };
      const run = await startCli(["-p", "hi", "--cwd", dir, "--no-sandbox"], env).done;
      expect(run.code).toBe(1);
      const lines = run.stderr.trimEnd().split("\n");
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(new RegExp(`^\\[toolgate\\] warning: model request failed \\(attempt 1 of 2\\): Could not reach the model server: connect ECONNREFUSED 127\\.0\\.0\\.1:${closed} \\(model server ${url.replaceAll(".", "\\.")} from ${variable}\\); retrying in \\d+\\.\\d s$`));
      expect(lines[1]).toBe(`toolgate: Could not reach the model server: connect ECONNREFUSED 127.0.0.1:${closed} (model server ${url} from ${variable})`);
    }
  });

  it("an HTTP error says the status once, with the server's message", async () => {
    const dir = project();
    for (const provider of ["anthropic", "openai"] as const) {
      const server = await serveModel({ turns: [{ status: 500, body: provider === "anthropic" ? { type: "error", error: { type: "api_error", message: "the shard is down" } } : { error: { message: "the shard is down", type: "server_error" } } }] });
      const run = await startCli(["-p", "hi", "--cwd", dir, "--no-sandbox"], envFor(server, provider, dir, { TOOLGATE_MAX_RETRIES: "0" })).done;
      expect(run.code).toBe(1);
      expect(run.stderr).toBe("toolgate: The model server answered HTTP 500: the shard is down\n");
    }
  });

  it("a model server that fails for good still ends with a result line and exit 1", async () => {
    const server = await serveModel({ turns: [{ status: 401, body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } }] });
    const dir = project();
    const run = await startCli(["-p", "hi", "--cwd", dir, "--output-format", "stream-json", "--toolgate-events", "--no-sandbox"], envFor(server, "anthropic", dir)).done;
    expect(run.code).toBe(1);
    expect(run.lines.at(-1)).toMatchObject({ type: "result", is_error: true, subtype: "error_during_execution" });
    expect(run.lines.at(-1)!.result).toMatch(/invalid x-api-key/);
  });

  it("usage errors are one line and exit 2", async () => {
    const dir = project();
    const bad = await startCli(["-p", "x", "--cwd", dir, "--output-format", "yaml"], { ...process.env, TOOLGATE_HOME: path.join(dir, ".home") }).done;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^toolgate: --output-format must be one of text, json, stream-json/);
    const noTool = await startCli(["-p", "x", "--cwd", dir, "--permission-prompt-tool", "mcp__none__x"], { ...process.env, TOOLGATE_HOME: path.join(dir, ".home") }).done;
    expect(noTool.code).toBe(2);
    expect(noTool.stderr).toMatch(/no such MCP tool/);
  });
});

describe("toolgate -p --permission-mode auto", () => {
  const touchTurn = (file: string) => ({ content: [{ type: "tool_use" as const, id: "toolu_touch", name: "Bash", input: { command: `touch ${file}` } }] });

  for (const decision of ["allow", "deny"] as const) {
    it(`the classifier ${decision === "allow" ? "allows" : "denies"} a call that would ask, and the decision is logged with its reason`, async () => {
      const dir = project();
      const file = path.join(dir, "made-by-auto");
      const server = await serveModel({
        turns: [touchTurn(file), { content: [{ type: "text", text: `{"decision": "${decision}", "reason": "scripted ${decision}"}` }] }, { content: [{ type: "text", text: "finished" }] }],
      });
      const run = await startCli(["-p", "create the marker file", "--cwd", dir, "--output-format", "stream-json", "--toolgate-events", "--no-sandbox", "--permission-mode", "auto"], envFor(server, "anthropic", dir)).done;
      expect(run.code).toBe(0);
      expect(fs.existsSync(file)).toBe(decision === "allow");
      expect(run.lines.find((l) => l.subtype === "auto_mode")).toMatchObject({ tool_name: "Bash", decision, reason: `scripted ${decision}` });
      // The classifier saw the command and the user's request, and had no tools.
      const classifierRequest = server.requests()[1].body;
      expect(classifierRequest.tools ?? []).toEqual([]);
      expect(JSON.stringify(classifierRequest.messages)).toContain(`touch ${file}`);
      expect(JSON.stringify(classifierRequest.messages)).toContain("create the marker file");
      const logs = execFileSync("find", [path.join(dir, ".home"), "-name", "auto-mode.jsonl"]).toString().trim();
      expect(JSON.parse(fs.readFileSync(logs, "utf8").trim())).toMatchObject({ tool: "Bash", toolUseID: "toolu_touch", verdict: { behavior: decision, reason: `scripted ${decision}` } });
      if (decision === "deny") expect(JSON.stringify(server.requests()[2].body)).toContain("Auto mode denied this Bash call: scripted deny");
    });
  }

  it("never overrides an ask rule, and an answer it cannot read denies", async () => {
    const dir = project();
    fs.mkdirSync(path.join(dir, ".toolgate"));
    fs.writeFileSync(path.join(dir, ".toolgate", "settings.json"), JSON.stringify({ permissions: { ask: ["Bash(touch:*)"] } }));
    const file = path.join(dir, "never");
    const server = await serveModel({ turns: [touchTurn(file), { content: [{ type: "text", text: "ok" }] }] });
    const run = await startCli(["-p", "touch", "--cwd", dir, "--output-format", "stream-json", "--toolgate-events", "--no-sandbox", "--permission-mode", "auto"], envFor(server, "anthropic", dir)).done;
    expect(run.code).toBe(0);
    expect(server.requests()).toHaveLength(2); // no classifier request
    expect(fs.existsSync(file)).toBe(false);
    expect(run.lines.at(-1)!.permission_denials).toHaveLength(1);

    const other = project();
    const file2 = path.join(other, "garbled");
    const server2 = await serveModel({ turns: [touchTurn(file2), { content: [{ type: "text", text: "sure, go ahead!" }] }, { content: [{ type: "text", text: "ok" }] }] });
    const run2 = await startCli(["-p", "touch", "--cwd", other, "--output-format", "stream-json", "--toolgate-events", "--no-sandbox", "--permission-mode", "auto"], envFor(server2, "anthropic", other)).done;
    expect(fs.existsSync(file2)).toBe(false);
    expect(run2.lines.find((l) => l.subtype === "auto_mode")).toMatchObject({ decision: "deny" });
    expect(run2.lines.find((l) => l.subtype === "auto_mode")!.reason).toMatch(/could not judge/);
  });
});

describe("toolgate -p: transcripts and resume", () => {
  it("after kill -9 mid-tool, --continue sends a well-formed history (the cut call answered) and goes on", async () => {
    const dir = project();
    const server = await serveModel({
      turns: [
        { content: [{ type: "text", text: "waiting" }, { type: "tool_use", id: "toolu_long", name: "Bash", input: { command: "sleep 30" } }] },
        { content: [{ type: "text", text: "resumed fine" }] },
      ],
    });
    const env = envFor(server, "anthropic", dir);
    const proc = startCli(["-p", "first prompt", "--cwd", dir, "--output-format", "stream-json", "--toolgate-events", "--no-sandbox"], env);
    proc.onLine((line) => {
      if (line.type === "system" && line.subtype === "tool_status" && line.status === "running") setTimeout(() => proc.child.kill("SIGKILL"), 200);
    });
    const killed = await proc.done;
    expect(killed.code).toBe(null);
    const sessionId = killed.lines[0].session_id as string;

    const run = await startCli(["-p", "second prompt", "--cwd", dir, "--output-format", "stream-json", "--toolgate-events", "--no-sandbox", "--continue"], env).done;
    expect(run.code).toBe(0);
    expect(run.lines[0].session_id).toBe(sessionId);
    expect(run.lines.at(-1)).toMatchObject({ result: "resumed fine" });
    const body = server.requests()[1].body;
    const roles = body.messages.map((m: { role: string }) => m.role);
    expect(roles).toEqual(["user", "assistant", "user", "user"]);
    expect(body.messages[2].content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_long", is_error: true });
    expect(JSON.stringify(body.messages[3])).toContain("second prompt");
    expect(run.stderr).toMatch(/resumed session .*without a result got an interruption result/);
  });

  it("--resume by id prefix continues that session; toolgate sessions lists it", async () => {
    const dir = project();
    const server = await serveModel({ loop: true, turns: [{ content: [{ type: "text", text: "ok" }], usage: { input_tokens: 3, output_tokens: 1 } }] });
    const env = envFor(server, "anthropic", dir);
    const first = await startCli(["-p", "remember the word pineapple", "--cwd", dir, "--output-format", "json", "--no-sandbox"], env).done;
    const id = first.lines[0].session_id as string;
    await startCli(["-p", "an unrelated session", "--cwd", dir, "--no-sandbox"], env).done;

    const listed = await startCli(["sessions", "--cwd", dir, "--json"], env).done;
    const sessions = JSON.parse(listed.stdout);
    expect(sessions).toHaveLength(2);
    expect(sessions.find((s: { sessionId: string }) => s.sessionId === id)).toMatchObject({ lastPrompt: "remember the word pineapple", turns: 1 });

    const resumed = await startCli(["-p", "what was the word?", "--cwd", dir, "--output-format", "json", "--no-sandbox", "--resume", id.slice(0, 8)], env).done;
    expect(resumed.code).toBe(0);
    expect(resumed.lines[0].session_id).toBe(id);
    const body = JSON.stringify(server.requests().at(-1)!.body);
    expect(body).toContain("pineapple");
    expect(body).not.toContain("an unrelated session");

    const missing = await startCli(["-p", "x", "--cwd", dir, "--resume", "zzzz"], env).done;
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--resume: no session of this project starts with "zzzz"/);
  });
});

describe("toolgate -p: compaction", () => {
  it("auto-compacts near a small configured window; the transcript resumes from the compacted history; /compact works by hand", async () => {
    const dir = project({ "TOOLGATE.md": "Always answer in haiku.\n" });
    fs.mkdirSync(path.join(dir, ".toolgate"));
    fs.writeFileSync(path.join(dir, ".toolgate", "settings.json"), JSON.stringify({ models: { "claude-sonnet-4-5": { contextWindow: 8_000, maxOutputTokens: 1_000 } } }));
    const long = `long answer ${"z".repeat(30_000)}`;
    const server = await serveModel({
      turns: [
        { content: [{ type: "text", text: long }], usage: { input_tokens: 500, output_tokens: 7_500 } },
        { content: [{ type: "text", text: "SUMMARY-OF-EARLIER-WORK" }] },
        { content: [{ type: "text", text: "after compaction" }], usage: { input_tokens: 900, output_tokens: 5 } },
        { content: [{ type: "text", text: "third run" }], usage: { input_tokens: 950, output_tokens: 5 } },
        { content: [{ type: "text", text: "MANUAL-SUMMARY" }] },
      ],
    });
    const env = envFor(server, "anthropic", dir);
    const args = ["--cwd", dir, "--output-format", "stream-json", "--toolgate-events", "--no-sandbox"];
    expect((await startCli(["-p", "write a long essay", ...args], env).done).code).toBe(0);
    const second = await startCli(["-p", "now shorten it", ...args, "--continue"], env).done;
    expect(second.code).toBe(0);
    expect(second.lines.find((l) => l.subtype === "compact_boundary")).toMatchObject({ trigger: "auto", kind: "summarised" });
    const [, summaryRequest, next] = server.requests().map((r) => r.body);
    expect(summaryRequest.tools ?? []).toEqual([]);
    const sent = JSON.stringify(next.messages);
    expect(sent).toContain("SUMMARY-OF-EARLIER-WORK");
    expect(sent).not.toContain("z".repeat(1_000));
    expect(next.messages.at(-1).content[0].text).toBe("now shorten it");
    expect(JSON.stringify(next.system)).toContain("Always answer in haiku.");

    // The next run continues from the compacted history, not the long original.
    const third = await startCli(["-p", "thanks", ...args, "--continue"], env).done;
    expect(third.code).toBe(0);
    const thirdSent = JSON.stringify(server.requests()[3].body.messages);
    expect(thirdSent).toContain("SUMMARY-OF-EARLIER-WORK");
    expect(thirdSent).not.toContain("z".repeat(1_000));

    const manual = await startCli(["-p", "/compact keep the haiku rule", ...args, "--continue"], env).done;
    expect(manual.code).toBe(0);
    expect(manual.lines.find((l) => l.subtype === "compact_boundary")).toMatchObject({ trigger: "manual", kind: "summarised" });
    expect(JSON.stringify(server.requests()[4].body.messages)).toContain("Focus on: keep the haiku rule");
  }, 180_000);
});

describe("toolgate -p: checkpoints after a resume", () => {
  it("a rewind_files control request in a resumed session restores a file an earlier run changed", async () => {
    const dir = project({ "notes.txt": "original\n" });
    const server = await serveModel({
      turns: [
        {
          id: "msg_edit",
          content: [
            { type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: "notes.txt" } },
            { type: "tool_use", id: "toolu_w", name: "Write", input: { file_path: "notes.txt", content: "rewritten\n" } },
          ],
        },
        { content: [{ type: "text", text: "written" }] },
      ],
    });
    const env = envFor(server, "anthropic", dir);
    fs.mkdirSync(path.join(dir, ".toolgate"));
    fs.writeFileSync(path.join(dir, ".toolgate", "settings.json"), JSON.stringify({ permissions: { allow: ["Write"] } }));
    const first = await startCli(["-p", "rewrite notes", "--cwd", dir, "--output-format", "stream-json", "--toolgate-events", "--no-sandbox", "--trust"], env).done;
    expect(first.code).toBe(0);
    expect(fs.readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("rewritten\n");

    const proc = startCli(["-p", "--cwd", dir, "--input-format", "stream-json", "--output-format", "stream-json", "--toolgate-events", "--no-sandbox", "--continue"], env);
    proc.child.stdin.end(`${JSON.stringify({ type: "control_request", request_id: "r1", request: { subtype: "rewind_files", message_id: "msg_edit" } })}\n`);
    const run = await proc.done;
    const response = run.lines.find((l) => l.type === "control_response")!;
    expect(response.response).toMatchObject({ subtype: "success", request_id: "r1", response: { restored: [path.join(dir, "notes.txt")] } });
    expect(fs.readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("original\n");
  });
});

describe("toolgate -p: instruction files pass the Read rules", () => {
  it("a CLAUDE.md or TOOLGATE.md linked to a Read-denied key never reaches the model; the user is told which file and why", async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-instr-link-")));
    const home = path.join(root, "home");
    const dataHome = path.join(home, ".toolgate");
    const key = path.join(home, ".ssh", "id_rsa");
    const secret = "SECRET-PRIVATE-KEY-4f2a9c";
    fs.mkdirSync(path.dirname(key), { recursive: true });
    fs.mkdirSync(dataHome);
    fs.writeFileSync(key, `-----BEGIN OPENSSH PRIVATE KEY-----\n${secret}\n`);
    fs.writeFileSync(path.join(dataHome, "settings.json"), JSON.stringify({ permissions: { deny: ["Read(~/.ssh/**)"] } }));
    // the user's own file may link anywhere, but not past a deny rule
    fs.symlinkSync(key, path.join(dataHome, "TOOLGATE.md"));
    const dir = path.join(root, "project");
    const sub = path.join(dir, "packages", "app");
    fs.mkdirSync(sub, { recursive: true });
    fs.symlinkSync(key, path.join(dir, "CLAUDE.md"));
    fs.writeFileSync(path.join(dir, "AGENTS.md"), "PROJECT-RULE: use pnpm\n");
    // nested, through a symlinked directory component
    fs.symlinkSync(path.join(home, ".ssh"), path.join(dir, "keys"));
    fs.symlinkSync("../../keys/id_rsa", path.join(sub, "CLAUDE.md"));
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
    const env = { ...envFor(server, "anthropic", dir), HOME: home, TOOLGATE_HOME: dataHome };
    const run = await startCli(["-p", "hi", "--cwd", sub, "--no-sandbox"], env).done;
    expect(run.code).toBe(0);
    const sent = JSON.stringify(server.requests().map((r) => r.body));
    expect(sent).toContain("PROJECT-RULE: use pnpm");
    expect(sent).not.toContain(secret);
    for (const file of [path.join(dataHome, "TOOLGATE.md"), path.join(dir, "CLAUDE.md"), path.join(sub, "CLAUDE.md")]) {
      expect(run.stderr).toContain(`instruction file ${file} was not read: `);
    }
    expect(run.stderr).toMatch(new RegExp(`instruction file ${path.join(dataHome, "TOOLGATE.md")} was not read: .*Read\\(~/\\.ssh/\\*\\*\\)`));
    expect(run.stderr).not.toContain(secret);
  });
});

describe("toolgate -p tells the person how the model stopped (issue 29)", () => {
  it.each(["anthropic", "openai"] as const)("%s: a refusal is a warning on stderr, and the json result has the cache hit rate", async (provider) => {
    const server = await serveModel({
      // Anthropic's input_tokens leave out cache reads; OpenAI's prompt_tokens (which the server makes of it) hold them.
      turns: [{ content: [{ type: "text", text: "I can't help with that." }], stop_reason: "refusal", usage: { input_tokens: provider === "anthropic" ? 100 : 400, output_tokens: 5, cache_read_input_tokens: 300, cache_creation_input_tokens: 0 } }],
    });
    const dir = project();
    const run = await startCli(["-p", "do the bad thing", "--cwd", dir, "--output-format", "json", "--no-sandbox"], envFor(server, provider, dir)).done;
    expect(run.stderr).toContain("The model stopped with a refusal");
    const result = JSON.parse(run.stdout) as { result: string; usage: { cache_hit_rate?: number } };
    expect(result.result).toBe("I can't help with that.");
    // 300 of 400 input tokens read from the cache, in either API's way of saying it.
    expect(result.usage.cache_hit_rate).toBe(0.75);
  });

  it("an output-limit stop is told, and the model is asked to go on", async () => {
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "Part one" }], stop_reason: "max_tokens" }, { content: [{ type: "text", text: " and part two." }] }] });
    const dir = project();
    const run = await startCli(["-p", "write a lot", "--cwd", dir, "--no-sandbox"], envFor(server, "anthropic", dir)).done;
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("reached its output token limit; asking it to continue (1 of 3)");
    expect(run.stdout).toContain("and part two.");
  });
});
