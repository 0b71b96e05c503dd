import type { AnyTool, McpClientInfo, Tools, ToolUseContext } from "./Tool.js";

export function toolMatchesName(tool: Pick<AnyTool, "name" | "aliases">, name: string): boolean {
  return tool.name === name || (tool.aliases?.includes(name) ?? false);
}

/** A tool by its name, else by an alias. */
export function findToolByName(tools: Tools, name: string): AnyTool | undefined {
  return tools.find((t) => t.name === name) ?? tools.find((t) => t.aliases?.includes(name));
}

/** Each part of an MCP tool name is limited to [A-Za-z0-9_-]; anything else becomes `_`. */
export function normalizeNameForMcp(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

export function buildMcpToolName(serverName: string, toolName: string): string {
  return `mcp__${normalizeNameForMcp(serverName)}__${normalizeNameForMcp(toolName)}`;
}

/** `mcp__server__tool` → parts; `mcp__server` → server only. Server names cannot contain `__`. */
export function parseMcpToolName(name: string): { serverName: string; toolName?: string } | null {
  if (!name.startsWith("mcp__")) return null;
  const rest = name.slice(5);
  const sep = rest.indexOf("__");
  if (sep < 0) return rest ? { serverName: rest } : null;
  const serverName = rest.slice(0, sep);
  const toolName = rest.slice(sep + 2);
  if (!serverName) return null;
  return toolName ? { serverName, toolName } : { serverName };
}

/**
 * Why the tools of the MCP server that `name` (`mcp__server__tool` or `mcp__server`) belongs to are missing,
 * when that server is configured but not connected (it failed or hung at start, or went away); else undefined.
 */
export function describeUnavailableMcpServer(name: string, clients: readonly McpClientInfo[]): string | undefined {
  const parsed = parseMcpToolName(name);
  if (!parsed) return undefined;
  const client = clients.find((c) => normalizeNameForMcp(c.name) === parsed.serverName);
  if (!client || client.status === "connected") return undefined;
  const what = parsed.toolName ? `so its tool ${name} is not available` : "so its tools are not available";
  return `The MCP server "${client.name}" is not connected (${client.status}${client.error ? `: ${client.error}` : ""}), ${what}. Run "toolgate mcp list" to check it.`;
}

/** MCP tools and tools that ask for it are announced by name only until ToolSearch loads them. */
export function isDeferredTool(tool: AnyTool): boolean {
  if (tool.alwaysLoad) return false;
  return tool.isMcp === true || tool.shouldDefer === true;
}

/** Tools whose full schemas go to the model: the non-deferred ones plus the deferred ones already loaded. */
export function getToolsForModel(tools: Tools, loadedDeferredTools: ReadonlySet<string>): AnyTool[] {
  return tools.filter((t) => t.isEnabled() && (!isDeferredTool(t) || loadedDeferredTools.has(t.name)));
}

/** Names of deferred tools not loaded yet, announced to the model by name only. */
export function getDeferredToolNames(tools: Tools, loadedDeferredTools: ReadonlySet<string>): string[] {
  return tools.filter((t) => t.isEnabled() && isDeferredTool(t) && !loadedDeferredTools.has(t.name)).map((t) => t.name);
}

/** The session's tools right now: MCP servers may have changed theirs since the context was made. */
export function getCurrentTools(context: ToolUseContext): Tools {
  return context.options.refreshTools?.() ?? context.options.tools;
}
