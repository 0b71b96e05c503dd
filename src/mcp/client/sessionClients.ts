/**
 * The session's MCP clients as connections. The tool context carries them as McpClientInfo (core knows no MCP);
 * the resource tools and the prompt commands need the connection behind it. Type-only import: loading this
 * does not load the MCP SDK.
 */
import type { McpClientInfo } from "../../core/Tool.js";
import type { McpServerConnection } from "./connection.js";

function isServerConnection(client: McpClientInfo): client is McpServerConnection {
  return typeof (client as Partial<McpServerConnection>).readResource === "function";
}

export function serverConnections(clients: readonly McpClientInfo[] | undefined): McpServerConnection[] {
  return (clients ?? []).filter(isServerConnection);
}
