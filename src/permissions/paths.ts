import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isPathInside } from "../core/paths.js";
import type { ToolPermissionContext, WorkingDirectory } from "../core/permissionTypes.js";

/**
 * The real path of `target`, also for paths that do not exist yet: the deepest existing ancestor is
 * resolved and the rest appended, so a new file under a symlinked directory is judged where it will land.
 */
export function resolveRealPath(target: string): string {
  const missing: string[] = [];
  let current = target;
  for (;;) {
    // existsSync first: a thrown ENOENT costs more than the lookup itself
    if (fs.existsSync(current)) {
      try {
        const real = fs.realpathSync.native(current);
        return missing.length ? path.join(real, ...missing.reverse()) : real;
      } catch {
        // a dangling symlink or a race: keep walking up
      }
    }
    const parent = path.dirname(current);
    if (parent === current) return target;
    missing.push(path.basename(current));
    current = parent;
  }
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
