import { GLOB_MAX_RESULTS } from "./glob.js";

export const GLOB_TOOL_NAME = "Glob";

export const GLOB_DESCRIPTION = "Find files by name with a glob pattern, newest modified first.";

export function globPrompt(): string {
  return `Finds files whose paths match a glob pattern, fast on trees of any size.

- Patterns use standard glob syntax: "*" stays within one directory, "**" spans any depth, "?" is one character, "{ts,tsx}" lists alternatives, "[abc]" is a character class. Examples: "**/*.ts", "src/**/*.test.ts", "*.{json,yaml}", "/abs/project/docs/**/*.md".
- The pattern is matched against paths relative to "path" (default: the current working directory). An absolute pattern carries its own directory and "path" is then not used.
- Results are the files (not directories) that match, ordered by modification time with the most recently modified last, at most ${GLOB_MAX_RESULTS} (the newest); when there are more, the result says how many and you should narrow the pattern or path.
- Hidden files are included and .gitignore is not applied unless the project settings say otherwise; version-control folders (.git, .hg, .svn, .jj, .bzr) are never listed, nor are files the permission rules forbid reading.
- To search file contents, use Grep instead. Several Glob calls can run in parallel when you are looking for different things.`;
}
