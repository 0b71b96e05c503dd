import type { AnyTool } from "../core/Tool.js";
import type { Settings } from "../settings/types.js";
import type { ScopedMcpServerConfig } from "./config.js";
import { createMcpServerConnection, type McpConnectionOptions, type McpServerConnection } from "./connection.js";

export interface ConnectMcpServersOptions extends Omit<McpConnectionOptions, "onToolsChanged"> {
  /** `mcp.connectTimeoutMs` and `mcp.callTimeoutMs` are read from here unless given directly. */
  settings?: Settings;
}

/** Every configured server of a session. Connections are made in parallel; a failing server never blocks the rest. */
export interface McpManager {
  readonly clients: readonly McpServerConnection[];
  /** The tools of every connected server, current as of now (list_changed and reconnects update it). */
  tools(): AnyTool[];
  client(name: string): McpServerConnection | undefined;
  /** Called after any server's tool list changed; returns an unsubscribe function. */
  onToolsChanged(listener: (serverName: string) => void): () => void;
  close(): Promise<void>;
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
}

export async function connectMcpServers(
  configs: readonly ScopedMcpServerConfig[],
  options: ConnectMcpServersOptions = {},
): Promise<McpManager> {
  const listeners = new Set<(serverName: string) => void>();
  const connectionOptions: McpConnectionOptions = {
    ...options,
    connectTimeoutMs: options.connectTimeoutMs ?? positive(options.settings?.mcp?.connectTimeoutMs),
    callTimeoutMs: options.callTimeoutMs ?? positive(options.settings?.mcp?.callTimeoutMs),
    onToolsChanged: (serverName) => {
      for (const listener of listeners) listener(serverName);
    },
  };
  const clients = configs.map((config) => createMcpServerConnection(config, connectionOptions));
  await Promise.all(clients.map((c) => c.connect()));
  return {
    clients,
    tools: () => clients.flatMap((c) => c.tools),
    client: (name) => clients.find((c) => c.name === name),
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      await Promise.all(clients.map((c) => c.close()));
    },
  };
}
