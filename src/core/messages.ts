/**
 * Message and content-block shapes, compatible with the Anthropic Messages API.
 * Only the parts the tool runtime reads or writes are modelled.
 */

export interface TextBlock {
  type: "text";
  text: string;
}

export interface ImageBlock {
  type: "image";
  source: { type: "base64"; media_type: string; data: string };
}

export interface DocumentBlock {
  type: "document";
  source: { type: "base64"; media_type: string; data: string } | { type: "text"; media_type: string; data: string };
  title?: string;
}

/** A reference to a deferred tool whose schema the provider should now expose (ToolSearch). */
export interface ToolReferenceBlock {
  type: "tool_reference";
  tool_name: string;
}

export type ToolResultContentBlock = TextBlock | ImageBlock | DocumentBlock | ToolReferenceBlock;

export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlockParam {
  type: "tool_result";
  tool_use_id: string;
  content: string | ToolResultContentBlock[];
  is_error?: boolean;
}

export type AssistantContentBlock = TextBlock | ToolUseBlock | { type: string; [key: string]: unknown };

export interface AssistantMessage {
  role: "assistant";
  /** Provider message id; file checkpoints are keyed by it. */
  id?: string;
  content: AssistantContentBlock[];
}

export interface UserMessage {
  role: "user";
  /** Images and documents only in a prompt the user sent (never in a tool result's own message). */
  content: Array<ToolResultBlockParam | TextBlock | ImageBlock | DocumentBlock> | string;
}

export type Message = AssistantMessage | UserMessage;
