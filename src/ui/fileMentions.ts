/** `@path` completion: the project's files as ripgrep lists them (gitignore honoured), bounded in count and time. */
import { spawn } from "node:child_process";
import { rgPath } from "@vscode/ripgrep";

export const MAX_LISTED_FILES = 20_000;
const LIST_TIMEOUT_MS = 5_000;

/** Lists the project's files once; a huge tree is cut at MAX_LISTED_FILES, a slow one after a few seconds. */
export function listProjectFiles(cwd: string): Promise<string[]> {
  return new Promise((resolve) => {
    const files: string[] = [];
    let buffer = "";
    const child = spawn(rgPath, ["--files", "--hidden", "--glob", "!.git"], { cwd, stdio: ["ignore", "pipe", "ignore"] });
    const done = () => {
      clearTimeout(timer);
      resolve(files.sort());
    };
    const timer = setTimeout(() => child.kill(), LIST_TIMEOUT_MS);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) {
        if (files.length >= MAX_LISTED_FILES) {
          child.kill();
          break;
        }
        if (line) files.push(line);
      }
    });
    child.on("error", done);
    child.on("close", done);
  });
}

/** Files matching what was typed after `@`: names starting with it first, then paths containing it. */
export function matchFiles(files: readonly string[], query: string, limit = 8): string[] {
  const q = query.toLowerCase();
  const starts: string[] = [];
  const contains: string[] = [];
  for (const file of files) {
    const lower = file.toLowerCase();
    const base = lower.slice(lower.lastIndexOf("/") + 1);
    if (lower.startsWith(q) || base.startsWith(q)) starts.push(file);
    else if (lower.includes(q)) contains.push(file);
    if (starts.length >= limit) break;
  }
  return [...starts, ...contains].slice(0, limit);
}

/** The longest text every match starts with, so Tab can complete as far as the matches agree. */
export function commonPrefix(values: readonly string[]): string {
  if (values.length === 0) return "";
  let prefix = values[0]!;
  for (const value of values) while (!value.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}
