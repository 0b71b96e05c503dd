/**
 * HTTPS_PROXY / HTTP_PROXY: requests leaving the machine go through a real proxy (a CONNECT proxy on loopback
 * that maps test host names to local servers); loopback and NO_PROXY hosts go direct. The model providers and
 * WebFetch (through the built CLI) use it.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createProxyFetch, isLoopbackHost, proxySettings } from "../../src/util/proxyFetch.js";
import { createAnthropicProvider, createOpenAIProvider } from "../../src/providers/index.js";
import { cliArgs, cliEnv, repoRoot } from "../cliCommand.js";
import { approveAll, tempDir, testContext } from "../helpers.js";
import { connectMcpServers } from "../../src/mcp/client/manager.js";
import { resultText, runOne, startEverythingHttp } from "../mcp/helpers.js";
import { collect, FAST_RETRY, serve } from "../providers/support.js";

interface Proxy {
  url: string;
  log: string[];
  close(): Promise<void>;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** A CONNECT proxy: `routes` maps "host:port" to a loopback port; anything else gets 403. */
async function startProxy(routes: Record<string, number>): Promise<Proxy> {
  const log: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    log.push(`${req.method} ${req.url}`);
    res.writeHead(501).end();
  });
  server.on("connect", (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    log.push(`CONNECT ${req.url}`);
    sockets.add(socket);
    const port = routes[req.url ?? ""];
    if (!port) {
      socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    const upstream = net.connect(port, "127.0.0.1", () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxy = {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  closers.push(proxy.close);
  return proxy;
}

async function startSite(body: string): Promise<number> {
  const server = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end(body));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

describe("proxy settings", () => {
  it("reads either case, needs a proxy variable, and knows loopback hosts", () => {
    expect(proxySettings({})).toBeUndefined();
    expect(proxySettings({ NO_PROXY: "x" })).toBeUndefined();
    expect(proxySettings({ https_proxy: "http://p:1", NO_PROXY: "a.test" })).toEqual({ httpsProxy: "http://p:1", noProxy: "a.test" });
    expect(proxySettings({ HTTP_PROXY: "http://p:2" })).toEqual({ httpProxy: "http://p:2" });
    for (const host of ["localhost", "api.localhost", "127.0.0.1", "127.8.9.10", "[::1]", "::1"]) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ["localhost.evil.test", "127.0.0.1.nip.io", "10.0.0.1", "example.com"]) expect(isLoopbackHost(host)).toBe(false);
  });
});

describe("fetch over the proxy", () => {
  it("a remote host goes through the proxy; loopback and NO_PROXY hosts do not", async () => {
    const port = await startSite("hello from the site");
    const proxy = await startProxy({ [`site.test:${port}`]: port });
    const send = await createProxyFetch({ httpProxy: proxy.url, noProxy: "direct.test" });
    expect(await (await send(`http://site.test:${port}/page`)).text()).toBe("hello from the site");
    expect(proxy.log).toEqual([`CONNECT site.test:${port}`]);
    expect(await (await send(`http://127.0.0.1:${port}/page`)).text()).toBe("hello from the site");
    // NO_PROXY: tried directly, and the name does not resolve
    await expect(send(`http://direct.test:${port}/page`)).rejects.toThrow();
    expect(proxy.log).toEqual([`CONNECT site.test:${port}`]);
  });

  it("both model providers reach a model server only the proxy can reach", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "via the proxy" }] }, { content: [{ type: "text", text: "again via the proxy" }] }] });
    const port = Number(new URL(server.url).port);
    const proxy = await startProxy({ [`models.test:${port}`]: port });
    vi.stubEnv("HTTPS_PROXY", proxy.url);
    vi.stubEnv("HTTP_PROXY", proxy.url);
    vi.stubEnv("NO_PROXY", "");
    const anthropic = createAnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "k", baseURL: `http://models.test:${port}`, retry: FAST_RETRY });
    const openai = createOpenAIProvider({ model: "gpt-4o", apiKey: "k", baseURL: `http://models.test:${port}/v1`, retry: FAST_RETRY });
    const request = { model: "m", system: "s", messages: [{ role: "user" as const, content: "hi" }], maxTokens: 100 };
    const text = (events: Awaited<ReturnType<typeof collect>>) => events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("");
    expect(text(await collect(anthropic.stream({ ...request, model: "claude-sonnet-4-5" })))).toBe("via the proxy");
    expect(text(await collect(openai.stream({ ...request, model: "gpt-4o" })))).toBe("again via the proxy");
    // models.test resolves nowhere: only the proxy could have reached the server (one tunnel, kept alive, serves both)
    expect(new Set(proxy.log)).toEqual(new Set([`CONNECT models.test:${port}`]));
  });

  for (const [type, mode, urlPath] of [
    ["http", "streamableHttp", "/mcp"],
    ["sse", "sse", "/sse"],
  ] as const) {
    it(`an MCP server over ${type} that only the proxy can reach connects, and its tool runs`, async () => {
      const server = await startEverythingHttp(mode);
      closers.push(() => server.stop());
      const proxy = await startProxy({ [`mcp.test:${server.port}`]: server.port });
      vi.stubEnv("HTTP_PROXY", proxy.url);
      vi.stubEnv("NO_PROXY", "");
      const manager = await connectMcpServers([{ name: "remote", source: "test", config: { type, url: `http://mcp.test:${server.port}${urlPath}`, headers: {} } }]);
      try {
        expect(manager.clients[0].error).toBeUndefined();
        expect(manager.clients[0].status).toBe("connected");
        const { result } = await runOne("mcp__remote__echo", { message: "through the proxy" }, testContext({ tools: manager.tools() }), approveAll);
        expect(resultText(result)).toBe("Echo: through the proxy");
        expect(proxy.log.length).toBeGreaterThan(0);
        expect(new Set(proxy.log)).toEqual(new Set([`CONNECT mcp.test:${server.port}`]));
      } finally {
        await manager.close();
      }
    });
  }

  it("WebFetch in the CLI goes through HTTPS_PROXY: the proxy is asked for the host, refuses it, and the result says the fetch failed", async () => {
    const proxy = await startProxy({});
    const cwd = tempDir("tg-proxy-");
    const home = tempDir("tg-proxy-home-");
    const line = JSON.stringify({ type: "tool_use", id: "fetch", name: "WebFetch", input: { url: "https://docs.example.test/guide", prompt: "summarise" } });
    // not spawnSync: the proxy answers from this process
    const child = spawn(process.execPath, [...cliArgs, "exec", "--cwd", cwd, "--allowedTools", "WebFetch(domain:docs.example.test)"], {
      cwd: repoRoot,
      env: { ...process.env, ...cliEnv, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"), HTTPS_PROXY: proxy.url.replace("http://", "http://me:s3cret@"), NO_PROXY: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stdin.end(`${line}\n`);
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(proxy.log).toEqual(["CONNECT docs.example.test:443"]);
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!).content[0];
    expect(result.is_error).toBe(true);
    const text = JSON.stringify(result.content);
    expect(text).toContain(`Could not fetch https://docs.example.test/guide through the proxy ${new URL(proxy.url).host}: `);
    // the proxy's credentials never reach the model
    expect(text).not.toContain("s3cret");
  });
});
