import { isDeepStrictEqual } from "node:util";
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResultBlockParam, ToolResultContentBlock } from "../core/messages.js";

/** What an MCP tool call gives the pipeline: content already in Messages API shape, and the server's error flag. */
export interface McpToolOutput {
  content: ToolResultContentBlock[];
  isError: boolean;
}

/** Image types the Messages API accepts inline; others are described in text. */
const INLINE_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

function isTextual(mimeType: string): boolean {
  return /^text\//.test(mimeType) || /[/+](json|xml|yaml|javascript|csv)$/.test(mimeType);
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function imageBlock(data: string, mimeType: string): ToolResultContentBlock {
  return { type: "image", source: { type: "base64", media_type: mimeType, data } };
}

function mapContentBlock(block: ContentBlock): ToolResultContentBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      if (INLINE_IMAGE_TYPES.has(block.mimeType)) return imageBlock(block.data, block.mimeType);
      return { type: "text", text: `[image of type ${block.mimeType}, ${base64Bytes(block.data)} bytes, not shown: only PNG, JPEG, GIF and WebP images can be displayed]` };
    case "audio":
      return { type: "text", text: `[audio of type ${block.mimeType}, ${base64Bytes(block.data)} bytes, not shown]` };
    case "resource_link": {
      const details = [block.mimeType, block.description].filter(Boolean).join(", ");
      return { type: "text", text: `[resource link] ${block.name}: ${block.uri}${details ? ` (${details})` : ""}` };
    }
    case "resource": {
      const resource = block.resource;
      const mime = resource.mimeType ? ` (${resource.mimeType})` : "";
      if ("text" in resource && typeof resource.text === "string") {
        return { type: "text", text: `[resource ${resource.uri}${mime}]\n${resource.text}` };
      }
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : "";
      if (resource.mimeType && INLINE_IMAGE_TYPES.has(resource.mimeType) && blob) return imageBlock(blob, resource.mimeType);
      if (resource.mimeType && isTextual(resource.mimeType)) {
        return { type: "text", text: `[resource ${resource.uri}${mime}]\n${Buffer.from(blob, "base64").toString("utf8")}` };
      }
      return { type: "text", text: `[binary resource ${resource.uri}${mime}, ${base64Bytes(blob)} bytes, not shown]` };
    }
    default:
      return { type: "text", text: JSON.stringify(block) };
  }
}

function parsesTo(text: string, value: unknown): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(text), value);
  } catch {
    return false;
  }
}

/**
 * MCP result → content blocks. `structuredContent` comes first as JSON text; a text block that merely
 * repeats it (servers send one for older clients, as the spec recommends) is dropped.
 */
export function mapMcpCallResult(result: CallToolResult): McpToolOutput {
  const blocks: ToolResultContentBlock[] = [];
  const structured = result.structuredContent;
  const content = Array.isArray(result.content) ? result.content : [];
  if (structured !== undefined) blocks.push({ type: "text", text: JSON.stringify(structured) });
  for (const block of content) {
    if (structured !== undefined && block.type === "text" && parsesTo(block.text, structured)) continue;
    blocks.push(mapContentBlock(block));
  }
  return { content: blocks, isError: result.isError === true };
}

export function mcpOutputToToolResultBlock(output: McpToolOutput, toolUseID: string): ToolResultBlockParam {
  return {
    type: "tool_result",
    tool_use_id: toolUseID,
    content: output.content,
    ...(output.isError && { is_error: true }),
  };
}
