/**
 * CONTRACT (to be implemented by the permissions work, issue 3). Tools code against these signatures.
 * Every function here must be replaced by a real implementation; the bodies below only mark the API.
 */
import type { PermissionDecider } from "../core/Tool.js";
import type { PermissionBehavior, PermissionResult, PermissionRule, ToolPermissionContext } from "../core/permissionTypes.js";

const pending = (name: string): never => {
  throw new Error(`permissions: ${name} is not implemented yet`);
};

/**
 * Read access to an absolute path (Read, Glob, Grep; `Read(...)` rules). Checks the path and its realpath.
 * deny rule → deny; ask rule → ask; allow rule → allow; inside a working directory → allow;
 * else passthrough with suggestions (a Read rule for the directory, or adding the directory).
 */
export function checkReadPermissionForPath(absPath: string, ctx: ToolPermissionContext): PermissionResult {
  return pending(`checkReadPermissionForPath(${absPath}, ${ctx.mode})`);
}

/**
 * Write access to an absolute path (Edit, MultiEdit, Write, NotebookEdit, Bash redirections; `Edit(...)` rules).
 * Checks the path and its realpath. deny rule → deny; ask rule → ask (decisionReason type "rule");
 * safety path (.git/, .toolgate/, .vscode/, shell rc files, .mcp.json, .gitconfig) → ask (type "safetyCheck");
 * allow rule → allow; acceptEdits and inside a working directory → allow; else passthrough with suggestions.
 */
export function checkWritePermissionForPath(absPath: string, ctx: ToolPermissionContext): PermissionResult {
  return pending(`checkWritePermissionForPath(${absPath}, ${ctx.mode})`);
}

/** The Read deny rule covering this absolute path, if any (to drop Glob/Grep results). */
export function matchingReadDenyRule(absPath: string, ctx: ToolPermissionContext): PermissionRule | undefined {
  return pending(`matchingReadDenyRule(${absPath}, ${ctx.mode})`);
}

/** Ripgrep-style globs, relative to searchRoot, covering Read-denied paths (pass each as `--glob !<g>`). */
export function readDenyGlobsForRoot(ctx: ToolPermissionContext, searchRoot: string): string[] {
  return pending(`readDenyGlobsForRoot(${ctx.mode}, ${searchRoot})`);
}

/** cwd first, then additional working directories; absolute and deduplicated. */
export function getWorkingDirectories(ctx: ToolPermissionContext): string[] {
  return pending(`getWorkingDirectories(${ctx.mode})`);
}

export function isInWorkingDirectories(absPath: string, ctx: ToolPermissionContext): boolean {
  return pending(`isInWorkingDirectories(${absPath}, ${ctx.mode})`);
}

/** Rules `Tool(content)` for this tool and behaviour, in precedence order (highest source first). */
export function getContentRulesForTool(ctx: ToolPermissionContext, toolName: string, behavior: PermissionBehavior): PermissionRule[] {
  return pending(`getContentRulesForTool(${ctx.mode}, ${toolName}, ${behavior})`);
}

/** Command rule content matching: exact `npm test`, prefix `npm run:*`, wildcard `git *` (trailing ` *` optional). */
export function matchCommandPattern(ruleContent: string, command: string): boolean {
  return pending(`matchCommandPattern(${ruleContent}, ${command})`);
}

/** The full decision order of SPEC section 4, for the pipeline's permission step. */
export const hasPermissionsToUseTool: PermissionDecider = async (tool) => pending(`hasPermissionsToUseTool(${tool.name})`);

/** Human-readable explanation of a decision: which rule, which source and file, which part matched. */
export function formatDecisionExplanation(result: PermissionResult): string {
  return pending(`formatDecisionExplanation(${result.behavior})`);
}
