/** Rules and working directories as `toolgate permissions list`, doctor and the UI's /permissions print them. */
import type { PermissionBehavior, PermissionRule, ToolPermissionContext } from "../core/permissionTypes.js";
import { compareRulesByPrecedence, ruleToString } from "./rules.js";
import { sourceLabel } from "./describe.js";

const BEHAVIOR_ORDER: readonly PermissionBehavior[] = ["deny", "ask", "allow"];

/** Rules in the order they weigh: deny, ask, allow; within each, the highest source first. */
export function sortRules(rules: readonly PermissionRule[]): PermissionRule[] {
  return [...rules].sort((a, b) => BEHAVIOR_ORDER.indexOf(a.ruleBehavior) - BEHAVIOR_ORDER.indexOf(b.ruleBehavior) || compareRulesByPrecedence(a, b));
}

/** `deny   Bash(rm:*)      project settings — /p/.toolgate/settings.json`, aligned. */
export function formatRulesTable(rules: readonly PermissionRule[]): string[] {
  const sorted = sortRules(rules);
  const width = Math.max(0, ...sorted.map((r) => ruleToString(r).length));
  return sorted.map((r) => `${r.ruleBehavior.padEnd(5)}  ${ruleToString(r).padEnd(width)}  ${sourceLabel(r.source)}${r.file ? ` — ${r.file}` : ""}`);
}

/** `/work/app (cwd)`, `/work/lib (project settings — /work/app/.toolgate/settings.json)` */
export function workingDirectoryLines(ctx: ToolPermissionContext): string[] {
  return [
    `${ctx.cwd} (cwd)`,
    ...ctx.additionalWorkingDirectories.map((d) => `${d.path} (${d.source === "cwd" ? "cwd" : sourceLabel(d.source)}${d.file ? ` — ${d.file}` : ""})`),
  ];
}
