import type { GrepOutputMode } from "./args.js";
import type { ContentRecord } from "./parse.js";

/** Which slice of the results this call returns. */
export interface GrepPage {
  offset: number;
  /** 0 = no limit. */
  headLimit: number;
  /** Entries (lines, files or count rows) in this page. */
  shown: number;
  /** Entries in all the results. */
  total: number;
  hasMore: boolean;
}

interface GrepOutputCommon {
  page: GrepPage;
  durationMs: number;
  /** The search stopped early; the results are only part of what exists. */
  partial?: "timeout" | "output_limit";
  /** The limit that applied, for the timeout message. */
  timeoutMs: number;
  /** Explicitly searched binary files that match (their lines are never shown). */
  binaryFiles?: string[];
  /** Files ripgrep could not read. */
  warnings?: string[];
}

/** Paths are relative to the session cwd when inside it, absolute otherwise. */
export type GrepOutput = GrepOutputCommon &
  (
    | { mode: "files_with_matches"; filenames: string[]; numFiles: number }
    | { mode: "content"; lines: ContentRecord[]; numLines: number; numFiles: number; showLineNumbers: boolean; showSeparators: boolean }
    | { mode: "count"; counts: Array<{ path: string; count: number }>; numMatches: number; numFiles: number }
  );

export type { GrepOutputMode };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : /(s|x|z|ch|sh)$/.test(word) ? "es" : "s"}`;

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

const ENTRY_WORD: Record<GrepOutputMode, string> = { files_with_matches: "files", content: "lines", count: "entries" };

/** The note that tells the model where this page sits and how to get the next one. */
export function paginationNote(page: GrepPage, mode: GrepOutputMode): string | undefined {
  const word = ENTRY_WORD[mode];
  if (page.total > 0 && page.shown === 0) {
    return `[offset=${page.offset} is past the end: there are only ${page.total} ${word}. Use a smaller offset.]`;
  }
  const range = `${word} ${page.offset + 1}-${page.offset + page.shown} of ${page.total}`;
  if (page.hasMore) {
    const limit = page.headLimit > 0 ? `, head_limit=${page.headLimit}` : "";
    return `[Showing ${range}. For the next page call Grep again with the same parameters and offset=${page.offset + page.shown}${limit}.]`;
  }
  if (page.offset > 0) return `[Showing ${range} (the last page).]`;
  return undefined;
}

function contentLines(output: Extract<GrepOutput, { mode: "content" }>): string[] {
  const out: string[] = [];
  let previous: ContentRecord | undefined;
  for (const record of output.lines) {
    const startsGroup = previous !== undefined && (previous.path !== record.path || previous.line + 1 !== record.line);
    if (output.showSeparators && startsGroup) out.push("--");
    const sep = record.isMatch ? ":" : "-";
    out.push(output.showLineNumbers ? `${record.path}${sep}${record.line}${sep}${record.text}` : `${record.path}${sep}${record.text}`);
    previous = record;
  }
  return out;
}

function partialNote(output: GrepOutput, found: boolean): string | undefined {
  if (output.partial === "timeout") {
    const what = found
      ? "so these results are partial (there may be more matches)."
      : "before it found any match; this does NOT mean there are none.";
    return `[The search timed out after ${formatSeconds(output.timeoutMs)} and ripgrep was stopped, ${what} Narrow it with a more specific path, glob or type, or ask the user to raise grep.timeoutMs in the settings.]`;
  }
  if (output.partial === "output_limit") {
    return "[ripgrep produced too much output and was stopped, so these results are partial. Narrow the search with a more specific pattern, path, glob or type.]";
  }
  return undefined;
}

/** The model-facing text of a Grep result. */
export function formatGrepResult(output: GrepOutput): string {
  const lines: string[] = [];
  const found = output.page.total > 0;
  if (output.mode === "files_with_matches") {
    lines.push(found ? `Found ${plural(output.numFiles, "file")} (most recently modified first)` : "No files found");
    lines.push(...output.filenames);
  } else if (output.mode === "content") {
    if (found) lines.push(...contentLines(output));
    else if (!output.binaryFiles?.length) lines.push("No matches found");
  } else {
    lines.push(...output.counts.map((entry) => `${entry.path}:${entry.count}`));
    lines.push(
      found
        ? `\nFound ${plural(output.numMatches, "match")} across ${plural(output.numFiles, "file")}.`
        : "No matches found",
    );
  }
  for (const file of output.binaryFiles ?? []) lines.push(`(${file} is a binary file that matches; its lines are not shown.)`);
  const notes = [paginationNote(output.page, output.mode), partialNote(output, found)].filter((n): n is string => n !== undefined);
  if (output.warnings?.length) {
    const shown = output.warnings.slice(0, 5);
    const more = output.warnings.length - shown.length;
    notes.push(`[Some files could not be searched:\n${shown.join("\n")}${more > 0 ? `\n…and ${more} more` : ""}]`);
  }
  if (notes.length) lines.push("", ...notes);
  return lines.join("\n").replace(/^\n+/, "");
}

/** A timeout before anything was found is a failed search, not an empty one. */
export function isFailedSearch(output: GrepOutput): boolean {
  return output.partial === "timeout" && output.page.total === 0;
}
