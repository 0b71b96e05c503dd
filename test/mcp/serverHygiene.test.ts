/**
 * toolgate's MCP server against clients that send malformed params or go away without closing their
 * session: real loopback HTTP (fetch and the SDK client), and stdio over real streams.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createToolgateMcpServer } from "../../src/mcp/server/createServer.js";
import { serveHttp, serveStdio, type HttpServeHandle } from "../../src/mcp/server/transports.js";
import { approveAll, tempDir, testContext } from "../helpers.js";
import { testTools } from "./fixtures/testTools.js";
import { repoRoot } from "./helpers.js";

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close().catch(() => undefined)));
});

/** A factory whose sessions are counted: how many were created and closed. */
function factory() {
  const counts = { created: 0, closed: 0 };
  const made = createToolgateMcpServer({
    tools: testTools,
    createSession: () => {
      counts.created++;
      return { context: testContext({ tools: testTools }), canUseTool: approveAll, close: () => void counts.closed++ };
    },
  });
  return { made, counts };
}

async function startHttp(options: { idleTimeoutMs?: number; maxSessions?: number } = {}) {
  const { made, counts } = factory();
  const handle = await serveHttp(made, { port: 0, ...options });
  open.push(() => handle.close());
  return { handle, counts };
}

async function client(handle: HttpServeHandle): Promise<Client> {
  const c = new Client({ name: "hygiene-test", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
  open.unshift(() => c.close());
  return c;
}

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

/** One JSON-RPC request by fetch; the reply from JSON or from the SSE `data:` line. */
async function post(url: string, body: unknown, sessionId?: string): Promise<{ status: number; sessionId: string | null; reply: any }> {
  const res = await fetch(url, { method: "POST", headers: { ...HEADERS, ...(sessionId && { "mcp-session-id": sessionId }) }, body: JSON.stringify(body) });
  const text = await res.text();
  const data = text.split("\n").find((l) => l.startsWith("data: "));
  return { status: res.status, sessionId: res.headers.get("mcp-session-id"), reply: text ? JSON.parse(data ? data.slice(6) : text) : undefined };
}

async function rawSession(url: string): Promise<string> {
  const init = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  expect(init.status).toBe(200);
  const id = init.sessionId!;
  await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, id);
  return id;
}

/** Not what the SDK's validator prints (a JSON array of issues over several lines). */
function expectClean(message: string) {
  expect(message).not.toContain("\n");
  expect(message).not.toMatch(/"code":|"path":|invalid_type/);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function waitUntil(check: () => boolean, deadlineMs = 10_000): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) return false;
    await sleep(20);
  }
  return true;
}

describe("mcp serve --http: malformed params", () => {
  it.each([
    ["null", null],
    ["an array", [1]],
    ["a string", "x"],
    ["a number", 5],
    ["a boolean", true],
  ])("tools/call with arguments %s is an isError result naming the tool", async (what, value) => {
    const { handle } = await startHttp();
    const session = await rawSession(handle.url);
    const { status, reply } = await post(handle.url, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "Greet", arguments: value } }, session);
    expect(status).toBe(200);
    expect(reply).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: `The arguments of Greet must be a JSON object (use {} for none); got ${what}.` }], isError: true },
    });
  });

  it.each([
    ["tools/call", { name: 42 }, "Invalid params for tools/call: params.name:"],
    ["tools/call", { arguments: {} }, "Invalid params for tools/call: params.name:"],
    ["tools/call", { name: ["Greet"], arguments: null }, "Invalid params for tools/call: params.name:"],
    ["tools/list", { cursor: 5 }, "Invalid params for tools/list: params.cursor:"],
    ["tools/call", {}, "Invalid params for tools/call: params.name:"],
  ])("%s with params %j is a one-line invalid-params error", async (method, params, start) => {
    const { handle } = await startHttp();
    const session = await rawSession(handle.url);
    const { reply } = await post(handle.url, { jsonrpc: "2.0", id: 3, method, params }, session);
    expect(reply.id).toBe(3);
    expect(reply.error.code).toBe(-32602);
    expect(reply.error.message.startsWith(start)).toBe(true);
    expectClean(reply.error.message);
  });

  it.each([
    ["tools/call", { name: "Greet", arguments: {}, _meta: { progressToken: { a: 1 } } }],
    ["ping", { _meta: "x" }],
    ["tools/call", null],
  ])("%s with params %j, refused by the transport itself, is a one-line error too", async (method, params) => {
    const { handle } = await startHttp();
    const session = await rawSession(handle.url);
    const { reply } = await post(handle.url, { jsonrpc: "2.0", id: 3, method, params }, session);
    expect(reply.error.code).toBeLessThan(0);
    expectClean(reply.error.message);
  });

  it("the session still works after malformed calls, and a correct call runs", async () => {
    const { handle } = await startHttp();
    const session = await rawSession(handle.url);
    await post(handle.url, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "Greet", arguments: null } }, session);
    await post(handle.url, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: 7 } }, session);
    const ok = await post(handle.url, { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "Greet", arguments: { name: "again" } } }, session);
    expect(ok.reply.result).toEqual({ content: [{ type: "text", text: "Hello, again!" }] });
  });

  it("arguments that are an object but wrong for the tool are the tool's own validation error", async () => {
    const { handle } = await startHttp();
    const session = await rawSession(handle.url);
    const { reply } = await post(handle.url, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "Greet", arguments: { name: 5 } } }, session);
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0].text).toContain("Greet was called with invalid input");
  });
});

describe("mcp serve (stdio): malformed params", () => {
  it("arguments null is an isError result, a bad name an invalid-params error", async () => {
    const { made } = factory();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const replies: any[] = [];
    let buffered = "";
    stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      replies.push(...lines.filter(Boolean).map((l) => JSON.parse(l)));
    });
    const served = serveStdio(made, { stdin, stdout });
    const send = (message: unknown) => stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "Greet", arguments: null } });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: null, arguments: {} } });
    expect(await waitUntil(() => replies.length === 3)).toBe(true);
    stdin.end();
    await served;

    const byId = (id: number) => replies.find((r) => r.id === id);
    expect(byId(2)).toMatchObject({ id: 2, result: { isError: true, content: [{ type: "text", text: expect.stringContaining("got null") }] } });
    expect(byId(3)).toMatchObject({ id: 3, error: { code: -32602 } });
    expectClean(byId(3).error.message);
  });
});

describe("mcp serve --http: sessions clients leave open", () => {
  it("an idle session is closed after the idle timeout, its toolgate session too; its id is then unknown", async () => {
    const { handle, counts } = await startHttp({ idleTimeoutMs: 300 });
    const c = await client(handle);
    const result = (await c.callTool({ name: "Greet", arguments: { name: "idle" } })) as CallToolResult;
    expect(result.content).toEqual([{ type: "text", text: "Hello, idle!" }]);
    expect(handle.sessionCount()).toBe(1);

    expect(await waitUntil(() => handle.sessionCount() === 0)).toBe(true);
    expect(await waitUntil(() => counts.closed === 1)).toBe(true);
    await expect(c.callTool({ name: "Greet", arguments: { name: "again" } })).rejects.toThrow(/404|Session not found/);
  });

  it("a session running a call longer than the idle timeout is not evicted during the call", async () => {
    const { handle, counts } = await startHttp({ idleTimeoutMs: 200 });
    const c = await client(handle);
    const marker = path.join(tempDir("tg-hyg-"), "wait.marker");
    const result = (await c.callTool({ name: "Wait", arguments: { ms: 1_500, marker } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(fs.readFileSync(marker, "utf8")).toBe("finished");
    expect(counts.closed).toBe(0);
    expect(await waitUntil(() => handle.sessionCount() === 0)).toBe(true);
  });

  it("at the cap, a new session evicts the least recently used idle one", async () => {
    const { handle, counts } = await startHttp({ maxSessions: 2 });
    const first = await client(handle);
    const second = await client(handle);
    await first.callTool({ name: "Greet", arguments: { name: "one" } });
    await second.callTool({ name: "Greet", arguments: { name: "two" } });
    // first was used before second: it is the one evicted
    const third = await client(handle);
    expect(handle.sessionCount()).toBe(2);
    await expect(first.callTool({ name: "Greet", arguments: { name: "one" } })).rejects.toThrow(/404|Session not found/);
    expect(((await second.callTool({ name: "Greet", arguments: { name: "two" } })) as CallToolResult).content).toEqual([{ type: "text", text: "Hello, two!" }]);
    expect(((await third.callTool({ name: "Greet", arguments: { name: "three" } })) as CallToolResult).content).toEqual([{ type: "text", text: "Hello, three!" }]);
    expect(await waitUntil(() => counts.closed === 1)).toBe(true);
  });

  it("at the cap with every session running a call, a new session is refused with 503, not evicting a call", async () => {
    const { handle } = await startHttp({ maxSessions: 1 });
    const busy = await client(handle);
    const marker = path.join(tempDir("tg-hyg-"), "wait.marker");
    const running = busy.callTool({ name: "Wait", arguments: { ms: 2_000, marker } });
    expect(await waitUntil(() => fs.existsSync(path.dirname(marker)) && handle.sessionCount() === 1)).toBe(true);
    await sleep(100);

    const refused = await post(handle.url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "late", version: "1" } } });
    expect(refused.status).toBe(503);
    expect(refused.reply.error.message).toContain("Too many sessions: all 1 are running calls");
    expect(((await running) as CallToolResult).isError).toBeFalsy();
    expect(fs.readFileSync(marker, "utf8")).toBe("finished");
  });
});

describe("mcp serve flags", () => {
  it.each([
    ["--http-idle-timeout", "0"],
    ["--http-idle-timeout", "soon"],
    ["--http-max-sessions", "-3"],
    ["--http-max-sessions", "1.5"],
  ])("%s %s is a one-line usage error", (flag, value) => {
    const home = tempDir("tg-hyg-home-");
    const run = spawnSync(process.execPath, ["--import", "tsx", path.join(repoRoot, "src/cli/main.ts"), "mcp", "serve", "--http", "0", `${flag}=${value}`], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
      timeout: 60_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`toolgate: ${flag} needs a whole number of at least 1, got ${JSON.stringify(value)}\n`);
  });
});
