import http from "node:http";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { ToolgateMcpServerFactory } from "./createServer.js";
import { ParamsGuardTransport } from "./paramsGuard.js";

export interface StdioServeOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Closes the connection (toolgate is stopping). */
  signal?: AbortSignal;
}

/** Serve one connection over stdio; resolves when stdin ends, the connection closes or `signal` aborts. */
export async function serveStdio(factory: ToolgateMcpServerFactory, options: StdioServeOptions = {}): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const server = factory.createServer();
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = ((previous) => () => {
      previous?.();
      resolve();
    })(server.onclose);
  });
  const onEnd = () => void server.close();
  stdin.once("end", onEnd);
  stdin.once("close", onEnd);
  options.signal?.addEventListener("abort", onEnd, { once: true });
  await server.connect(new ParamsGuardTransport(transport));
  if (options.signal?.aborted) onEnd();
  await closed;
  stdin.off("end", onEnd);
  stdin.off("close", onEnd);
  options.signal?.removeEventListener("abort", onEnd);
}

export interface HttpServeOptions {
  /** 0 picks a free port. */
  port: number;
  /** A session with no request for this long is closed (its toolgate session and processes too). */
  idleTimeoutMs?: number;
  /** Most sessions open at once; a new one evicts the least recently used idle session. */
  maxSessions?: number;
}

export const DEFAULT_HTTP_IDLE_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_HTTP_MAX_SESSIONS = 64;
/** How often idle sessions are looked for, at most. */
const MAX_SWEEP_INTERVAL_MS = 60_000;

export interface HttpServeHandle {
  port: number;
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  /** Sessions open now. */
  sessionCount(): number;
  close(): Promise<void>;
}

interface HttpSession {
  transport: StreamableHTTPServerTransport;
  lastActive: number;
  /** POST and DELETE requests still being answered; a busy session (a call running) is never evicted. */
  busy: number;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const MCP_HTTP_PATH = "/mcp";

function sendJsonError(res: http.ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

function readBody(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error("request body too large"));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        reject(new SyntaxError("invalid JSON"));
      }
    });
    req.on("error", reject);
  });
}

/**
 * Streamable HTTP on 127.0.0.1 only, one MCP session (and toolgate session) per `mcp-session-id`.
 * Host and Origin must name the loopback address, so a web page cannot reach the server by DNS rebinding.
 * Clients that go away without a DELETE would leave their sessions (and processes) forever: idle sessions
 * are closed after `idleTimeoutMs`, and at most `maxSessions` are kept.
 */
export async function serveHttp(factory: ToolgateMcpServerFactory, options: HttpServeOptions): Promise<HttpServeHandle> {
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_HTTP_IDLE_TIMEOUT_MS;
  const maxSessions = options.maxSessions ?? DEFAULT_HTTP_MAX_SESSIONS;
  const sessions = new Map<string, HttpSession>();
  let port = options.port;

  const evict = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    void session.transport.close().catch(() => undefined);
  };
  const sweep = () => {
    const now = Date.now();
    for (const [id, session] of sessions) if (session.busy === 0 && now - session.lastActive >= idleTimeoutMs) evict(id);
  };
  const sweeper = setInterval(sweep, Math.max(1, Math.min(idleTimeoutMs / 4, MAX_SWEEP_INTERVAL_MS)));
  sweeper.unref();
  /** Room for one more session: evicts the least recently used idle one when full; false when every one is busy. */
  const makeRoom = (): boolean => {
    if (sessions.size < maxSessions) return true;
    let oldest: [string, HttpSession] | undefined;
    for (const entry of sessions) if (entry[1].busy === 0 && (!oldest || entry[1].lastActive < oldest[1].lastActive)) oldest = entry;
    if (!oldest) return false;
    evict(oldest[0]);
    return true;
  };
  /** Counts a request as activity, and as keeping the session busy until it is answered. */
  const track = (session: HttpSession, res: http.ServerResponse) => {
    session.busy++;
    session.lastActive = Date.now();
    res.once("close", () => {
      session.busy--;
      session.lastActive = Date.now();
    });
  };

  const allowedHost = (host: string | undefined) => host === `127.0.0.1:${port}` || host === `localhost:${port}`;
  const allowedOrigin = (origin: string | undefined) => origin === undefined || origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!allowedHost(req.headers.host) || !allowedOrigin(req.headers.origin)) {
      sendJsonError(res, 403, -32000, "Forbidden: toolgate's MCP server only accepts requests addressed to the loopback interface");
      return;
    }
    if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== MCP_HTTP_PATH) {
      sendJsonError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}`);
      return;
    }
    const sessionId = req.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (req.method !== "POST") {
      if (!existing) return sendJsonError(res, 404, -32001, "Session not found");
      // A GET is the client's open stream for server messages: it shows the client is there, but is not a call.
      if (req.method === "GET") existing.lastActive = Date.now();
      else track(existing, res);
      await existing.transport.handleRequest(req, res);
      return;
    }
    let body: unknown;
    try {
      body = await readBody(req);
    } catch (err) {
      return sendJsonError(res, err instanceof SyntaxError ? 400 : 413, -32700, (err as Error).message);
    }
    if (existing) {
      track(existing, res);
      await existing.transport.handleRequest(req, res, body);
      return;
    }
    if (sessionId !== undefined) return sendJsonError(res, 404, -32001, "Session not found");
    if (!isInitializeRequest(body)) return sendJsonError(res, 400, -32000, "Bad Request: the first request of a session must be initialize");
    if (!makeRoom()) {
      return sendJsonError(res, 503, -32000, `Too many sessions: all ${maxSessions} are running calls (toolgate mcp serve --http-max-sessions); try again later`);
    }

    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, lastActive: Date.now(), busy: 0 });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = factory.createServer();
    await server.connect(new ParamsGuardTransport(transport));
    await transport.handleRequest(req, res, body);
  };

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJsonError(res, 500, -32603, `Internal error: ${err instanceof Error ? err.message : String(err)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(options.port, "127.0.0.1", () => {
      httpServer.off("error", reject);
      resolve();
    });
  });
  port = (httpServer.address() as AddressInfo).port;

  return {
    port,
    url: `http://127.0.0.1:${port}${MCP_HTTP_PATH}`,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      sessions.clear();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
