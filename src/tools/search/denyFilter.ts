import type { ToolPermissionContext } from "../../core/permissionTypes.js";
import { matchingReadDenyRule } from "../../permissions/index.js";

/**
 * A predicate over absolute result paths: false for those a Read deny rule covers. Every path goes
 * through the engine's matchingReadDenyRule (the rg exclusion globs only save work, correctness never
 * rests on them), once per path. A session without any deny rule skips the check: it costs a realpath
 * and an exists syscall per path, which on 50 000 results is over a second.
 */
export function createReadDenyFilter(ctx: ToolPermissionContext): (absPath: string) => boolean {
  if (!ctx.rules.some((rule) => rule.ruleBehavior === "deny")) return () => true;
  const verdicts = new Map<string, boolean>();
  return (absPath) => {
    let allowed = verdicts.get(absPath);
    if (allowed === undefined) {
      allowed = matchingReadDenyRule(absPath, ctx) === undefined;
      verdicts.set(absPath, allowed);
    }
    return allowed;
  };
}
