import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResultBlockParam, ToolResultContentBlock } from "../../core/messages.js";

type McpContent = CallToolResult["content"][number];

function toMcpContent(block: ToolResultContentBlock, index: number): McpContent {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return { type: "image", data: block.source.data, mimeType: block.source.media_type };
    case "document":
      if (block.source.type === "text") return { type: "text", text: block.source.data };
      return {
        type: "resource",
        resource: { uri: `toolgate://document/${index}${block.title ? `/${encodeURIComponent(block.title)}` : ""}`, mimeType: block.source.media_type, blob: block.source.data },
      };
    case "tool_reference":
      return { type: "text", text: `[tool reference: ${block.tool_name}]` };
  }
}

/** A tool_result from the pipeline as an MCP tools/call result. */
export function toolResultToCallToolResult(block: ToolResultBlockParam): CallToolResult {
  const content = typeof block.content === "string" ? [{ type: "text" as const, text: block.content }] : block.content.map(toMcpContent);
  return { content, ...(block.is_error && { isError: true }) };
}
