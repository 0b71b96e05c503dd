import type {
  PermissionBehavior,
  PermissionRule,
  PermissionRuleSource,
  PermissionRuleValue,
  ToolPermissionContext,
} from "../core/permissionTypes.js";
import { PERMISSION_RULE_SOURCES } from "../core/permissionTypes.js";
import type { AnyTool } from "../core/Tool.js";
import { normalizeNameForMcp, parseMcpToolName } from "../core/registry.js";
import { formatPermissionRule } from "./ruleParser.js";

/** Highest precedence first, for reporting; the verdict itself is deny > ask > allow whatever the source. */
const SOURCE_RANK = new Map<PermissionRuleSource, number>(
  PERMISSION_RULE_SOURCES.map((source, index) => [source, index]),
);

export function compareRulesByPrecedence(a: PermissionRule, b: PermissionRule): number {
  return (SOURCE_RANK.get(b.source) ?? 0) - (SOURCE_RANK.get(a.source) ?? 0);
}

type ToolIdentity = Pick<AnyTool, "name" | "aliases" | "mcpInfo">;

interface RuleIndex {
  length: number;
  /** behavior → rules, highest source first. */
  byBehavior: Record<PermissionBehavior, PermissionRule[]>;
}

const indexCache = new WeakMap<readonly PermissionRule[], RuleIndex>();

/** Rules grouped by behaviour and sorted once per rules array (a changed length rebuilds it). */
function indexRules(rules: readonly PermissionRule[]): RuleIndex {
  const cached = indexCache.get(rules);
  if (cached && cached.length === rules.length) return cached;
  const byBehavior: RuleIndex["byBehavior"] = { allow: [], deny: [], ask: [] };
  for (const rule of rules) byBehavior[rule.ruleBehavior]?.push(rule);
  for (const list of Object.values(byBehavior)) list.sort(compareRulesByPrecedence);
  const index = { length: rules.length, byBehavior };
  indexCache.set(rules, index);
  return index;
}

export function rulesByBehavior(ctx: ToolPermissionContext, behavior: PermissionBehavior): PermissionRule[] {
  return indexRules(ctx.rules).byBehavior[behavior];
}

function toolNames(tool: ToolIdentity): string[] {
  return [tool.name, ...(tool.aliases ?? [])];
}

function mcpServerOf(tool: ToolIdentity): string | undefined {
  if (tool.mcpInfo) return normalizeNameForMcp(tool.mcpInfo.serverName);
  return parseMcpToolName(tool.name)?.serverName;
}

/** A rule without content naming this tool, one of its aliases, or (`mcp__server`, `mcp__server__*`) its server. */
export function ruleMatchesWholeTool(value: PermissionRuleValue, tool: ToolIdentity): boolean {
  if (value.ruleContent !== undefined) return false;
  if (toolNames(tool).includes(value.toolName)) return true;
  const ruleMcp = parseMcpToolName(value.toolName);
  if (!ruleMcp) return false;
  const server = mcpServerOf(tool);
  if (!server || server !== ruleMcp.serverName) return false;
  return ruleMcp.toolName === undefined || ruleMcp.toolName === "*";
}

export function getWholeToolRule(ctx: ToolPermissionContext, tool: ToolIdentity, behavior: PermissionBehavior): PermissionRule | undefined {
  return rulesByBehavior(ctx, behavior).find((rule) => ruleMatchesWholeTool(rule.ruleValue, tool));
}

/** Rules `Tool(content)` for this tool name (or any of `names`) and behaviour, highest source first. */
export function getContentRulesForTool(
  ctx: ToolPermissionContext,
  toolName: string | readonly string[],
  behavior: PermissionBehavior,
): PermissionRule[] {
  const names = typeof toolName === "string" ? [toolName] : toolName;
  return rulesByBehavior(ctx, behavior).filter(
    (rule) => rule.ruleValue.ruleContent !== undefined && names.includes(rule.ruleValue.toolName),
  );
}

/** Whole-tool rules for `toolName` (exact name only), highest source first. */
export function getWholeToolRulesByName(ctx: ToolPermissionContext, toolName: string, behavior: PermissionBehavior): PermissionRule[] {
  return rulesByBehavior(ctx, behavior).filter(
    (rule) => rule.ruleValue.ruleContent === undefined && rule.ruleValue.toolName === toolName,
  );
}

export function ruleToString(rule: PermissionRule | PermissionRuleValue): string {
  return formatPermissionRule("ruleValue" in rule ? rule.ruleValue : rule);
}
