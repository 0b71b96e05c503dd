import { BASE_ARGS, exclusionGlobArgs } from "../search/ripgrep.js";

export type GrepOutputMode = "files_with_matches" | "content" | "count";

/** Longest line printed, in columns; rg shows a preview of the start and says the rest was cut. */
export const MAX_LINE_COLUMNS = 500;

export interface GrepArgsInput {
  pattern: string;
  mode: GrepOutputMode;
  globs: readonly string[];
  type?: string;
  caseInsensitive: boolean;
  multiline: boolean;
  before?: number;
  after?: number;
  context?: number;
}

/**
 * The `glob` parameter as a list: split at whitespace and at commas outside braces, so
 * `"*.ts, *.tsx"` is two globs and `"*.{ts,tsx}"` stays one.
 */
export function splitGlobList(glob: string): string[] {
  const globs: string[] = [];
  let current = "";
  let depth = 0;
  for (const char of glob) {
    if (char === "{") depth++;
    else if (char === "}" && depth > 0) depth--;
    if (depth === 0 && (/\s/.test(char) || char === ",")) {
      if (current) globs.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  if (current) globs.push(current);
  return globs;
}

/**
 * rg arguments for one search of `target` (a path relative to rg's cwd, which is the search directory).
 * Every mode prints `path\0…` so paths with `:` or spaces parse; content mode always asks for line
 * numbers (they tell match lines from context lines) and the tool drops them when `-n` is false.
 * The pattern goes through `--regexp=` so one starting with `-` is not read as a flag.
 */
export function buildGrepArgs(input: GrepArgsInput, denyGlobs: readonly string[], target: string): string[] {
  const args: string[] = [...BASE_ARGS, "--hidden", "--with-filename", "--no-heading"];
  if (input.mode === "files_with_matches") args.push("--files-with-matches");
  else if (input.mode === "count") args.push("--count-matches");
  else {
    args.push("--line-number", `--max-columns=${MAX_LINE_COLUMNS}`, "--max-columns-preview");
    // -C first: explicit -A / -B given with it win, as rg applies the later flag
    if (input.context !== undefined) args.push(`--context=${input.context}`);
    if (input.before !== undefined) args.push(`--before-context=${input.before}`);
    if (input.after !== undefined) args.push(`--after-context=${input.after}`);
  }
  if (input.caseInsensitive) args.push("--ignore-case");
  if (input.multiline) args.push("--multiline", "--multiline-dotall");
  if (input.type) args.push(`--type=${input.type}`);
  for (const glob of input.globs) args.push(`--glob=${glob}`);
  args.push(...exclusionGlobArgs(denyGlobs), `--regexp=${input.pattern}`, "--", target);
  return args;
}
