import type { AnyTool, Tools } from "../../core/Tool.js";
import type { Settings } from "../../settings/types.js";
import type { ScopedMcpServerConfig } from "./config.js";
import { mcpSettingsSection } from "./settingsSection.js";
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
  /**
   * For `context.options.refreshTools`: the given tools plus every server's current tools. The array is
   * rebuilt only after a server's list changed, so the pipeline can call it on every tool use.
   */
  toolPool(base: Tools): () => Tools;
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
  let generation = 0;
  const fromSettings = mcpSettingsSection.schema.safeParse(options.settings?.mcp ?? {});
  const timeouts = fromSettings.success ? fromSettings.data : {};
  const connectionOptions: McpConnectionOptions = {
    ...options,
    connectTimeoutMs: options.connectTimeoutMs ?? positive(timeouts.connectTimeoutMs),
    callTimeoutMs: options.callTimeoutMs ?? positive(timeouts.callTimeoutMs),
    onToolsChanged: (serverName) => {
      generation++;
      for (const listener of listeners) listener(serverName);
    },
  };
  const clients = configs.map((config) => createMcpServerConnection(config, connectionOptions));
  await Promise.all(clients.map((c) => c.connect()));
  return {
    clients,
    tools: () => clients.flatMap((c) => c.tools),
    client: (name) => clients.find((c) => c.name === name),
    toolPool(base) {
      let built = -1;
      let pool: Tools = base;
      return () => {
        if (built !== generation) {
          pool = [...base, ...clients.flatMap((c) => c.tools)];
          built = generation;
        }
        return pool;
      };
    },
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
