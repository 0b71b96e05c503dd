import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import picomatch from "picomatch";
import { AbortError, TelemetrySafeError } from "../../core/errors.js";
import type { ToolPermissionContext } from "../../core/permissionTypes.js";
import { readDenyGlobsForRoot } from "../../permissions/index.js";
import { createReadDenyFilter } from "../search/denyFilter.js";
import {
  BASE_ARGS,
  DEFAULT_SEARCH_TIMEOUT_MS,
  exclusionGlobArgs,
  isFatalRipgrepError,
  runRipgrep,
  VCS_DIRECTORIES,
  type RipgrepStopReason,
} from "../search/ripgrep.js";
import { mtimeOf, orderNewestFirst, type TimedPath } from "../search/newestFirst.js";

export const GLOB_MAX_RESULTS = 100;

const GLOB_SYNTAX = /[*?[\]{}()\\]/;

function isGlobSegment(segment: string): boolean {
  return GLOB_SYNTAX.test(segment) || segment.startsWith("!");
}

/**
 * Split a pattern into the directory to walk and the pattern relative to it. Leading segments without
 * glob syntax move into the directory, so `/abs/src/**\/*.ts` walks `/abs/src` for `**\/*.ts` and
 * `src/*.ts` walks only `src`. The last segment always stays in the pattern.
 */
export function splitGlobPattern(pattern: string, baseDir: string, home = os.homedir()): { root: string; pattern: string } {
  let rest = pattern;
  let root = baseDir;
  if (rest === "~" || rest.startsWith("~/")) {
    root = home;
    rest = rest.slice(2);
  } else if (path.isAbsolute(rest)) {
    root = path.parse(rest).root;
    rest = rest.slice(root.length);
  }
  const segments = rest.split("/");
  let i = 0;
  while (i < segments.length - 1 && !isGlobSegment(segments[i])) {
    root = path.join(root, segments[i]);
    i++;
  }
  const relative = segments.slice(i).join("/");
  return { root: path.resolve(root), pattern: relative === "" ? "**" : relative };
}

/**
 * A pattern whose literal prefix walks into a VCS folder (`.git/**`) finds nothing, as it would without
 * the prefix moved into the root. A `path` that is itself inside one is an explicit request and is searched.
 */
function literalPrefixEntersVcs(pattern: string): boolean {
  const segments = pattern.split("/");
  for (const segment of segments.slice(0, -1)) {
    if (isGlobSegment(segment)) return false;
    if ((VCS_DIRECTORIES as readonly string[]).includes(segment)) return true;
  }
  return false;
}

/**
 * A glob segment both picomatch and ripgrep read the same way: literal text and `*`. Not `?`, which rg
 * matches against one byte (so not "ü"), nor U+FFFD, which stands for bytes that were not UTF-8.
 */
const PLAIN_SEGMENT = /^[^[\]{}()!+@\\?\uFFFD]+$/;

/**
 * Whether rg may pre-filter the listing with the pattern as a `--glob`: only for patterns whose meaning is
 * the same in both dialects (plain segments, whole-segment `**`, one level of `{a,b}` over plain text),
 * so rg never drops a path picomatch would match. picomatch still decides every path rg lists.
 */
export function rgCanPrefilter(pattern: string): boolean {
  // rg reads --glob values as gitignore lines, which lose trailing whitespace.
  if (/\s$/.test(pattern)) return false;
  return pattern.split("/").every((segment) => {
    if (segment === "**") return true;
    if (segment === "" || segment === "." || segment === ".." || segment.includes("**")) return false;
    const braces = /^([^{}]*)\{([^{}]*)\}([^{}]*)$/.exec(segment);
    if (!braces) return PLAIN_SEGMENT.test(segment);
    const [, before, inside, after] = braces;
    const alternatives = inside.split(",");
    // `{a}` is literal text to picomatch but an alternation to rg; empty alternatives are left out too.
    return alternatives.length > 1 && [before, after].every((part) => part === "" || PLAIN_SEGMENT.test(part)) && alternatives.every((part) => PLAIN_SEGMENT.test(part));
  });
}

export interface GlobSearchOptions {
  pattern: string;
  /** Absolute directory the pattern is relative to (the `path` parameter, or the session cwd). */
  baseDir: string;
  permissionContext: ToolPermissionContext;
  includeHidden: boolean;
  respectGitignore: boolean;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  timeoutMs?: number;
  onHeartbeat?(progress: GlobProgress): void;
}

export interface GlobProgress {
  elapsedMs: number;
  filesListed: number;
  filesMatched: number;
}

export interface GlobSearchResult {
  /** Absolute paths, newest modified first. */
  files: string[];
  /** Why the listing stopped early, if it did. */
  partial?: Exclude<RipgrepStopReason, "aborted">;
}

/**
 * Files under the pattern's directory matching it, newest first. rg walks the tree (hidden files,
 * ignore files, VCS folders, Read-deny globs, timeout and kill all handled there); picomatch matches in
 * process, because an rg `--glob` whitelist overrides .gitignore and so could not honour respectGitignore.
 */
export async function globSearch(options: GlobSearchOptions): Promise<GlobSearchResult> {
  const { root, pattern } = splitGlobPattern(options.pattern, options.baseDir);
  if (literalPrefixEntersVcs(options.pattern)) return { files: [] };
  if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) return { files: [] };
  const denyGlobs = readDenyGlobsForRoot(options.permissionContext, root);
  if (denyGlobs.includes("**")) return { files: [] };

  const matches = picomatch(pattern, { dot: true });
  const allowed = createReadDenyFilter(options.permissionContext, { walked: true });
  // Each match is stat'ed as its record arrives, while rg is still walking the tree in its own process,
  // rather than all of them on one thread after rg exits (~8.5 µs each).
  const found: TimedPath[] = [];
  let listed = 0;
  let matched = 0;
  const args = [
    ...BASE_ARGS,
    "--files",
    ...(options.includeHidden ? ["--hidden"] : []),
    ...(options.respectGitignore ? [] : ["--no-ignore"]),
    // A matching --glob overrides .gitignore and hidden-file rules in rg, so it is used only when neither applies.
    ...(!options.respectGitignore && options.includeHidden && rgCanPrefilter(pattern) ? [`--glob=/${pattern}`] : []),
    ...exclusionGlobArgs(denyGlobs),
    "--",
    ".",
  ];
  const outcome = await runRipgrep({
    args,
    cwd: root,
    env: options.env,
    timeoutMs: options.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS,
    signal: options.signal,
    separator: "\0",
    onRecord(record) {
      listed++;
      const relative = record.startsWith("./") ? record.slice(2) : record;
      if (!matches(relative)) return;
      matched++;
      const absolute = path.join(root, relative);
      if (allowed(absolute)) found.push({ path: absolute, mtimeMs: mtimeOf(absolute) });
    },
    onHeartbeat: options.onHeartbeat
      ? (elapsedMs) => options.onHeartbeat?.({ elapsedMs, filesListed: listed, filesMatched: matched })
      : undefined,
  });
  if (outcome.stopped === "aborted") throw new AbortError();
  if (isFatalRipgrepError(outcome)) {
    throw new TelemetrySafeError(`ripgrep could not list files: ${outcome.stderr}`, "Glob: ripgrep failed");
  }
  const files = orderNewestFirst(found);
  return outcome.stopped ? { files, partial: outcome.stopped } : { files };
}
