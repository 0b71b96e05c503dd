import fs from "node:fs";
import path from "node:path";
import { AbortError, TelemetrySafeError } from "../../core/errors.js";
import type { ToolPermissionContext } from "../../core/permissionTypes.js";
import { readDenyGlobsForRoot } from "../../permissions/index.js";
import { isFatalRipgrepError, runRipgrep, type RipgrepOutcome } from "../search/ripgrep.js";
import { createReadDenyFilter } from "../search/denyFilter.js";
import { sortNewestFirst } from "../search/newestFirst.js";
import { buildGrepArgs, type GrepArgsInput } from "./args.js";
import { createRecordParser, toContentRecord, type ContentRecord } from "./parse.js";

export interface GrepSearchOptions extends GrepArgsInput {
  /** Absolute file or directory to search. */
  target: string;
  permissionContext: ToolPermissionContext;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onHeartbeat?(progress: GrepProgress): void;
}

export interface GrepProgress {
  elapsedMs: number;
  /** Files with a match so far. */
  files: number;
  /** Matching lines (content), matches (count) or files (files_with_matches) so far. */
  matches: number;
}

/** Everything rg found, with absolute paths, before pagination. */
export interface GrepSearchResult {
  /** files_with_matches: newest modified first. */
  files: string[];
  /** content: rg's records grouped by file, files in path order (see contentPage). */
  content: Array<{ path: string; records: string[] }>;
  /** content: lines in all files. */
  numLines: number;
  /** count: per file, in path order. */
  counts: Array<{ path: string; count: number }>;
  /** Explicitly searched binary files that match (content mode shows no lines for them). */
  binaryFiles: string[];
  partial?: "timeout" | "output_limit";
  /** Files rg could not read (the search went on without them). */
  warnings: string[];
}

/** rg refused the search (bad regex, unknown type, bad glob); the message quotes rg and says what to change. */
export class GrepSearchError extends TelemetrySafeError {
  constructor(stderr: string) {
    super(`ripgrep rejected this search:\n${stderr}\n${hintFor(stderr)}`.trim(), `Grep: ripgrep rejected the search (${errorKind(stderr)})`);
    this.name = "GrepSearchError";
  }
}

function errorKind(stderr: string): string {
  if (/regex parse error|look-around|backreference/i.test(stderr)) return "regex";
  if (/unrecognized file type/.test(stderr)) return "type";
  if (/error parsing glob/.test(stderr)) return "glob";
  if (/size limit/.test(stderr)) return "size";
  return "other";
}

function hintFor(stderr: string): string {
  switch (errorKind(stderr)) {
    case "regex":
      return [
        "The pattern is a regular expression (Rust regex syntax, as in ripgrep).",
        "To match any of ( ) [ ] { } . * + ? | ^ $ \\ literally, escape it with a backslash: `foo\\(` finds \"foo(\", `interface\\{\\}` finds \"interface{}\".",
        /look-around|backreference/i.test(stderr) ? "Look-around and backreferences are not supported; match the text directly instead." : "",
      ]
        .filter(Boolean)
        .join("\n");
    case "type":
      return 'The "type" parameter takes a ripgrep file type name such as js, ts, py, rust, go, java or md; use "glob" (e.g. "*.vue") for anything else.';
    case "glob":
      return 'Check the "glob" parameter: braces must be balanced, and a literal { or [ is written [{] or [[].';
    case "size":
      return "The pattern is too large; make it simpler or split the search.";
    default:
      return "";
  }
}

function filePathWarnings(outcome: RipgrepOutcome): string[] {
  return outcome.exitCode === 2 ? outcome.stderr.split("\n").filter((line) => line.trim() !== "") : [];
}

/** Lines [offset, offset + limit) of the content results as ContentRecords; limit 0 = to the end. */
export function contentPage(content: GrepSearchResult["content"], offset: number, limit: number): ContentRecord[] {
  const out: ContentRecord[] = [];
  let skip = offset;
  for (const file of content) {
    if (limit > 0 && out.length >= limit) break;
    if (skip >= file.records.length) {
      skip -= file.records.length;
      continue;
    }
    const end = limit > 0 ? Math.min(file.records.length, skip + limit - out.length) : file.records.length;
    for (let i = skip; i < end; i++) out.push(toContentRecord(file.records[i], file.path));
    skip = 0;
  }
  return out;
}

/** Search with rg, drop Read-denied paths, and order the results deterministically. */
export async function grepSearch(options: GrepSearchOptions): Promise<GrepSearchResult> {
  const stat = fs.statSync(options.target, { throwIfNoEntry: false });
  const isFile = stat !== undefined && !stat.isDirectory();
  const searchDir = isFile ? path.dirname(options.target) : options.target;
  const rgTarget = isFile ? `./${path.basename(options.target)}` : ".";
  const empty: GrepSearchResult = { files: [], content: [], numLines: 0, counts: [], binaryFiles: [], warnings: [] };
  const denyGlobs = readDenyGlobsForRoot(options.permissionContext, searchDir);
  if (denyGlobs.includes("**")) return empty;

  // rg walks a directory without --follow; a single file given as the target is followed (it may be a link).
  const allowed = createReadDenyFilter(options.permissionContext, { walked: !isFile });
  const absolute = (relative: string) => path.join(searchDir, relative);

  const files: string[] = [];
  const linesByFile = new Map<string, string[]>();
  const counts: Array<{ path: string; count: number }> = [];
  const binaryFiles: string[] = [];
  let matchCount = 0;

  let onRecord: (record: string) => void;
  if (options.mode === "files_with_matches") {
    onRecord = (record) => {
      if (record) files.push(absolute(record));
    };
  } else {
    const parse = createRecordParser(options.mode);
    // consecutive lines come from the same file: resolve its path and group once per run of lines
    let lastRelative: string | undefined;
    let lastGroup: string[] = [];
    onRecord = (raw) => {
      const parsed = parse(raw);
      if (!parsed) return;
      if (parsed.kind === "binary") binaryFiles.push(absolute(parsed.path));
      else if (parsed.kind === "count") {
        counts.push({ path: absolute(parsed.path), count: parsed.count });
        matchCount += parsed.count;
      } else {
        if (parsed.path !== lastRelative) {
          lastRelative = parsed.path;
          const abs = absolute(parsed.path);
          let group = linesByFile.get(abs);
          if (!group) linesByFile.set(abs, (group = []));
          lastGroup = group;
        }
        lastGroup.push(parsed.raw);
        if (parsed.isMatch) matchCount++;
      }
    };
  }

  const outcome = await runRipgrep({
    args: buildGrepArgs(options, denyGlobs, rgTarget),
    cwd: searchDir,
    env: options.env,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    separator: options.mode === "files_with_matches" ? "\0" : "\n",
    onRecord,
    onHeartbeat: options.onHeartbeat
      ? (elapsedMs) => {
          const fileCount = files.length + linesByFile.size + counts.length;
          options.onHeartbeat?.({ elapsedMs, files: fileCount, matches: options.mode === "files_with_matches" ? fileCount : matchCount });
        }
      : undefined,
  });
  if (outcome.stopped === "aborted") throw new AbortError();
  if (isFatalRipgrepError(outcome)) throw new GrepSearchError(outcome.stderr);

  const byPath = <T extends { path: string }>(a: T, b: T) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const content = [...linesByFile.keys()]
    .filter(allowed)
    .sort()
    .map((file) => ({ path: file, records: linesByFile.get(file) ?? [] }));
  const result: GrepSearchResult = {
    files: await sortNewestFirst(files.filter(allowed), options.signal),
    content,
    numLines: content.reduce((n, file) => n + file.records.length, 0),
    counts: counts.filter((entry) => allowed(entry.path)).sort(byPath),
    binaryFiles: binaryFiles.filter(allowed),
    warnings: filePathWarnings(outcome),
  };
  if (outcome.stopped) result.partial = outcome.stopped;
  return result;
}
