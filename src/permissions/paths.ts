import os from "node:os";
import path from "node:path";
import { isPathInside, resolvePhysicalPath } from "../core/paths.js";
import type { ToolPermissionContext, WorkingDirectory } from "../core/permissionTypes.js";

/**
 * The real path of `target`, also for paths that do not exist yet: symlinks are followed, dangling ones
 * and chains of them too, so a new file behind a link is judged where it will land.
 */
export function resolveRealPath(target: string): string {
  const { path: real, loop } = resolvePhysicalPath(target);
  // a link loop cannot be opened: judging the path as written is enough
  return loop ? target : real;
}

/** The path as given and its real path (when different): every check runs on both, the stricter wins. */
export function pathCandidates(absPath: string, cwd: string): string[] {
  const given = path.resolve(cwd, absPath);
  const real = resolveRealPath(given);
  return real === given ? [given] : [given, real];
}

export function userHomeDir(): string {
  return os.homedir();
}

/** cwd first, then additional working directories; absolute and deduplicated. */
export function getWorkingDirectories(ctx: ToolPermissionContext): string[] {
  const dirs = [path.resolve(ctx.cwd), ...ctx.additionalWorkingDirectories.map((d) => path.resolve(ctx.cwd, d.path))];
  return [...new Set(dirs)];
}

interface ResolvedDirectories {
  cwd: string;
  additional: readonly WorkingDirectory[];
  length: number;
  list: Array<{ dir: string; real: string }>;
}

/** Working directories with their real paths, resolved once per context until its directories change. */
const resolvedDirectories = new WeakMap<ToolPermissionContext, ResolvedDirectories>();

function directoriesWithRealPaths(ctx: ToolPermissionContext): Array<{ dir: string; real: string }> {
  const cached = resolvedDirectories.get(ctx);
  const additional = ctx.additionalWorkingDirectories;
  if (cached && cached.cwd === ctx.cwd && cached.additional === additional && cached.length === additional.length) return cached.list;
  const list = getWorkingDirectories(ctx).map((dir) => ({ dir, real: resolveRealPath(dir) }));
  resolvedDirectories.set(ctx, { cwd: ctx.cwd, additional, length: additional.length, list });
  return list;
}

/** The working directory containing `target` (compared with each directory and its real path). */
export function workingDirectoryContaining(target: string, ctx: ToolPermissionContext): string | undefined {
  for (const { dir, real } of directoriesWithRealPaths(ctx)) {
    if (isPathInside(target, dir) || (real !== dir && isPathInside(target, real))) return dir;
  }
  return undefined;
}

/** Inside the working directories: the path and its real path must both be inside one. */
export function isInWorkingDirectories(absPath: string, ctx: ToolPermissionContext): boolean {
  return pathCandidates(absPath, ctx.cwd).every((candidate) => workingDirectoryContaining(candidate, ctx) !== undefined);
}
