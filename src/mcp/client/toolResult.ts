import { isDeepStrictEqual } from "node:util";
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResultBlockParam, ToolResultContentBlock } from "../../core/messages.js";

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

export function mapContentBlock(block: ContentBlock): ToolResultContentBlock {
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

/** The string leaves of a value, or undefined when it has any other kind of leaf (numbers are ambiguous in text). */
function stringLeaves(value: unknown, out: string[] = []): string[] | undefined {
  if (typeof value === "string") {
    out.push(value);
    return out;
  }
  if (value === null || typeof value !== "object") return undefined;
  for (const item of Object.values(value)) if (!stringLeaves(item, out)) return undefined;
  return out;
}

/** The text blocks already carry the structured value: each of its strings appears in them verbatim. */
function textCarries(structured: unknown, texts: readonly string[]): boolean {
  const leaves = stringLeaves(structured);
  if (!leaves || leaves.length === 0 || texts.length === 0) return false;
  const joined = texts.join("\n");
  return leaves.every((leaf) => leaf.length > 0 && joined.includes(leaf));
}

/**
 * MCP result → content blocks, with `structuredContent` as JSON text unless the text content already
 * holds it. Servers send both for older clients: either a text block that is the JSON itself (dropped,
 * the JSON comes first instead) or plain text whose strings the structure merely wraps (the JSON is
 * not repeated, as server-filesystem's `{content: "<file text>"}`).
 */
export function mapMcpCallResult(result: CallToolResult): McpToolOutput {
  const content = Array.isArray(result.content) ? result.content : [];
  const structured = result.structuredContent;
  const blocks: ToolResultContentBlock[] = [];
  if (structured === undefined) {
    blocks.push(...content.map(mapContentBlock));
  } else {
    const unrepeated = content.filter((b) => !(b.type === "text" && parsesTo(b.text, structured)));
    const texts = unrepeated.flatMap((b) => (b.type === "text" ? [b.text] : []));
    if (!textCarries(structured, texts)) blocks.push({ type: "text", text: JSON.stringify(structured) });
    blocks.push(...unrepeated.map(mapContentBlock));
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
