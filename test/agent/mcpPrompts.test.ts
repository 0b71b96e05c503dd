/**
 * `toolgate -p "/mcp__server__prompt args"` with a real MCP server (server-everything over stdio) and the
 * scripted model server: the model is sent what the server's prompt returns, the init line lists the prompt
 * as a slash command and the resource tools as tools, and a missing argument stops the run before any request.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "../../scripts/fake-model.mjs";
import { cliArgs, cliEnv, repoRoot } from "../cliCommand.js";

const require = createRequire(import.meta.url);
const everythingServer = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");
const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: repoRoot, env: { ...env, ...cliEnv }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

async function setup() {
  const server = await startFakeModelServer({ script: { turns: [{ content: [{ type: "text", text: "Sunny." }] }] } });
  servers.push(server);
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-mcp-prompt-")));
  const home = path.join(dir, ".home");
  fs.mkdirSync(home);
  const env = { ...process.env, TOOLGATE_HOME: home, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url, OPENAI_API_KEY: "", TOOLGATE_PROVIDER: "" };
  const mcpConfig = JSON.stringify({ mcpServers: { every: { command: process.execPath, args: [everythingServer, "stdio"] } } });
  return { server, dir, env, base: ["--cwd", dir, "--no-sandbox", "--mcp-config", mcpConfig] };
}

describe("MCP prompts in -p", () => {
  it("sends the prompt the server returns, and the init line lists the command and the resource tools", async () => {
    const { server, env, base } = await setup();
    const result = await run(["-p", '/mcp__every__args-prompt "New York" NY', "--output-format", "stream-json", "--verbose", ...base], env);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const init = lines.find((l) => l.type === "system" && l.subtype === "init");
    expect(init.slash_commands).toContain("mcp__every__args-prompt");
    expect(init.tools).toEqual(expect.arrayContaining(["ListMcpResourcesTool", "ReadMcpResourceTool"]));
    const [request] = server.requests();
    const sent = JSON.stringify((request.body as { messages: unknown[] }).messages.at(-1));
    expect(sent).toContain("What's weather in New York, NY?");
    expect(sent).not.toContain("mcp__every__args-prompt");
  });

  it("a missing required argument fails the run with the usage and sends nothing", async () => {
    const { server, env, base } = await setup();
    const result = await run(["-p", "/mcp__every__args-prompt", ...base], env);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("/mcp__every__args-prompt needs <city>: usage /mcp__every__args-prompt <city> [state]");
    expect(server.requests()).toHaveLength(0);
  });
});
