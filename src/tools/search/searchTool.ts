import type { ToolUseContext } from "../../core/Tool.js";
import type { PermissionResult } from "../../core/permissionTypes.js";
import { observablePath, readPermission, resolveToolPath } from "../files/toolPaths.js";

/** What Glob and Grep take alike: a pattern and the optional path they search. */
export interface SearchInput {
  pattern: string;
  path?: string;
}

/** Where the search starts: `path` resolved against the session cwd, or the cwd. */
export function searchPathOf(input: SearchInput, context: ToolUseContext): string {
  return input.path === undefined ? context.getCwd() : resolveToolPath(input.path, context);
}

/**
 * The members Glob and Grep share: a read-only search, stopped when the user interrupts, whose path hooks
 * and Read rules judge is `rootOf` (what the search actually walks).
 */
export function searchToolMembers<Input extends SearchInput>(rootOf: (input: Input, context: ToolUseContext) => string) {
  return {
    userFacingName: () => "Search",
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    // Reads only: safe to start while its input still streams.
    isSpeculationSafe: () => true,
    interruptBehavior: () => "cancel" as const,
    toAutoClassifierInput: (input: Input) => (input.path ? `${input.pattern} in ${input.path}` : input.pattern),
    getPath(input: Input, context?: ToolUseContext) {
      return context ? rootOf(input, context) : input.path === undefined ? "." : observablePath(input.path);
    },
    backfillObservableInput(input: Input, context?: ToolUseContext) {
      if (input.path !== undefined) input.path = observablePath(input.path, context);
    },
    ruleFamily: "read" as const,
    async checkPermissions(input: Input, context: ToolUseContext): Promise<PermissionResult> {
      return readPermission(rootOf(input, context), context);
    },
  };
}
