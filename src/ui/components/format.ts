import path from "node:path";
import type { ToolResultBlockParam } from "../../core/messages.js";

/** A member of a partial input that should be a string: the string, or undefined for anything else. */
export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}

/** A path as the user reads it: relative to the session's directory when inside it, else as given. */
export function displayPath(filePath: string, cwd: string): string {
  if (!path.isAbsolute(filePath) || cwd === "") return filePath;
  const relative = path.relative(cwd, filePath);
  if (relative === "") return ".";
  return relative.startsWith("..") || path.isAbsolute(relative) ? filePath : relative;
}

/** One line of at most `max` characters: newlines shown as ⏎, an ellipsis where it was cut. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\r?\n/g, " ⏎ ");
  if (max <= 1) return flat.slice(0, Math.max(0, max));
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The text of a tool_result's content (images as a placeholder). */
export function contentText(content: ToolResultBlockParam["content"] | undefined): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => {
      if (block && typeof block === "object" && "type" in block) {
        if (block.type === "text" && typeof (block as { text?: unknown }).text === "string") return (block as { text: string }).text;
        if (block.type === "image") return "[image]";
        return `[${String(block.type)}]`;
      }
      return "";
    })
    .join("\n");
}

/** Lines of a text, without the empty one after a final newline. */
export function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m ${Math.round(seconds - minutes * 60)}s`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A JSON value in one short line, for argument summaries; never throws (cycles, BigInt). */
export function compactJson(value: unknown, max: number): string {
  let text: string;
  try {
    text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return oneLine(text, max);
}
