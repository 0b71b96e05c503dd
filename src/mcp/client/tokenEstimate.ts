import type { Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import { buildMcpToolName } from "../../core/registry.js";
import { capDescription } from "./mcpTool.js";

/**
 * A rough count of the tokens a tool's schema costs when sent to the model: characters of its name,
 * description (as capped) and JSON Schema, divided by 4. Good for comparing servers, not for billing.
 */
export function estimateToolSchemaTokens(serverName: string, definition: McpToolDefinition): number {
  const chars =
    buildMcpToolName(serverName, definition.name).length +
    capDescription(definition.description ?? "").length +
    JSON.stringify(definition.inputSchema ?? {}).length;
  return Math.ceil(chars / 4);
}

export function estimateServerSchemaTokens(serverName: string, definitions: readonly McpToolDefinition[]): number {
  return definitions.reduce((sum, d) => sum + estimateToolSchemaTokens(serverName, d), 0);
}
