/**
 * WebFetch and WebSearch through the built CLI (`npm run build` first): the bundle loads the HTML converters
 * lazily, `exec` answers without a model, and `-p` lets the small model answer over the page.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "../../../scripts/fake-model.mjs";
import { tempDir } from "../../helpers.js";
import { withoutSandboxNotice } from "../../cliCommand.js";
import { startServer } from "./helpers.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const builtCli = path.join(repoRoot, "dist/cli/main.js");

const models: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(models.splice(0).map((m) => m.close()));
});

const PAGE = "<html><body><h1>Release 2.0</h1><table><tr><th>flag</th><th>default</th></tr><tr><td>--jobs</td><td>4</td></tr></table></body></html>";

/** Runs the CLI without blocking this process, so the test's HTTP server keeps answering. */
function toolgate(args: string[], env: NodeJS.ProcessEnv, stdin = ""): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [builtCli, ...args], { cwd: repoRoot, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

function cleanEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TOOLGATE_HOME: home,
    TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"),
    ANTHROPIC_API_KEY: "",
    ANTHROPIC_BASE_URL: "",
    OPENAI_API_KEY: "",
    OPENAI_BASE_URL: "",
    TOOLGATE_PROVIDER: "",
    ...extra,
  };
}

describe("WebFetch through the CLI", () => {
  it("exec returns the page as markdown with a table, and refuses without a rule", async () => {
    const web = await startServer({ "/": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(PAGE) });
    const home = tempDir("tg-web-home-");
    const input = [
      { type: "tool_use", id: "w1", name: "WebFetch", input: { url: `${web.url}/`, prompt: "What is the default of --jobs?" } },
      { type: "tool_use", id: "w2", name: "WebFetch", input: { url: `http://localhost:${web.port}/`, prompt: "p" } },
    ]
      .map((line) => JSON.stringify(line))
      .join("\n");
    const run = await toolgate(["exec", "--cwd", tempDir("tg-web-cwd-"), "--allowedTools", "WebFetch(domain:127.0.0.1)"], cleanEnv(home), input);
    expect(run.code).toBe(0);
    const [first, second] = run.stdout.trim().split("\n").map((line) => JSON.parse(line).content[0]);
    expect(first.is_error).toBeUndefined();
    expect(first.content).toContain("| flag | default |");
    expect(first.content).toContain("| --jobs | 4 |");
    expect(second.is_error).toBe(true);
    expect(second.content).toContain('--allowedTools "WebFetch(domain:localhost)"');
    expect(web.hits.get("/")).toBe(1);
  });

  it("https to a name: the connection goes to the checked address, TLS still names the host (SNI, certificate, Host)", async () => {
    const fixtures = path.join(repoRoot, "test/tools/WebFetch/fixtures");
    const seen: Array<{ servername: string | false | null; host: string | undefined }> = [];
    const server = https.createServer({ cert: fs.readFileSync(path.join(fixtures, "test-tls.crt")), key: fs.readFileSync(path.join(fixtures, "test-tls.key")) }, (req, res) => {
      seen.push({ servername: (req.socket as TLSSocket).servername, host: req.headers.host });
      res.writeHead(200, { "content-type": "text/plain" }).end("served over TLS");
    });
    const sockets = new Set<Socket>();
    server.on("connection", (socket: Socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const line = (id: string) => JSON.stringify({ type: "tool_use", id, name: "WebFetch", input: { url: `https://localhost:${port}/${id}`, prompt: "p" } });
      const env = cleanEnv(tempDir("tg-web-home-"), { NODE_EXTRA_CA_CERTS: path.join(fixtures, "test-tls.crt"), HTTPS_PROXY: "", HTTP_PROXY: "" });
      const nameOnly = await toolgate(["exec", "--cwd", tempDir("tg-web-cwd-"), "--allowedTools", "WebFetch(domain:localhost)"], env, `${line("a")}\n`);
      const refused = JSON.parse(nameOnly.stdout.trim()).content[0];
      expect(refused.is_error).toBe(true);
      expect(refused.content).toContain("a loopback address");
      expect(seen).toEqual([]);
      const rules = ["--allowedTools", "WebFetch(domain:localhost)", "--allowedTools", "WebFetch(domain:127.0.0.1)", "--allowedTools", "WebFetch(domain:[::1])"];
      const run = await toolgate(["exec", "--cwd", tempDir("tg-web-cwd-"), ...rules], env, `${line("b")}\n`);
      const result = JSON.parse(run.stdout.trim()).content[0];
      expect(result.is_error).toBeUndefined();
      expect(result.content).toContain("served over TLS");
      expect(seen).toEqual([{ servername: "localhost", host: `localhost:${port}` }]);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("-p: the small model answers over the page; WebSearch is not offered without a backend", async () => {
    const web = await startServer({ "/": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(PAGE) });
    const model = await startFakeModelServer({
      script: {
        turns: [
          { content: [{ type: "tool_use", id: "toolu_f", name: "WebFetch", input: { url: `${web.url}/`, prompt: "What is the default of --jobs?" } }] },
          { content: [{ type: "text", text: "The page says --jobs defaults to 4." }] },
          { content: [{ type: "text", text: "It defaults to 4." }] },
        ],
      },
    });
    models.push(model);
    const home = tempDir("tg-web-home-");
    const env = cleanEnv(home, { TOOLGATE_PROVIDER: "openai", OPENAI_API_KEY: "test", OPENAI_BASE_URL: `${model.url}/v1` });
    const run = await toolgate(["-p", "What is the default of --jobs?", "--cwd", tempDir("tg-web-cwd-"), "--allowedTools", "WebFetch(domain:127.0.0.1)"], env);
    expect(withoutSandboxNotice(run.stderr)).toBe("");
    expect(run.stdout.trim()).toBe("It defaults to 4.");
    const [first, ask, last] = model.requests();
    const offered = (first.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(offered).toContain("WebFetch");
    expect(offered).not.toContain("WebSearch");
    expect(JSON.stringify(ask.body.messages)).toContain("| --jobs | 4 |");
    expect(JSON.stringify(ask.body.messages)).toContain("What is the default of --jobs?");
    expect(JSON.stringify(last.body.messages)).toContain("The page says --jobs defaults to 4.");
  });

  it("-p with Anthropic: WebSearch runs the server-side search and the model gets the results", async () => {
    const searchBody = {
      id: "msg_s",
      type: "message",
      role: "assistant",
      model: "claude-haiku-4-5",
      stop_reason: "end_turn",
      usage: { input_tokens: 10, output_tokens: 5 },
      content: [
        { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "node 20" } },
        { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [{ type: "web_search_result", title: "Node 20 notes", url: "https://nodejs.org/v20", encrypted_content: "e", page_age: null }] },
      ],
    };
    const model = await startFakeModelServer({
      script: {
        turns: [
          { content: [{ type: "tool_use", id: "toolu_s", name: "WebSearch", input: { query: "node 20" } }] },
          { status: 200, body: searchBody },
          { content: [{ type: "text", text: "Found it." }] },
        ],
      },
    });
    models.push(model);
    const env = cleanEnv(tempDir("tg-web-home-"), { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: model.url });
    const run = await toolgate(["-p", "search node 20", "--cwd", tempDir("tg-web-cwd-"), "--allowedTools", "WebSearch"], env);
    expect(run.stdout.trim()).toBe("Found it.");
    const [first, search, last] = model.requests();
    expect((first.body.tools as Array<{ name: string }>).map((t) => t.name)).toContain("WebSearch");
    expect(search.body.tools[0].type).toBe("web_search_20250305");
    expect(JSON.stringify(last.body.messages)).toContain("1. Node 20 notes\\n   https://nodejs.org/v20");
  });
});
