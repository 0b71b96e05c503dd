import os from "node:os";
import path from "node:path";
import type { ToolUseContext } from "../../core/Tool.js";
import { expandPath } from "../../core/paths.js";

/** `~` and `~/x` expanded; a relative path stays relative (there is no session cwd to resolve it against). */
export function expandHome(input: string, home = os.homedir()): string {
  const trimmed = input.trim();
  if (trimmed === "~") return home;
  if (trimmed.startsWith("~/")) return path.join(home, trimmed.slice(2));
  return path.isAbsolute(trimmed) ? path.normalize(trimmed) : trimmed;
}

/**
 * The `path` parameter as hooks and permission checks should see it. The core calls
 * backfillObservableInput without the context, so a relative path can only be made absolute when a
 * caller passes one; checkPermissions resolves against the session cwd itself either way.
 */
export function observablePath(input: string | undefined, context?: ToolUseContext): string | undefined {
  if (input === undefined) return undefined;
  return context ? expandPath(input, context.getCwd()) : expandHome(input);
}
