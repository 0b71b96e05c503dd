import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { withoutCredentials } from "../../util/childEnv.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type GetPromptResult,
  type Implementation,
  type Prompt as McpPromptDefinition,
  type ReadResourceResult,
  type Resource as McpResourceDefinition,
  type Tool as McpToolDefinition,
} from "@modelcontextprotocol/sdk/types.js";
import type { AnyObject, AnyTool, McpClientInfo } from "../../core/Tool.js";
import { TelemetrySafeError, isAbortError } from "../../core/errors.js";
import type { McpServerConfig, ScopedMcpServerConfig } from "./config.js";
import { ToolgateStdioClientTransport, describeExit } from "./stdioTransport.js";
import { createMcpTool, type McpCallOptions } from "./mcpTool.js";
import { OrderedTransport } from "./orderedTransport.js";
import { environmentFetchOption } from "../../util/proxyFetch.js";
import { UnauthorizedError, auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { McpNeedsLoginError, createLoginProvider, createStoredLoginProvider, needsLoginMessage, type McpLoginPrompt, type ToolgateOAuthProvider } from "./oauth.js";
import { openMcpOAuthStore } from "./oauthStore.js";

export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 30_000;
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 10 * 60_000;

export type McpServerStatus = "pending" | "connected" | "failed" | "needs-auth" | "disconnected" | "closed";

/** OAuth for http and sse servers (docs/mcp.md, "Servers that need a login"). */
export interface McpOAuthOptions {
  /** toolgate's home: logins are kept in its mcp-oauth.json (0600). */
  home: string;
  /**
   * Given, a server that asks for a login gets one now: the address is shown through `onAuthorizationUrl` and the
   * connection waits (up to `timeoutMs`) for the browser to come back. Without it such a server is "needs-auth".
   */
  login?: { onAuthorizationUrl(prompt: McpLoginPrompt): void; timeoutMs?: number; signal?: AbortSignal };
}

export interface McpConnectionOptions {
  connectTimeoutMs?: number;
  callTimeoutMs?: number;
  /** Base environment of stdio servers; the entry's own `env` is laid over it. Default process.env. */
  env?: NodeJS.ProcessEnv;
  clientInfo?: Implementation;
  /** The server's tool list changed (list_changed notification, or a reconnect). */
  onToolsChanged?: (serverName: string) => void;
  /** The server's resource or prompt list changed (list_changed notification, or a reconnect). */
  onCatalogChanged?: (serverName: string) => void;
  /** Wraps a stdio server's command line in the session's OS sandbox (entries with `"sandbox": true`). */
  sandboxWrap?: (commandLine: string, serverName: string) => Promise<{ command: string; finish(): unknown }>;
  oauth?: McpOAuthOptions;
}

/** One configured server: its live connection, its tools as toolgate tools, and why it is down when it is. */
export interface McpServerConnection extends McpClientInfo {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly source: string;
  readonly status: McpServerStatus;
  readonly error?: string;
  readonly serverInfo?: Implementation;
  readonly instructions?: string;
  readonly toolDefinitions: readonly McpToolDefinition[];
  readonly tools: readonly AnyTool[];
  readonly toolCount: number;
  /** Process id of a stdio server while it runs. */
  readonly pid?: number;
  /** (Re)connect and list the tools. Never throws: failures land in `status` and `error`. */
  connect(): Promise<void>;
  /** Fetch the tool list again (what a list_changed notification triggers). */
  refreshTools(): Promise<void>;
  callTool(toolName: string, args: AnyObject, options: McpCallOptions): Promise<CallToolResult>;
  /** The server's resources as last listed (empty when it offers none). */
  readonly resources: readonly McpResourceDefinition[];
  /** The server's prompts as last listed (empty when it offers none). */
  readonly prompts: readonly McpPromptDefinition[];
  /** Fetch the resource and prompt lists again (what their list_changed notifications trigger). */
  refreshCatalog(): Promise<void>;
  readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult>;
  getPrompt(promptName: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult>;
  close(): Promise<void>;
}

/** The server went away during or before a call; the model is told, and the next call reconnects. */
export class McpServerUnavailableError extends TelemetrySafeError {
  constructor(message: string) {
    super(message, "MCP server unavailable");
    this.name = "McpServerUnavailableError";
  }
}

export class McpToolCallError extends TelemetrySafeError {
  constructor(message: string, telemetry: string) {
    super(message, telemetry);
    this.name = "McpToolCallError";
  }
}

function createTransport(name: string, config: McpServerConfig, options: McpConnectionOptions, authProvider?: ToolgateOAuthProvider): Transport {
  switch (config.type) {
    case "stdio": {
      const sandboxWrap = options.sandboxWrap;
      // fail closed: a server that asked for the sandbox never starts without it
      const wrap = !config.sandbox
        ? undefined
        : sandboxWrap
          ? (commandLine: string) => sandboxWrap(commandLine, name)
          : () => Promise.reject(new Error('the entry asks for "sandbox": true, and the OS sandbox is not available in this session'));
      return new ToolgateStdioClientTransport({
        command: config.command,
        args: config.args,
        // the entry's own env may name a credential; the inherited one never carries it
        env: { ...withoutCredentials(options.env ?? process.env), ...config.env },
        cwd: config.cwd,
        ...(wrap && { wrap }),
      });
    }
    case "http": {
      const viaProxy = environmentFetchOption();
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, authProvider, ...(viaProxy ? { fetch: viaProxy } : {}) });
    }
    case "sse": {
      const viaProxy = environmentFetchOption();
      return new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, authProvider, ...(viaProxy ? { fetch: viaProxy } : {}) });
    }
    case "sdk":
      return config.transport();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A fresh signal that follows `signal`, for one request: the SDK never removes the abort listener it adds to a
 * request's signal, so a long-lived one would collect a listener per request. Call `release` when it is done.
 */
function requestSignal(signal: AbortSignal): { signal: AbortSignal; release(): void } {
  const requestAbort = new AbortController();
  const forwardAbort = () => requestAbort.abort(signal.reason);
  if (signal.aborted) forwardAbort();
  else signal.addEventListener("abort", forwardAbort, { once: true });
  return { signal: requestAbort.signal, release: () => signal.removeEventListener("abort", forwardAbort) };
}

function lastLines(text: string, count = 3): string {
  return text.trim().split(/\r?\n/).slice(-count).join("\n");
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * fetch reports every network failure as "fetch failed" and keeps the reason in `cause` (an errno error,
 * or an AggregateError when several addresses were tried): that reason replaces the bare "fetch failed",
 * e.g. "connect ECONNREFUSED 127.0.0.1:8080" or "getaddrinfo ENOTFOUND mcp.example.com".
 */
export function describeNetworkError(err: unknown): string {
  const message = errorMessage(err);
  const reasons: string[] = [];
  let cause = err instanceof Error ? err.cause : undefined;
  for (let depth = 0; cause !== undefined && depth < 5; depth++) {
    const inner = cause instanceof AggregateError && cause.errors.length ? cause.errors[0] : cause;
    const text = inner instanceof Error ? inner.message || String((inner as NodeJS.ErrnoException).code ?? "") : String(inner);
    if (text && !message.includes(text) && !reasons.includes(text)) reasons.push(text);
    cause = inner instanceof Error ? inner.cause : undefined;
  }
  if (reasons.length === 0) return message;
  return message === "fetch failed" ? reasons.join(": ") : `${message} (${reasons.join(": ")})`;
}

/** The server's address without credentials or query (tokens often travel there). */
function addressOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}

export function createMcpServerConnection(scoped: ScopedMcpServerConfig, options: McpConnectionOptions = {}): McpServerConnection {
  const { name, config } = scoped;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS;
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
  const clientInfo = options.clientInfo ?? { name: "toolgate", version: "0.1.0" };

  let status: McpServerStatus = "pending";
  let error: string | undefined;
  let client: Client | undefined;
  let transport: Transport | undefined;
  let serverInfo: Implementation | undefined;
  let instructions: string | undefined;
  let definitions: McpToolDefinition[] = [];
  let tools: AnyTool[] = [];
  let resources: McpResourceDefinition[] = [];
  let prompts: McpPromptDefinition[] = [];
  let connecting: Promise<void> | undefined;
  let shutDown = false;

  /** How the stdio process ended ("was killed by signal SIGKILL"). */
  const howItEnded = (t: Transport | undefined): string => (t instanceof ToolgateStdioClientTransport ? describeExit(t.exit) : "closed the connection");
  /** " Its last stderr output: …" when the process wrote any. */
  const stderrNote = (t: Transport | undefined): string => {
    const tail = t instanceof ToolgateStdioClientTransport ? lastLines(t.stderrTail) : "";
    return tail ? ` Its last stderr output:\n${tail}` : "";
  };

  const setTools = (next: McpToolDefinition[]) => {
    definitions = next;
    tools = next.map((definition) =>
      createMcpTool({ serverName: name, definition, alwaysLoad: config.alwaysLoad, callTool: (tool, args, o) => connection.callTool(tool, args, o) }),
    );
    options.onToolsChanged?.(name);
  };

  const listAllTools = async (c: Client): Promise<McpToolDefinition[]> => {
    if (!c.getServerCapabilities()?.tools) return [];
    const all: McpToolDefinition[] = [];
    let cursor: string | undefined;
    do {
      const page = await c.listTools(cursor ? { cursor } : undefined, { timeout: connectTimeoutMs });
      all.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  };

  /** Every page of a paginated list, or nothing when the server lacks the capability. */
  const listPages = async <T>(
    offered: boolean,
    page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>,
  ): Promise<T[]> => {
    if (!offered) return [];
    const all: T[] = [];
    let cursor: string | undefined;
    // a server that hands back the same cursor forever must not hang the session
    for (let pages = 0; pages < 100; pages++) {
      const next = await page(cursor);
      all.push(...next.items);
      if (!next.nextCursor || next.nextCursor === cursor) break;
      cursor = next.nextCursor;
    }
    return all;
  };

  const listCatalog = async (c: Client) => {
    const capabilities = c.getServerCapabilities();
    const timeout = { timeout: connectTimeoutMs };
    const [nextResources, nextPrompts] = await Promise.all([
      listPages(!!capabilities?.resources, async (cursor) => {
        const page = await c.listResources(cursor ? { cursor } : undefined, timeout);
        return { items: page.resources, nextCursor: page.nextCursor };
      }).catch(() => resources),
      listPages(!!capabilities?.prompts, async (cursor) => {
        const page = await c.listPrompts(cursor ? { cursor } : undefined, timeout);
        return { items: page.prompts, nextCursor: page.nextCursor };
      }).catch(() => prompts),
    ]);
    resources = nextResources;
    prompts = nextPrompts;
    options.onCatalogChanged?.(name);
  };

  /** A request of this connection with its own abort signal (requestSignal), its failures said for the person. */
  const withRequestSignal = async <T>(signal: AbortSignal, what: string, run: (c: Client, requestSignal: AbortSignal) => Promise<T>): Promise<T> => {
    const c = await ensureConnected();
    const request = requestSignal(signal);
    try {
      return await run(c, request.signal);
    } catch (err) {
      if (signal.aborted || isAbortError(err)) throw err;
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
        throw new McpToolCallError(`The MCP server "${name}" did not answer ${what} within ${callTimeoutMs} ms (setting mcp.callTimeoutMs).`, "MCP request timeout");
      }
      if (err instanceof McpError && err.code !== ErrorCode.ConnectionClosed) {
        throw new McpToolCallError(`The MCP server "${name}" refused ${what}: ${err.message}`, `MCP error ${err.code}`);
      }
      if (client === c) {
        await disconnect();
        status = "disconnected";
        error = errorMessage(err);
      }
      throw new McpServerUnavailableError(`The MCP server "${name}" went away during ${what}: ${errorMessage(err)}. toolgate will reconnect on the next request.`);
    } finally {
      request.release();
    }
  };

  const disconnect = async () => {
    const previous = transport;
    client = undefined;
    transport = undefined;
    await previous?.close().catch(() => undefined);
  };

  /** Answers 401 with the SDK's OAuth flow: stored tokens sent and refreshed, or (with `oauth.login`) a new login. */
  const oauthProvider = async (): Promise<ToolgateOAuthProvider | undefined> => {
    if ((config.type !== "http" && config.type !== "sse") || !options.oauth) return undefined;
    const base = { store: openMcpOAuthStore(options.oauth.home), serverName: name, serverUrl: config.url };
    if (options.oauth.login) return createLoginProvider({ ...base, ...options.oauth.login });
    const stored = createStoredLoginProvider(base);
    // nothing stored: a 401 is reported as needing a login, and nothing (no client registration) is sent
    return stored.hasTokens() ? stored : undefined;
  };

  const storedLoginProvider = () =>
    config.type === "http" || config.type === "sse"
      ? createStoredLoginProvider({ store: openMcpOAuthStore(options.oauth!.home), serverName: name, serverUrl: config.url })
      : undefined;

  /** One transport and client, connected and listed within connectTimeoutMs; the transport is kept for finishAuth. */
  const attempt = async (authProvider: ToolgateOAuthProvider | undefined, made: { transport?: Transport; client?: Client }) => {
    const t = createTransport(name, config, options, authProvider);
    made.transport = t;
    const c = new Client(clientInfo, {
      capabilities: {},
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 50, onChanged: () => void connection.refreshTools() },
        resources: { autoRefresh: false, debounceMs: 50, onChanged: () => void connection.refreshCatalog() },
        prompts: { autoRefresh: false, debounceMs: 50, onChanged: () => void connection.refreshCatalog() },
      },
    });
    c.onclose = () => {
      if (client !== c) return;
      client = undefined;
      if (shutDown) return;
      status = "disconnected";
      error = `the server ${howItEnded(t)}`;
    };
    // Errors on an open connection (a non-JSON line on stdout) are not fatal; a fatal one closes it.
    c.onerror = () => undefined;
    transport = t;
    client = c;
    made.client = c;
    await withTimeout(
      (async () => {
        await c.connect(new OrderedTransport(t), { timeout: connectTimeoutMs });
        serverInfo = c.getServerVersion();
        instructions = c.getInstructions();
        setTools(await listAllTools(c));
        await listCatalog(c);
      })(),
      connectTimeoutMs,
      `no answer within ${connectTimeoutMs} ms (setting mcp.connectTimeoutMs)`,
    );
    if (client === c && !shutDown) status = "connected";
  };

  const isRemote = config.type === "http" || config.type === "sse";
  /** The server refused us for want of a login (a 401, or the SDK asking for a new authorization). */
  const wantsLogin = (err: unknown, provider: ToolgateOAuthProvider | undefined) =>
    isRemote && (err instanceof McpNeedsLoginError || err instanceof UnauthorizedError || provider?.loginRequested === true || (err as { code?: unknown }).code === 401);

  const doConnect = async () => {
    await disconnect();
    status = "pending";
    error = undefined;
    const made: { transport?: Transport; client?: Client } = {};
    let provider: ToolgateOAuthProvider | undefined;
    try {
      provider = await oauthProvider();
      // an expired access token is renewed before the server has to refuse it
      if (provider?.needsRefresh() && !options.oauth?.login && isRemote) {
        const viaProxy = environmentFetchOption();
        await auth(provider, { serverUrl: config.url, ...(viaProxy ? { fetchFn: viaProxy } : {}) });
      }
      try {
        await attempt(provider, made);
      } catch (err) {
        const loginTransport = made.transport;
        if (!(options.oauth?.login && provider && err instanceof UnauthorizedError && loginTransport && "finishAuth" in loginTransport)) throw err;
        // the person is at the browser: the wait is theirs, not the connect timeout's
        if (client === made.client) await disconnect();
        const code = await provider.authorizationCode();
        await (loginTransport as StreamableHTTPClientTransport | SSEClientTransport).finishAuth(code);
        await provider.close();
        // from here on the session runs on the stored login, refreshed as needed, never prompting again
        provider = storedLoginProvider();
        await attempt(provider, made);
      }
    } catch (err) {
      const t = made.transport;
      const exited = t instanceof ToolgateStdioClientTransport && t.exit !== undefined;
      const code = (err as NodeJS.ErrnoException).code;
      if (made.client && client === made.client) await disconnect();
      if (shutDown) return;
      if (wantsLogin(err, provider) && !options.oauth?.login) {
        status = "needs-auth";
        error = needsLoginMessage(name);
        return;
      }
      const reason =
        code === "ENOENT" && config.type === "stdio"
          ? `command not found: ${config.command}`
          : exited
            ? `the server ${howItEnded(t)} during startup.${stderrNote(t)}`
            : options.oauth?.login && isRemote && !(err instanceof UnauthorizedError) && provider
              ? `login failed: ${describeNetworkError(err)}`
              : describeNetworkError(err);
      status = "failed";
      error = `could not connect: ${config.type === "stdio" || config.type === "sdk" ? "" : `${addressOf(config.url)}: `}${reason}`;
    } finally {
      await provider?.close();
    }
  };

  /** Joins a connection attempt already under way rather than starting a second one. */
  const connect = () => (connecting ??= doConnect().finally(() => (connecting = undefined)));

  const ensureConnected = async (): Promise<Client> => {
    if (shutDown) throw new McpServerUnavailableError(`The MCP server "${name}" has been shut down.`);
    if (!client || status !== "connected") await connect();
    if (!client || status !== "connected") {
      throw new McpServerUnavailableError(`The MCP server "${name}" is not available: ${error ?? "not connected"}. toolgate will try to start it again on the next call.`);
    }
    return client;
  };

  const connection: McpServerConnection = {
    name,
    config,
    source: scoped.source,
    get status() {
      return status;
    },
    get error() {
      return error;
    },
    get serverInfo() {
      return serverInfo;
    },
    get instructions() {
      return instructions;
    },
    get toolDefinitions() {
      return definitions;
    },
    get tools() {
      return tools;
    },
    get resources() {
      return resources;
    },
    get prompts() {
      return prompts;
    },
    get toolCount() {
      return definitions.length;
    },
    get pid() {
      return transport instanceof ToolgateStdioClientTransport ? transport.pid : undefined;
    },
    connect,
    async refreshTools() {
      const c = client;
      if (!c || status !== "connected") return;
      try {
        setTools(await listAllTools(c));
      } catch {
        // Keep the previous list; the next call or notification tries again.
      }
    },
    async refreshCatalog() {
      const c = client;
      if (!c || status !== "connected") return;
      await listCatalog(c).catch(() => undefined);
    },
    readResource(uri, signal) {
      return withRequestSignal(signal, `reading the resource ${uri}`, (c, requestSignal) => c.readResource({ uri }, { signal: requestSignal, timeout: callTimeoutMs }));
    },
    getPrompt(promptName, args, signal) {
      return withRequestSignal(signal, `the prompt ${promptName}`, (c, requestSignal) =>
        c.getPrompt({ name: promptName, arguments: args }, { signal: requestSignal, timeout: callTimeoutMs }),
      );
    },
    async callTool(toolName, args, callOptions) {
      const c = await ensureConnected();
      const t = transport;
      const request = requestSignal(callOptions.signal);
      try {
        return (await c.callTool({ name: toolName, arguments: args }, undefined, {
          signal: request.signal,
          timeout: callTimeoutMs,
          onprogress: (p) => callOptions.onProgress({ progress: p.progress, total: p.total, message: p.message }),
        })) as CallToolResult;
      } catch (err) {
        if (callOptions.signal.aborted || isAbortError(err)) throw err;
        if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
          throw new McpToolCallError(
            `The MCP tool ${toolName} of server "${name}" did not finish within ${callTimeoutMs} ms (setting mcp.callTimeoutMs).`,
            "MCP call timeout",
          );
        }
        const closed = err instanceof McpError && err.code === ErrorCode.ConnectionClosed;
        if (closed || client !== c) {
          if (client === c) await disconnect().then(() => (status = "disconnected"));
          throw new McpServerUnavailableError(
            `The MCP server "${name}" ${howItEnded(t)} while running ${toolName}. toolgate will start it again on the next call.${stderrNote(t)}`,
          );
        }
        if (err instanceof McpError) {
          throw new McpToolCallError(`The MCP server "${name}" refused ${toolName}: ${err.message}`, `MCP error ${err.code}`);
        }
        // Anything else is the transport failing (HTTP unreachable, session expired): start afresh next time.
        if (client === c) {
          await disconnect();
          status = "disconnected";
          error = errorMessage(err);
        }
        throw new McpServerUnavailableError(`The MCP server "${name}" could not be reached while running ${toolName}: ${errorMessage(err)}. toolgate will reconnect on the next call.`);
      } finally {
        request.release();
      }
    },
    async close() {
      shutDown = true;
      status = "closed";
      await disconnect();
    },
  };
  return connection;
}
