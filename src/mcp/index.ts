/** MCP: toolgate as a client of MCP servers (their tools become deferred toolgate tools) and as a server of its own tools. */
export {
  loadMcpConfig,
  parseMcpConfig,
  parseMcpServerEntry,
  formatMcpConfigError,
  PROJECT_MCP_CONFIG_FILE,
  type McpServerConfig,
  type McpStdioServerConfig,
  type McpRemoteServerConfig,
  type ScopedMcpServerConfig,
  type McpConfigError,
  type LoadedMcpConfig,
  type LoadMcpConfigOptions,
} from "./client/config.js";
export { expandEnvVars, type Expansion } from "./client/envExpansion.js";
export {
  createMcpServerConnection,
  McpServerUnavailableError,
  McpToolCallError,
  DEFAULT_MCP_CONNECT_TIMEOUT_MS,
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  type McpServerConnection,
  type McpServerStatus,
  type McpConnectionOptions,
} from "./client/connection.js";
export { connectMcpServers, type McpManager, type ConnectMcpServersOptions } from "./client/manager.js";
export { createMcpTool, capDescription, MAX_MCP_DESCRIPTION_CHARS, MCP_MAX_RESULT_SIZE_CHARS, type McpToolProgress } from "./client/mcpTool.js";
export { mapMcpCallResult, type McpToolOutput } from "./client/toolResult.js";
export { estimateToolSchemaTokens, estimateServerSchemaTokens } from "./client/tokenEstimate.js";
export {
  createToolgateMcpServer,
  type ToolgateMcpServerOptions,
  type ToolgateMcpServerFactory,
  type ToolgateMcpSession,
  type McpSessionRequest,
} from "./server/createServer.js";
export { serveStdio, serveHttp, MCP_HTTP_PATH, DEFAULT_HTTP_IDLE_TIMEOUT_MS, DEFAULT_HTTP_MAX_SESSIONS, type HttpServeHandle, type HttpServeOptions } from "./server/transports.js";
export { createElicitationCanUseTool } from "./server/permissionPrompt.js";
