import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import picomatch from "picomatch";
import { AbortError, TelemetrySafeError } from "../../core/errors.js";
import type { ToolPermissionContext } from "../../core/permissionTypes.js";
import { readDenyGlobsForRoot } from "../../permissions/index.js";
import { createReadDenyFilter } from "../shared/denyFilter.js";
import {
  BASE_ARGS,
  DEFAULT_SEARCH_TIMEOUT_MS,
  exclusionGlobArgs,
  isFatalRipgrepError,
  runRipgrep,
  VCS_DIRECTORIES,
  type RipgrepStopReason,
} from "../shared/ripgrep.js";
import { sortNewestFirst } from "../shared/newestFirst.js";

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
  const found: string[] = [];
  let listed = 0;
  const args = [
    ...BASE_ARGS,
    "--files",
    ...(options.includeHidden ? ["--hidden"] : []),
    ...(options.respectGitignore ? [] : ["--no-ignore"]),
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
      if (matches(relative)) found.push(relative);
    },
    onHeartbeat: options.onHeartbeat
      ? (elapsedMs) => options.onHeartbeat?.({ elapsedMs, filesListed: listed, filesMatched: found.length })
      : undefined,
  });
  if (outcome.stopped === "aborted") throw new AbortError();
  if (isFatalRipgrepError(outcome)) {
    throw new TelemetrySafeError(`ripgrep could not list files: ${outcome.stderr}`, "Glob: ripgrep failed");
  }
  const allowed = createReadDenyFilter(options.permissionContext);
  const absolute = found.map((relative) => path.join(root, relative)).filter(allowed);
  const files = await sortNewestFirst(absolute, options.signal);
  return outcome.stopped ? { files, partial: outcome.stopped } : { files };
}
