import path from "node:path";
import type { ToolPermissionContext } from "../../core/permissionTypes.js";
import { matchingReadDenyRule, resolveRealPath } from "../../permissions/index.js";

/** A path with a `.` or `..` segment (or an empty one): its directory is not simply what precedes its last `/`. */
const UNNORMALIZED_SEGMENT = /\/\.{0,2}(?=\/|$)/;

/**
 * A predicate over absolute result paths: false for those a Read deny rule covers. Every path goes
 * through the engine's matchingReadDenyRule (the rg exclusion globs only save work, correctness never
 * rests on them). A session without any deny rule skips the check.
 *
 * `walked`: the paths were listed by rg's directory walk without `--follow`, which never lists a symlink
 * (to a file or a directory) below the paths it was given. Such a path's real path is its directory's real
 * path plus its name, so each directory is resolved once, not each path (a realpath and an exists syscall,
 * ~25 µs, over a second on 50 000 results). A symlinked directory on the way (the search root itself, or
 * any ancestor) is still resolved, so a path through it is judged where it leads. Without `walked` (e.g. a
 * single file given to rg, which it follows if it is a link), every path is resolved alone.
 */
export function createReadDenyFilter(ctx: ToolPermissionContext, options: { walked?: boolean } = {}): (absPath: string) => boolean {
  if (!ctx.rules.some((rule) => rule.ruleBehavior === "deny")) return () => true;
  const each = (absPath: string) => matchingReadDenyRule(absPath, ctx) === undefined;
  if (!options.walked) return each;
  const realDirs = new Map<string, string>();
  return (absPath) => {
    const slash = absPath.lastIndexOf("/");
    if (!path.isAbsolute(absPath) || slash <= 0 || slash === absPath.length - 1 || UNNORMALIZED_SEGMENT.test(absPath)) return each(absPath);
    const dir = absPath.slice(0, slash);
    let realDir = realDirs.get(dir);
    if (realDir === undefined) realDirs.set(dir, (realDir = resolveRealPath(dir)));
    const realPath = realDir === dir ? absPath : `${realDir}${absPath.slice(slash)}`;
    return matchingReadDenyRule(absPath, ctx, realPath) === undefined;
  };
}
