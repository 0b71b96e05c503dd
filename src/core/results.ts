import path from "node:path";
import type { AnyTool, ToolUseContext } from "./Tool.js";
import type { ToolResultBlockParam, ToolResultContentBlock } from "./messages.js";
import { ensurePrivateDir, writePrivateFile } from "../util/privateFiles.js";

/** No single result above this stays inline, whatever the tool allows. */
export const MAX_INLINE_RESULT_CHARS = 50_000;
/** All tool_results of one user message together stay under this. */
export const MAX_TOOL_RESULTS_PER_MESSAGE_CHARS = 200_000;
export const PERSISTED_PREVIEW_CHARS = 2_000;

export function isEmptyToolResultContent(content: ToolResultBlockParam["content"]): boolean {
  if (typeof content === "string") return content.trim() === "";
  return content.length === 0 || content.every((b) => b.type === "text" && b.text.trim() === "");
}

/** The tool's own mapping, with empty output made explicit so the model never sees a blank result. */
export function mapToolResultToToolResultBlockParam(
  tool: AnyTool,
  output: unknown,
  toolUseID: string,
): ToolResultBlockParam {
  const block = tool.mapToolResultToToolResultBlockParam(output, toolUseID);
  if (isEmptyToolResultContent(block.content)) {
    return { ...block, tool_use_id: toolUseID, content: `(${tool.name} completed with no output)` };
  }
  return { ...block, tool_use_id: toolUseID };
}

/** Characters of text in a result; images and other blocks count for nothing here. */
export function toolResultTextLength(content: ToolResultBlockParam["content"]): number {
  if (typeof content === "string") return content.length;
  return content.reduce((n, b) => n + (b.type === "text" ? b.text.length : 0), 0);
}

/** The text of a result: the string, or its text blocks joined (images and other blocks are not text). */
function contentText(content: ToolResultBlockParam["content"]): string {
  if (typeof content === "string") return content;
  return content.flatMap((b: ToolResultContentBlock) => (b.type === "text" ? [b.text] : [])).join("\n");
}

/** The result with its text replaced by `replacement`, at the first text block; other blocks (images) stay. */
function replaceText(content: ToolResultBlockParam["content"], replacement: string): ToolResultBlockParam["content"] {
  if (typeof content === "string" || content.every((b) => b.type === "text")) return replacement;
  const first = content.findIndex((b) => b.type === "text");
  return content.flatMap((b, i): ToolResultContentBlock[] => (b.type !== "text" ? [b] : i === first ? [{ type: "text", text: replacement }] : []));
}

/** The per-result persistence threshold: min(tool limit, 50 000); a tool with an infinite limit is never persisted. */
export function persistenceThreshold(tool: Pick<AnyTool, "maxResultSizeChars">): number {
  if (!Number.isFinite(tool.maxResultSizeChars)) return Number.POSITIVE_INFINITY;
  return Math.min(tool.maxResultSizeChars, MAX_INLINE_RESULT_CHARS);
}

function formatSize(chars: number): string {
  if (chars < 1024) return `${chars} chars`;
  const kb = chars / 1024;
  return kb < 1024 ? `${kb.toFixed(1)} KB` : `${(kb / 1024).toFixed(1)} MB`;
}

/** A preview of about `max` chars, cut at a line end when one is near. */
export function previewText(text: string, max = PERSISTED_PREVIEW_CHARS): { preview: string; truncated: boolean } {
  if (text.length <= max) return { preview: text, truncated: false };
  const slice = text.slice(0, max);
  const lastNewline = slice.lastIndexOf("\n");
  return { preview: lastNewline > max / 2 ? slice.slice(0, lastNewline) : slice, truncated: true };
}

export function buildPersistedOutputMessage(text: string, filePath: string): string {
  const { preview, truncated } = previewText(text);
  const lines = [
    "<persisted-output>",
    `This result was too large to include (${formatSize(text.length)}, ${text.length} characters).`,
    `The full result is saved at: ${filePath}`,
    "Read that file (with offset and limit) or search it with Grep to see the rest.",
    "",
    `Preview (first ${formatSize(preview.length)}):`,
    preview,
  ];
  if (truncated) lines.push("...");
  lines.push("</persisted-output>");
  return lines.join("\n");
}

function resultFileName(toolUseID: string): string {
  return `${toolUseID.replace(/[^A-Za-z0-9_-]/g, "_") || "tool-result"}.txt`;
}

async function persistBlock(block: ToolResultBlockParam, context: ToolUseContext): Promise<ToolResultBlockParam> {
  const text = contentText(block.content);
  const dir = context.paths.toolResultsDir;
  await ensurePrivateDir(dir);
  const filePath = path.join(dir, resultFileName(block.tool_use_id));
  await writePrivateFile(filePath, text);
  const replacement = replaceText(block.content, buildPersistedOutputMessage(text, filePath));
  context.contentReplacementState.replacements.set(block.tool_use_id, replacement);
  context.contentReplacementState.seen.add(block.tool_use_id);
  return { ...block, content: replacement };
}

/** Step 10 of the pipeline: persist one result that exceeds its tool's threshold. */
export async function maybePersistLargeToolResult(
  tool: Pick<AnyTool, "maxResultSizeChars">,
  block: ToolResultBlockParam,
  context: ToolUseContext,
): Promise<ToolResultBlockParam> {
  const replaced = context.contentReplacementState.replacements.get(block.tool_use_id);
  if (replaced !== undefined) return { ...block, content: replaced };
  const threshold = persistenceThreshold(tool);
  if (toolResultTextLength(block.content) <= threshold) return block;
  return persistBlock(block, context);
}

export interface BudgetEntry {
  block: ToolResultBlockParam;
  /** The tool that produced it; tools with an infinite maxResultSizeChars (Read) are never persisted. */
  tool?: Pick<AnyTool, "maxResultSizeChars">;
}

/**
 * Keep the tool_results of one user message under the budget by persisting the largest results not yet
 * judged. A result judged once keeps its fate: a replacement is replayed verbatim, a kept result stays.
 */
export async function applyToolResultBudget(
  entries: readonly BudgetEntry[],
  context: ToolUseContext,
  budget = MAX_TOOL_RESULTS_PER_MESSAGE_CHARS,
): Promise<ToolResultBlockParam[]> {
  const state = context.contentReplacementState;
  const blocks = entries.map(({ block }) => {
    const replaced = state.replacements.get(block.tool_use_id);
    return replaced !== undefined ? { ...block, content: replaced } : block;
  });
  let total = blocks.reduce((n, b) => n + toolResultTextLength(b.content), 0);
  const fresh = entries
    .map((entry, index) => ({ entry, index, size: toolResultTextLength(blocks[index].content) }))
    .filter(
      ({ entry, index }) =>
        !state.seen.has(entry.block.tool_use_id) &&
        toolResultTextLength(blocks[index].content) > 0 &&
        Number.isFinite(entry.tool?.maxResultSizeChars ?? 0),
    )
    .sort((a, b) => b.size - a.size);
  for (const candidate of fresh) {
    if (total <= budget) break;
    const persisted = await persistBlock(blocks[candidate.index], context);
    total += toolResultTextLength(persisted.content) - candidate.size;
    blocks[candidate.index] = persisted;
  }
  for (const { block } of entries) state.seen.add(block.tool_use_id);
  return blocks;
}
