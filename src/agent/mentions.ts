/**
 * `@path` in a prompt attaches that file: it is read through the Read tool's whole pipeline (its rules, hooks,
 * limits and read state apply as to the model's own Read, so a denied file is never attached) and the content
 * goes with the prompt. A word after `@` that names no file (an email's half, a handle) is left as written.
 */
import fs from "node:fs";
import path from "node:path";
import type { AssistantMessage, DocumentBlock, ImageBlock, TextBlock, ToolResultContentBlock } from "../core/messages.js";
import type { CanUseToolFn, ToolUseContext } from "../core/Tool.js";
import { runToolUse } from "../core/pipeline/index.js";
import { ATTACHED_FILE_TAG, ATTACHED_RESOURCE_TAG } from "./history.js";
import { serverConnections } from "../mcp/client/sessionClients.js";

/** More mentions than this in one prompt are not attached (the rest stay text; the person is told). */
export const MAX_ATTACHED_FILES = 10;

// `@` at the start or after a space; the path runs to the next space (`\ ` keeps one); trailing punctuation is prose.
const MENTION = /(?<=^|\s)@((?:\\ |[^\s])+)/g;

/** The paths mentioned, in order, each once. */
export function mentionedPaths(prompt: string): string[] {
  const found: string[] = [];
  for (const match of prompt.matchAll(MENTION)) {
    const raw = match[1]!.replace(/\\ /g, " ").replace(/[.,;:!?)\]}'"]+$/, "");
    if (raw && !found.includes(raw)) found.push(raw);
  }
  return found;
}

export interface Attachments {
  blocks: Array<TextBlock | ImageBlock | DocumentBlock>;
  /** For the person: what was attached, and what was not and why. */
  notes: Array<{ level: "info" | "warning" | "error"; text: string }>;
}

/** Reads each mentioned file through Read; what it returns goes with the prompt, a refusal is told to the person. */
export async function attachMentionedFiles(prompt: string, context: ToolUseContext, canUseTool: CanUseToolFn): Promise<Attachments> {
  const attachments: Attachments = { blocks: [], notes: [] };
  const cwd = context.getCwd();
  const files = mentionedPaths(prompt).filter((p) => isFile(path.resolve(cwd, p)));
  for (const [i, mention] of files.entries()) {
    if (i >= MAX_ATTACHED_FILES) {
      attachments.notes.push({ level: "warning", text: `only the first ${MAX_ATTACHED_FILES} @files are attached; ${files.length - MAX_ATTACHED_FILES} more stay as text` });
      break;
    }
    const assistant: AssistantMessage = { role: "assistant", id: undefined, content: [] };
    const toolUse = { type: "tool_use" as const, id: `toolu_mention_${i}`, name: "Read", input: { file_path: path.resolve(cwd, mention) } };
    let result: { content: string | ToolResultContentBlock[]; isError: boolean } | undefined;
    for await (const update of runToolUse(toolUse, assistant, canUseTool, context)) {
      if (update.type === "result") result = { content: update.block.content ?? "", isError: update.block.is_error === true };
    }
    if (!result || result.isError) {
      attachments.notes.push({ level: "warning", text: `@${mention} was not attached: ${textOf(result?.content ?? "no result")}` });
      continue;
    }
    const parts = typeof result.content === "string" ? [{ type: "text" as const, text: result.content }] : result.content;
    const text = parts.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    attachments.blocks.push({ type: "text", text: `<${ATTACHED_FILE_TAG} path="${mention}">\nThe user attached ${mention} to this prompt; it was read with Read:\n${text}\n</${ATTACHED_FILE_TAG}>` });
    for (const block of parts) if (block.type === "image" || block.type === "document") attachments.blocks.push(block);
    attachments.notes.push({ level: "info", text: `attached @${mention}` });
  }
  return attachments;
}

/** `@server:uri` mentions of the session's MCP servers (a file of that name stays a file mention). */
export function mentionedResources(prompt: string, serverNames: readonly string[], cwd: string): Array<{ mention: string; server: string; uri: string }> {
  return mentionedPaths(prompt).flatMap((mention) => {
    const colon = mention.indexOf(":");
    if (colon <= 0 || isFile(path.resolve(cwd, mention))) return [];
    const server = mention.slice(0, colon);
    const uri = mention.slice(colon + 1);
    return serverNames.includes(server) && uri ? [{ mention, server, uri }] : [];
  });
}

/**
 * Reads each `@server:uri` through ReadMcpResourceTool (so deny rules and hooks on it decide, as for the model's
 * own reads); the content goes with the prompt, a failed read is an error for the person and is not sent.
 */
export async function attachMentionedResources(prompt: string, context: ToolUseContext, canUseTool: CanUseToolFn): Promise<Attachments> {
  const attachments: Attachments = { blocks: [], notes: [] };
  const names = serverConnections(context.options.mcpClients).map((c) => c.name);
  if (names.length === 0) return attachments;
  const resources = mentionedResources(prompt, names, context.getCwd());
  for (const [i, { mention, server, uri }] of resources.entries()) {
    if (i >= MAX_ATTACHED_FILES) {
      attachments.notes.push({ level: "warning", text: `only the first ${MAX_ATTACHED_FILES} @server:resource mentions are attached; ${resources.length - MAX_ATTACHED_FILES} more stay as text` });
      break;
    }
    const assistant: AssistantMessage = { role: "assistant", id: undefined, content: [] };
    const toolUse = { type: "tool_use" as const, id: `toolu_resource_mention_${i}`, name: "ReadMcpResourceTool", input: { server, uri } };
    let result: { content: string | ToolResultContentBlock[]; isError: boolean } | undefined;
    for await (const update of runToolUse(toolUse, assistant, canUseTool, context)) {
      if (update.type === "result") result = { content: update.block.content ?? "", isError: update.block.is_error === true };
    }
    if (!result || result.isError) {
      attachments.notes.push({ level: "error", text: `@${mention} could not be read, so it was not attached: ${textOf(result?.content ?? "no result")}` });
      continue;
    }
    const parts = typeof result.content === "string" ? [{ type: "text" as const, text: result.content }] : result.content;
    const text = parts.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    attachments.blocks.push({ type: "text", text: `<${ATTACHED_RESOURCE_TAG} server="${server}" uri="${uri}">\nThe user attached the resource ${uri} of the MCP server "${server}" to this prompt:\n${text}\n</${ATTACHED_RESOURCE_TAG}>` });
    for (const block of parts) if (block.type === "image" || block.type === "document") attachments.blocks.push(block);
    attachments.notes.push({ level: "info", text: `attached @${mention}` });
  }
  return attachments;
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function textOf(content: string | ToolResultContentBlock[]): string {
  const text = typeof content === "string" ? content : content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ");
  return text.replace(/<\/?tool_use_error>/g, "").trim();
}
