/**
 * The Agent SDK's runtime controls and session options against toolgate: rewindFiles by user message, MCP
 * status, context usage, structured output, budget, session ids, persistence, forks, settings and tool
 * lists, and every argv flag the SDK can write.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { query, type SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { call, closeServers, collect, project, promptStream, results, resultText, sdkOptions, sent, serve, text, toolResults } from "./helpers.js";
import { cliArgs, cliEnv, repoRoot } from "../cliCommand.js";

vi.setConfig({ testTimeout: 180_000 });
afterEach(closeServers);

describe("Agent SDK controls", () => {
  it("rewindFiles(userMessageId): a dry run lists the files, the rewind restores them; mcpServerStatus and getContextUsage answer", async () => {
    const dir = project({ "a.txt": "original\n" });
    const a = path.join(dir, "a.txt");
    const server = await serve({ turns: [call("toolu_read", "Read", { file_path: a }), call("toolu_w", "Write", { file_path: a, content: "changed\n" }), call("toolu_n", "Write", { file_path: path.join(dir, "new.txt"), content: "new\n" }), { ...text("changed them"), usage: { input_tokens: 500, output_tokens: 20 } }] });
    const prompts = promptStream();
    const q = query({ prompt: prompts, options: sdkOptions(dir, server, { permissionMode: "acceptEdits", enableFileCheckpointing: true }) });
    const uuid = "0b6f1c2e-3d4a-4b5c-8d6e-7f8091a2b3c4";
    prompts.push("change the files", uuid);
    for await (const m of q) {
      if (m.type !== "result") continue;
      expect((m as Record<string, unknown>).user_message_uuid).toBe(uuid);
      expect(fs.readFileSync(a, "utf8")).toBe("changed\n");
      const dry = await q.rewindFiles(uuid, { dryRun: true });
      expect(dry.canRewind).toBe(true);
      expect([...(dry.filesChanged ?? [])].sort()).toEqual([a, path.join(dir, "new.txt")]);
      expect(fs.readFileSync(a, "utf8")).toBe("changed\n");
      const done = await q.rewindFiles(uuid);
      expect(done.canRewind).toBe(true);
      expect(fs.readFileSync(a, "utf8")).toBe("original\n");
      expect(fs.existsSync(path.join(dir, "new.txt"))).toBe(false);
      expect((await q.rewindFiles("not-a-turn")).canRewind).toBe(false);
      expect(await q.mcpServerStatus()).toEqual([]);
      const usage = await q.getContextUsage();
      expect(usage.totalTokens).toBeGreaterThan(0);
      expect(usage.maxTokens).toBeGreaterThan(usage.totalTokens);
      prompts.end();
    }
  });

  it("outputFormat json_schema: the answer comes as structured_output; a reply without it is reminded", async () => {
    const dir = project();
    const schema = { type: "object", properties: { city: { type: "string" }, population: { type: "number" } }, required: ["city", "population"], additionalProperties: false };
    const server = await serve({
      turns: [
        text("Paris, about two million"),
        call("toolu_bad", "StructuredOutput", { city: "Paris" }),
        call("toolu_ok", "StructuredOutput", { city: "Paris", population: 2_100_000 }),
        text("done"),
      ],
    });
    const messages = await collect(query({ prompt: "the capital of France and its size", options: sdkOptions(dir, server, { outputFormat: { type: "json_schema", schema } }) }));
    const [result] = results(messages);
    expect(result).toMatchObject({ subtype: "success", structured_output: { city: "Paris", population: 2_100_000 } });
    // the reminder went to the model, and the schema mismatch came back as an error it could fix
    expect(sent(server, 1)).toContain("You ended your turn without calling StructuredOutput");
    const bad = toolResults(server, 2).find((r) => r.tool_use_id === "toolu_bad")!;
    expect(bad.is_error).toBe(true);
    expect(resultText(bad)).toContain("population");
  });

  it("maxBudgetUsd stops the run once the estimated cost reaches it (error_max_budget_usd)", async () => {
    const dir = project({ "n.txt": "n" });
    const expensive = { input_tokens: 1_000_000, output_tokens: 10 };
    const server = await serve({ turns: [{ ...call("toolu_1", "Read", { file_path: path.join(dir, "n.txt") }), usage: expensive }, { ...text("never"), usage: expensive }] });
    const messages: SDKMessage[] = [];
    await expect(
      (async () => {
        for await (const m of query({ prompt: "read", options: sdkOptions(dir, server, { maxBudgetUsd: 0.5, model: "claude-sonnet-4-5" }) })) messages.push(m);
      })(),
    ).rejects.toThrow(/error result/);
    const [result] = results(messages);
    expect(result).toMatchObject({ subtype: "error_max_budget_usd", is_error: true, terminal_reason: "budget_exhausted" });
    expect(result.total_cost_usd).toBeGreaterThanOrEqual(0.5);
    expect(server.requests()).toHaveLength(1);
  });

  it("sessionId names the session; persistSession: false writes nothing; forkSession continues under a new id", async () => {
    const dir = project();
    const server = await serve({ turns: [text("one"), text("two"), text("three")] });
    const id = "7d1f0e2a-5b3c-4d6e-9f80-1a2b3c4d5e6f";
    const first = await collect(query({ prompt: "first", options: sdkOptions(dir, server, { sessionId: id }) }));
    expect(results(first)[0].session_id).toBe(id);
    const projects = path.join(dir, ".home", "projects");
    const transcripts = () => fs.readdirSync(projects, { recursive: true }).filter((f) => String(f).endsWith(".jsonl")).map((f) => path.basename(String(f), ".jsonl"));
    expect(transcripts()).toEqual([id]);
    const forked = await collect(query({ prompt: "second", options: sdkOptions(dir, server, { resume: id, forkSession: true }) }));
    const forkId = results(forked)[0].session_id;
    expect(forkId).not.toBe(id);
    expect(sent(server, 1)).toContain("first");
    expect(transcripts().sort()).toEqual([id, forkId].sort());
    await collect(query({ prompt: "third", options: sdkOptions(dir, server, { persistSession: false }) }));
    expect(transcripts()).toHaveLength(2);
  });

  it("settings as an object, settingSources and tools reach the session", async () => {
    const dir = project({ "secret.txt": "s", "open.txt": "o" });
    fs.mkdirSync(path.join(dir, ".toolgate"));
    // the project's own settings would allow Bash; with settingSources [] they are not read
    fs.writeFileSync(path.join(dir, ".toolgate", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash"] } }));
    const server = await serve({ turns: [call("toolu_secret", "Read", { file_path: path.join(dir, "secret.txt") }), call("toolu_open", "Read", { file_path: path.join(dir, "open.txt") }), text("done")] });
    const messages = await collect(
      query({ prompt: "read both", options: sdkOptions(dir, server, { settings: { permissions: { deny: ["Read(secret.txt)"] } }, settingSources: [], tools: ["Read", "Glob"], extraArgs: { trust: null } }) }),
    );
    const init = messages.find((m) => m.type === "system" && m.subtype === "init") as Extract<SDKMessage, { subtype: "init" }>;
    expect(init.tools).toEqual(["Glob", "Read"].filter((t) => init.tools.includes(t)));
    expect(init.tools.sort()).toEqual(["Glob", "Read"]);
    const [secret, open] = [toolResults(server, 2).find((r) => r.tool_use_id === "toolu_secret")!, toolResults(server, 2).find((r) => r.tool_use_id === "toolu_open")!];
    expect(secret.is_error).toBe(true);
    expect(open.is_error).toBeFalsy();
  });
});

/** Every flag the SDK (0.3.336) can write, with a value; each alone must launch and answer a prompt. */
const SDK_FLAGS: string[][] = [
  ["--thinking=adaptive"],
  ["--thinking=disabled"],
  ["--max-thinking-tokens=2048"],
  ["--thinking-display=summarized"],
  ["--effort=high"],
  ["--max-turns=3"],
  ["--max-budget-usd=5"],
  ["--task-budget=1000"],
  ["--model=claude-sonnet-4-5"],
  ["--agent=general-purpose"],
  ["--betas=context-1m-2025-08-07"],
  ["--json-schema={\"type\":\"object\"}"],
  ["--debug-file=DIR/debug.log"],
  ["--debug"],
  ["--debug-to-stderr"],
  ["--permission-prompt-tool=stdio"],
  ["--permission-prompts=host"],
  ["--continue"],
  ["--channels=updates"],
  ["--allowedTools=Read,Glob"],
  ["--disallowedTools=Bash"],
  ["--tools=Read,Glob"],
  ["--tools=default"],
  ["--mcp-config", "{\"mcpServers\":{}}"],
  ["--setting-sources=user,project,local"],
  ["--strict-mcp-config"],
  ["--permission-mode=acceptEdits"],
  ["--allow-dangerously-skip-permissions"],
  ["--fallback-model=claude-haiku-4-5"],
  ["--include-hook-events"],
  ["--include-partial-messages"],
  ["--session-mirror"],
  ["--project-config-root=DIR"],
  ["--add-dir=DIR"],
  ["--plugin-dir=DIR"],
  ["--plugin-dir-no-mcp=DIR"],
  ["--fork-session", "--continue"],
  ["--resume-session-at=0b6f1c2e-3d4a-4b5c-8d6e-7f8091a2b3c4", "--continue"],
  ["--resume-drops-turn=true", "--continue"],
  ["--session-id=5e0c3f4b-1a2d-4e6f-8a9b-0c1d2e3f4a5b"],
  ["--no-session-persistence"],
  ["--managed-settings", "{\"permissions\":{\"deny\":[\"WebFetch\"]}}"],
  ["--settings={\"permissions\":{\"ask\":[\"Bash(rm:*)\"]}}"],
];

describe("every argv flag the Agent SDK writes", () => {
  it("the list covers every flag in the SDK's own source", () => {
    const source = fs.readFileSync(path.join(repoRoot, "node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs"), "utf8");
    const written = new Set([...source.matchAll(/"(--[a-z][a-z-]+)"/g)].map((m) => m[1]));
    // git's own flags (the SDK runs git for some helpers), and ones that need a context of their own
    const notOurs = new Set(["--no-optional-locks", "--porcelain", "--untracked-files", "--ignore-submodules", "--hard-fail", "--sdk-url", "--resume", "--output-format", "--input-format", "--verbose", "--await-initialize", "--initialize-fields", "--managed-settings-in-initialize", "--allowed", "--disallowed"]);
    const covered = new Set(SDK_FLAGS.flat().map((f) => f.split("=")[0]));
    expect([...written].filter((f) => !notOurs.has(f) && !covered.has(f))).toEqual([]);
  });

  it("each one alone is accepted: the run answers its prompt and exits 0", async () => {
    const dir = project();
    const server = await serve({ loop: true, turns: [text("ok")] });
    const env = sdkOptions(dir, server).env!;
    const failures: string[] = [];
    // one earlier session, for --continue and the flags that go with it
    await runOnce([], dir, env);
    for (const flags of SDK_FLAGS) {
      const args = flags.map((f) => f.replace("DIR", dir));
      const run = await runOnce(args, dir, env);
      if (run.code !== 0 || !run.result) failures.push(`${flags.join(" ")}: exit ${run.code}, ${run.stderr.trim().split("\n").at(-1)}`);
    }
    expect(failures).toEqual([]);
  });
});

/** One SDK-style launch (stream-json both ways, no -p) answering one user line. */
function runOnce(args: string[], dir: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string; result?: Record<string, unknown> }> {
  const child = spawn(process.execPath, [...cliArgs, "--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--cwd", dir, ...args], { cwd: dir, env: { ...env, ...cliEnv }, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d;
    if (stdout.includes('"type":"result"')) child.stdin.end();
  });
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  child.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: "hi" }, parent_tool_use_id: null, session_id: "" })}\n`);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      const result = stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.type === "result");
      resolve({ code, stderr, ...(result ? { result } : {}) });
    }),
  );
}
