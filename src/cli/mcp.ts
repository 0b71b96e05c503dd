import type { Readable, Writable } from "node:stream";
import type { Settings } from "../settings/types.js";
import { formatMcpConfigError, loadMcpConfig, type McpConfigError, type McpServerConfig, type ScopedMcpServerConfig } from "../mcp/client/config.js";
import { normalizeNameForMcp } from "../core/registry.js";
import { connectMcpServers } from "../mcp/client/manager.js";
import { estimateServerSchemaTokens, estimateToolSchemaTokens } from "../mcp/client/tokenEstimate.js";
import { createToolgateMcpServer, type ToolgateMcpServerOptions } from "../mcp/server/createServer.js";
import { serveHttp, serveStdio } from "../mcp/server/transports.js";
import { onSignals, signalExitCode, TERMINATION_SIGNALS } from "../core/termination.js";
import { stopTrackedTrees } from "../util/processTree.js";

export interface McpListOptions {
  projectDir: string;
  /** toolgate's home, for the user and local server files. */
  home?: string;
  /** `--mcp-config` values. */
  configFiles?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Merged settings, for mcp.connectTimeoutMs. */
  settings?: Settings;
  /** The folder is not trusted: its `.mcp.json` is not read, so none of its servers start. */
  skipProjectConfig?: boolean;
  /** Servers of the session's plugins, listed after the configured ones (one whose name is taken is left out). */
  pluginServers?: readonly ScopedMcpServerConfig[];
  json?: boolean;
  output?: Writable;
}

export interface McpListEntry {
  name: string;
  source: string;
  transport: McpServerConfig["type"];
  /** `node server.js stdio` or the URL. */
  target: string;
  status: string;
  error?: string;
  toolCount: number;
  estimatedTokens: number;
  alwaysLoad: boolean;
  tools: Array<{ name: string; estimatedTokens: number }>;
}

export interface McpListReport {
  servers: McpListEntry[];
  configErrors: McpConfigError[];
}

const TOKEN_NOTE =
  "Token estimates are (characters of each tool's name, description and input schema) / 4. MCP tools are deferred: " +
  "they cost only their name until ToolSearch loads them, unless the server sets alwaysLoad.";

function target(config: McpServerConfig): string {
  return config.type === "stdio" ? [config.command, ...config.args].join(" ") : config.type === "sdk" ? "(in the controlling program)" : config.url;
}

/** Connect to every configured server, then describe each. Servers are closed before returning. */
export async function collectMcpList(options: McpListOptions): Promise<McpListReport> {
  const loaded = loadMcpConfig({ projectDir: options.projectDir, home: options.home, configFiles: options.configFiles, env: options.env, skipProjectConfig: options.skipProjectConfig });
  const taken = new Set(loaded.servers.map((s) => normalizeNameForMcp(s.name)));
  const plugins = (options.pluginServers ?? []).filter((s) => !taken.has(normalizeNameForMcp(s.name)) && Boolean(taken.add(normalizeNameForMcp(s.name))));
  const manager = await connectMcpServers([...loaded.servers, ...plugins], { settings: options.settings, env: options.env, ...(options.home ? { oauth: { home: options.home } } : {}) });
  try {
    const servers = manager.clients.map(
      (c): McpListEntry => ({
        name: c.name,
        source: c.source,
        transport: c.config.type,
        target: target(c.config),
        status: c.status,
        ...(c.error && { error: c.error }),
        toolCount: c.toolCount,
        estimatedTokens: estimateServerSchemaTokens(c.name, c.toolDefinitions),
        alwaysLoad: c.config.alwaysLoad === true,
        tools: c.tools.map((t, i) => ({ name: t.name, estimatedTokens: estimateToolSchemaTokens(c.name, c.toolDefinitions[i]) })),
      }),
    );
    return { servers, configErrors: loaded.errors };
  } finally {
    await manager.close();
  }
}

export function formatMcpList(report: McpListReport): string {
  const lines: string[] = [];
  if (report.servers.length === 0) {
    lines.push("No MCP servers configured (add them to .mcp.json in the project, or pass --mcp-config FILE).");
  } else {
    const nameWidth = Math.max(6, ...report.servers.map((s) => s.name.length));
    lines.push(`${"SERVER".padEnd(nameWidth)}  ${"STATUS".padEnd(12)}  ${"TOOLS".padEnd(5)}  ${"~TOKENS".padEnd(8)}  TRANSPORT`);
    for (const s of report.servers) {
      const ok = s.status === "connected";
      lines.push(
        `${s.name.padEnd(nameWidth)}  ${s.status.padEnd(12)}  ${(ok ? String(s.toolCount) : "-").padEnd(5)}  ${(ok ? s.estimatedTokens.toLocaleString("en-US") : "-").padEnd(8)}  ${s.transport}: ${s.target}`,
      );
      if (s.error) lines.push(`${" ".repeat(nameWidth)}  ${s.error}`);
    }
    lines.push("", TOKEN_NOTE);
  }
  if (report.configErrors.length > 0) {
    lines.push("", "Configuration problems (these servers were skipped):");
    for (const error of report.configErrors) lines.push(`  ${formatMcpConfigError(error)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** `toolgate mcp list`. Exit code 1 when a server failed or a config entry was rejected, so scripts can check health. */
export async function runMcpList(options: McpListOptions): Promise<number> {
  const report = await collectMcpList(options);
  const output = options.output ?? process.stdout;
  output.write(options.json ? `${JSON.stringify({ ...report, note: TOKEN_NOTE }, null, 2)}\n` : formatMcpList(report));
  const healthy = report.configErrors.length === 0 && report.servers.every((s) => s.status === "connected");
  return healthy ? 0 : 1;
}

export interface McpServeOptions extends ToolgateMcpServerOptions {
  /** `--http PORT`: streamable HTTP on 127.0.0.1 instead of stdio. */
  http?: number;
  /** HTTP only: idle sessions are closed after this long (`--http-idle-timeout`). */
  idleTimeoutMs?: number;
  /** HTTP only: most sessions at once (`--http-max-sessions`). */
  maxSessions?: number;
  stdin?: Readable;
  stdout?: Writable;
  /** Diagnostics (the listening URL). */
  stderr?: Writable;
  /** Stops an HTTP server; defaults to SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

/** Over stdio, stdout is the protocol: anything a tool prints with console.log goes to stderr instead. */
function keepStdoutForProtocol(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  return () => Object.assign(console, saved);
}

interface StopRequest {
  /** Aborts when the server should stop. */
  signal: AbortSignal;
  /** The process signal that asked, if one did. */
  received(): NodeJS.Signals | undefined;
  dispose(): void;
}

/** `options.signal`, or else SIGINT, SIGTERM and SIGHUP (terminal closed): each stops the server after a cleanup. */
function stopRequest(signal: AbortSignal | undefined): StopRequest {
  if (signal) return { signal, received: () => undefined, dispose: () => undefined };
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const dispose = onSignals(["SIGINT", ...TERMINATION_SIGNALS], (s) => {
    received = s;
    controller.abort();
  });
  return { signal: controller.signal, received: () => received, dispose };
}

/** Why a port could not be opened, in the user's terms. */
function describeListenError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") return "the port is already in use (EADDRINUSE); choose another one, or --http 0 for any free port";
  if (code === "EACCES") return "permission denied (EACCES); ports below 1024 need privileges";
  return err instanceof Error ? err.message : String(err);
}

/**
 * `toolgate mcp serve [--http PORT]`. Resolves with the exit code when stdin ends or the server is stopped;
 * stopped by a process signal, it first closes every session and stops their processes, and returns 128 + the signal.
 */
export async function runMcpServe(options: McpServeOptions): Promise<number> {
  const factory = createToolgateMcpServer(options);
  const stderr = options.stderr ?? process.stderr;
  if (options.http !== undefined && (!Number.isInteger(options.http) || options.http < 0 || options.http > 65_535)) {
    stderr.write(`toolgate: --http needs a port number between 0 and 65535, got ${options.http}\n`);
    return 2;
  }
  const stop = stopRequest(options.signal);
  try {
    if (options.http !== undefined) {
      let handle: Awaited<ReturnType<typeof serveHttp>>;
      try {
        handle = await serveHttp(factory, { port: options.http, idleTimeoutMs: options.idleTimeoutMs, maxSessions: options.maxSessions });
      } catch (err) {
        stderr.write(`toolgate: cannot listen on 127.0.0.1:${options.http}: ${describeListenError(err)}\n`);
        return 2;
      }
      stderr.write(`toolgate MCP server listening on ${handle.url}\n`);
      await new Promise((resolve) => (stop.signal.aborted ? resolve(undefined) : stop.signal.addEventListener("abort", resolve, { once: true })));
      await handle.close();
    } else {
      const restore = options.stdout === undefined || options.stdout === process.stdout ? keepStdoutForProtocol() : () => undefined;
      try {
        await serveStdio(factory, { stdin: options.stdin, stdout: options.stdout, signal: stop.signal });
      } finally {
        restore();
      }
    }
    await factory.sessionsClosed();
    // Calls still running at a signal, and daemons that double-forked out of their trees, go too.
    await stopTrackedTrees();
    const received = stop.received();
    return received === undefined ? 0 : signalExitCode(received);
  } finally {
    stop.dispose();
  }
}
