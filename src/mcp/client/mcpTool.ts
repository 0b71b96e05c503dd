import type { CallToolResult, Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import type { AnyObject, AnyTool, JSONSchema, ToolCallProgress } from "../../core/Tool.js";
import type { PermissionResult } from "../../core/permissionTypes.js";
import { buildTool } from "../../core/buildTool.js";
import { buildMcpToolName } from "../../core/registry.js";
import { createMcpInputSchema } from "./inputSchema.js";
import { mapMcpCallResult, mcpOutputToToolResultBlock, type McpToolOutput } from "./toolResult.js";

export const MAX_MCP_DESCRIPTION_CHARS = 2_048;
/** Above min(this, 50 000) chars the core persists the result and shows a preview. */
export const MCP_MAX_RESULT_SIZE_CHARS = 100_000;

/** Progress the SDK reported for a call (notifications/progress), forwarded as tool progress. */
export interface McpToolProgress {
  type: "mcp_progress";
  serverName: string;
  toolName: string;
  progress: number;
  total?: number;
  message?: string;
}

export interface McpCallOptions {
  signal: AbortSignal;
  onProgress(progress: { progress: number; total?: number; message?: string }): void;
}

/** The one capability a tool needs from its server connection. */
export type McpToolCaller = (toolName: string, args: AnyObject, options: McpCallOptions) => Promise<CallToolResult>;

export interface CreateMcpToolOptions {
  serverName: string;
  definition: McpToolDefinition;
  callTool: McpToolCaller;
  /** From the server's `alwaysLoad` in .mcp.json: schemas go to the model up front. */
  alwaysLoad?: boolean;
}

export function capDescription(text: string, max = MAX_MCP_DESCRIPTION_CHARS): string {
  if (text.length <= max) return text;
  const marker = "… [description truncated]";
  return text.slice(0, max - marker.length) + marker;
}

/** A server's tool as a toolgate tool: `mcp__server__tool`, deferred, asking before it runs. */
export function createMcpTool(options: CreateMcpToolOptions): AnyTool {
  const { serverName, definition, callTool } = options;
  const name = buildMcpToolName(serverName, definition.name);
  const annotations = definition.annotations ?? {};
  const readOnly = annotations.readOnlyHint === true;
  const description = capDescription((definition.description ?? "").trim() || `Tool ${definition.name} from the MCP server ${serverName}.`);
  const title = definition.title ?? annotations.title;
  const inputJSONSchema = definition.inputSchema as JSONSchema;

  return buildTool<AnyObject, McpToolOutput, McpToolProgress>({
    name,
    isMcp: true,
    mcpInfo: { serverName, toolName: definition.name },
    ...(options.alwaysLoad && { alwaysLoad: true }),
    ...(title && { searchHint: title }),
    inputJSONSchema,
    inputSchema: () => createMcpInputSchema(inputJSONSchema),
    maxResultSizeChars: MCP_MAX_RESULT_SIZE_CHARS,
    description: () => description,
    prompt: () => description,
    userFacingName: () => `${serverName} - ${title ?? definition.name} (MCP)`,
    isReadOnly: () => readOnly,
    isConcurrencySafe: () => readOnly,
    isDestructive: () => annotations.destructiveHint === true,
    toAutoClassifierInput: (input) => input,
    async checkPermissions(): Promise<PermissionResult> {
      return {
        behavior: "passthrough",
        message: `${name} is a tool of the MCP server "${serverName}"; it runs only with your permission.`,
        suggestions: [{ type: "addRules", behavior: "allow", rules: [{ toolName: name }], destination: "localSettings" }],
      };
    },
    async call(args, context, _canUseTool, _parent, onProgress?: ToolCallProgress<McpToolProgress>) {
      const result = await callTool(definition.name, args, {
        signal: context.abortController.signal,
        onProgress: (p) =>
          onProgress?.({
            toolUseID: context.toolUseID ?? "",
            data: {
              type: "mcp_progress",
              serverName,
              toolName: definition.name,
              progress: p.progress,
              ...(p.total !== undefined && { total: p.total }),
              ...(p.message !== undefined && { message: p.message }),
            },
          }),
      });
      const output = mapMcpCallResult(result);
      return {
        data: output,
        ...((result._meta !== undefined || result.structuredContent !== undefined) && {
          mcpMeta: { _meta: result._meta, structuredContent: result.structuredContent },
        }),
      };
    },
    mapToolResultToToolResultBlockParam: mcpOutputToToolResultBlock,
  });
}
