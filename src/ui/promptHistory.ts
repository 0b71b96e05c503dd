/** The prompts sent in this project, newest last, kept in the data home so ↑ finds them in the next session too. */
import fs from "node:fs";
import path from "node:path";
import { projectKey } from "../core/context.js";
import { appendPrivateFileSync, ensurePrivateDirSync, writePrivateFileSync } from "../util/privateFiles.js";

/** Entries kept per project; older ones are dropped when the file is rewritten. */
export const HISTORY_LIMIT = 500;

// Not `.jsonl`: the project's folder lists transcripts by that extension.
export function historyFile(home: string, cwd: string): string {
  return path.join(home, "projects", projectKey(cwd), "prompt-history.txt");
}

export class PromptHistory {
  private entries: string[];
  /** Position while browsing with ↑/↓; entries.length = not browsing. */
  private position: number;
  /** What was typed before browsing started, given back when ↓ goes past the newest entry. */
  private draft = "";

  constructor(private readonly file?: string) {
    this.entries = file ? readHistory(file) : [];
    this.position = this.entries.length;
  }

  list(): readonly string[] {
    return this.entries;
  }

  add(prompt: string): void {
    if (!prompt.trim()) return;
    if (this.entries.at(-1) !== prompt) {
      this.entries.push(prompt);
      if (this.entries.length > HISTORY_LIMIT) this.entries.splice(0, this.entries.length - HISTORY_LIMIT);
      if (this.file) appendHistory(this.file, prompt, this.entries);
    }
    this.position = this.entries.length;
    this.draft = "";
  }

  /** ↑: the entry before the one shown, or undefined at the oldest. */
  previous(current: string): string | undefined {
    if (this.position === 0) return undefined;
    if (this.position === this.entries.length) this.draft = current;
    this.position--;
    return this.entries[this.position];
  }

  /** ↓: the entry after the one shown, the draft after the newest, undefined when not browsing. */
  next(): string | undefined {
    if (this.position >= this.entries.length) return undefined;
    this.position++;
    return this.position === this.entries.length ? this.draft : this.entries[this.position];
  }
}

function readHistory(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return [];
  }
  // One JSON string per line (prompts may span lines); a damaged line is skipped, not fatal.
  return text.split("\n").flatMap((line) => {
    if (!line.trim()) return [];
    try {
      const value = JSON.parse(line);
      return typeof value === "string" ? [value] : [];
    } catch {
      return [];
    }
  }).slice(-HISTORY_LIMIT);
}

function appendHistory(file: string, prompt: string, entries: readonly string[]): void {
  try {
    ensurePrivateDirSync(path.dirname(file));
    appendPrivateFileSync(file, `${JSON.stringify(prompt)}\n`);
    // Rewritten only when it has grown well past the limit, so most prompts cost one append.
    if (fs.statSync(file).size > 4 * 1024 * 1024) writePrivateFileSync(file, entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
  } catch {
    // History is a convenience: a read-only home must not stop the prompt.
  }
}
