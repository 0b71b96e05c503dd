import path from "node:path";
import type { ToolResultBlockParam } from "../../core/messages.js";

/** CSI, OSC (ended by BEL or ST), DCS/SOS/PM/APC strings and two-character escapes. */
const ESCAPE_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]?|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[PX^_][^\u001b]*(?:\u001b\\)?|[ -~])?/g;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
const C1_AND_BIDI = /[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from outside (a model's input, a file, a command's output, a web page) made safe to print: escape
 * sequences could clear the screen, retitle the terminal or draw a fake prompt, and bidi overrides or a carriage
 * return could make a command read differently from what runs. `input` keeps every character visible (ESC as ␛,
 * CR as ␍) so what the user approves is what runs; `output` drops escape sequences (colours) and lets a carriage
 * return overwrite its line as a terminal would. Other control characters become their visible pictures, C1
 * controls and bidi marks become �, tabs become spaces (Ink measures a tab as zero columns).
 */
export function terminalSafe(text: string, mode: "input" | "output"): string {
  let out = text.replace(/\r\n/g, "\n");
  if (mode === "output") {
    out = out.replace(ESCAPE_SEQUENCE, "");
    if (out.includes("\r")) {
      out = out
        .split("\n")
        .map((line) => {
          const parts = line.split("\r");
          return parts.findLast((part) => part !== "") ?? "";
        })
        .join("\n");
    }
  }
  return out
    .replace(/\t/g, "    ")
    .replace(CONTROL, (c) => String.fromCharCode(c === "\u007f" ? 0x2421 : 0x2400 + c.charCodeAt(0)))
    .replace(C1_AND_BIDI, "\ufffd");
}

/** A member of a partial input that should be a string: the string (safe to print), or undefined for anything else. */
export function str(value: unknown): string | undefined {
  return typeof value === "string" ? terminalSafe(value, "input") : undefined;
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

/**
 * A line cut into rows of at most `width` characters, at the last space that fits (the space itself dropped);
 * only a word longer than a row is split. Counts each character as one column (a wide one takes two on screen).
 */
export function wrapLine(line: string, width: number): string[] {
  const max = Math.max(1, Math.floor(width));
  const chars = Array.from(line);
  const rows: string[] = [];
  let start = 0;
  while (chars.length - start > max) {
    let space = -1;
    for (let i = start + max; i > start; i--) {
      if (chars[i] === " ") {
        space = i;
        break;
      }
    }
    const end = space > start ? space : start + max;
    rows.push(chars.slice(start, end).join(""));
    start = space > start ? space + 1 : end;
  }
  rows.push(chars.slice(start).join(""));
  return rows;
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
  return oneLine(terminalSafe(text, "input"), max);
}
