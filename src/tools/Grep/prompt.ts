export const GREP_TOOL_NAME = "Grep";

export const GREP_DEFAULT_HEAD_LIMIT = 250;

export const GREP_DESCRIPTION = "Search file contents with a regular expression (ripgrep).";

export function grepPrompt(): string {
  return `Searches file contents with ripgrep. Use it for every content search instead of running grep or rg through Bash: it is faster, respects the permission rules and pages its output.

- "pattern" is a regular expression in Rust/ripgrep syntax ("log.*Error", "function\\s+\\w+"). Braces, parentheses and other metacharacters match literally only when escaped: "interface\\{\\}" finds "interface{}". A pattern may start with "-".
- Narrow the search with "path" (a file or directory; default the current working directory), "glob" ("*.ts", "*.{ts,tsx}", "!**/test/**"; several separated by spaces or commas) or "type" (ripgrep file types: js, ts, py, rust, go, java, …; faster than glob for standard languages).
- "output_mode": "files_with_matches" (default) lists the matching files, most recently modified first; "content" shows the matching lines as path:line:text; "count" shows matches per file and the totals.
- In content mode: "-n" shows line numbers (default true), "-A" / "-B" / "-C" add lines of context after / before / around each match (context lines read path-line-text, groups are separated by "--").
- "-i" ignores case. "multiline": true lets a match span lines and makes "." match newlines (e.g. "struct \\w+ \\{[\\s\\S]*?\\}").
- Results are paged: "head_limit" (default ${GREP_DEFAULT_HEAD_LIMIT}; 0 for no limit) entries from "offset" (default 0). When there is more, the result says which offset to ask for next.
- Hidden files are searched; .gitignore'd files, version-control folders, binary files and files the permission rules forbid reading are not. Lines longer than 500 characters are cut with a marker.
- Searching a very large tree can time out; the result then says so and marks what it found as partial.`;
}
