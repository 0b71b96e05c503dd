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

/** Higher rank = higher precedence, for reporting; the verdict itself is deny > ask > allow whatever the source. */
const SOURCE_RANK = new Map<PermissionRuleSource, number>(PERMISSION_RULE_SOURCES.map((source, index) => [source, index]));

export function compareRulesByPrecedence(a: PermissionRule, b: PermissionRule): number {
  return (SOURCE_RANK.get(b.source) ?? -1) - (SOURCE_RANK.get(a.source) ?? -1);
}

type ToolIdentity = Pick<AnyTool, "name" | "aliases" | "mcpInfo">;

/** Each list holds its rules highest source first. */
interface BehaviorIndex {
  wholeByName: Map<string, PermissionRule[]>;
  contentByName: Map<string, PermissionRule[]>;
  /** `mcp__server` and `mcp__server__*`, by normalized server name. */
  wholeByMcpServer: Map<string, PermissionRule[]>;
}

interface RuleIndex {
  length: number;
  byBehavior: Record<PermissionBehavior, BehaviorIndex>;
}

const indexCache = new WeakMap<readonly PermissionRule[], RuleIndex>();

function push<K>(map: Map<K, PermissionRule[]>, key: K, rule: PermissionRule) {
  const list = map.get(key);
  if (list) list.push(rule);
  else map.set(key, [rule]);
}

/**
 * Rules grouped by behaviour and tool, sorted once per rules array. Contexts replace their rules array
 * on every change; an array that changed length in place is re-indexed too.
 */
function indexRules(rules: readonly PermissionRule[]): RuleIndex {
  const cached = indexCache.get(rules);
  if (cached && cached.length === rules.length) return cached;
  const make = (): BehaviorIndex => ({ wholeByName: new Map(), contentByName: new Map(), wholeByMcpServer: new Map() });
  const byBehavior: RuleIndex["byBehavior"] = { allow: make(), deny: make(), ask: make() };
  const sorted = [...rules].sort(compareRulesByPrecedence);
  for (const rule of sorted) {
    const index = byBehavior[rule.ruleBehavior];
    if (!index) continue;
    const { toolName, ruleContent } = rule.ruleValue;
    if (ruleContent !== undefined) {
      push(index.contentByName, toolName, rule);
      continue;
    }
    push(index.wholeByName, toolName, rule);
    const mcp = parseMcpToolName(toolName);
    if (mcp && (mcp.toolName === undefined || mcp.toolName === "*")) push(index.wholeByMcpServer, mcp.serverName, rule);
  }
  const index = { length: rules.length, byBehavior };
  indexCache.set(rules, index);
  return index;
}

function mcpServerOf(tool: ToolIdentity): string | undefined {
  if (tool.mcpInfo) return normalizeNameForMcp(tool.mcpInfo.serverName);
  return parseMcpToolName(tool.name)?.serverName;
}

/** A rule without content naming this tool, one of its aliases, or (`mcp__server`, `mcp__server__*`) its server. */
export function ruleMatchesWholeTool(value: PermissionRuleValue, tool: ToolIdentity): boolean {
  if (value.ruleContent !== undefined) return false;
  if (value.toolName === tool.name || tool.aliases?.includes(value.toolName)) return true;
  const ruleMcp = parseMcpToolName(value.toolName);
  if (!ruleMcp || (ruleMcp.toolName !== undefined && ruleMcp.toolName !== "*")) return false;
  return mcpServerOf(tool) === ruleMcp.serverName;
}

function firstByPrecedence(lists: Array<readonly PermissionRule[] | undefined>): PermissionRule | undefined {
  let best: PermissionRule | undefined;
  for (const list of lists) {
    const candidate = list?.[0];
    if (candidate && (!best || compareRulesByPrecedence(candidate, best) < 0)) best = candidate;
  }
  return best;
}

/** The highest-precedence whole-tool rule of this behaviour covering the tool. */
export function getWholeToolRule(ctx: ToolPermissionContext, tool: ToolIdentity, behavior: PermissionBehavior): PermissionRule | undefined {
  const index = indexRules(ctx.rules).byBehavior[behavior];
  const lists = [index.wholeByName.get(tool.name), ...(tool.aliases ?? []).map((alias) => index.wholeByName.get(alias))];
  const server = mcpServerOf(tool);
  if (server) lists.push(index.wholeByMcpServer.get(server));
  return firstByPrecedence(lists);
}

/** Rules `Tool(content)` for this tool name (or any of `names`) and behaviour, highest source first. */
export function getContentRulesForTool(
  ctx: ToolPermissionContext,
  toolName: string | readonly string[],
  behavior: PermissionBehavior,
): PermissionRule[] {
  const index = indexRules(ctx.rules).byBehavior[behavior];
  if (typeof toolName === "string") return [...(index.contentByName.get(toolName) ?? [])];
  const out = toolName.flatMap((name) => index.contentByName.get(name) ?? []);
  return toolName.length > 1 ? [...new Set(out)].sort(compareRulesByPrecedence) : out;
}

/** Content rules of one tool name without copying; callers must not mutate the array. */
export function contentRulesView(ctx: ToolPermissionContext, toolName: string, behavior: PermissionBehavior): readonly PermissionRule[] {
  return indexRules(ctx.rules).byBehavior[behavior].contentByName.get(toolName) ?? [];
}

/** Whole-tool rules for exactly `toolName`, highest source first; callers must not mutate the array. */
export function wholeToolRulesView(ctx: ToolPermissionContext, toolName: string, behavior: PermissionBehavior): readonly PermissionRule[] {
  return indexRules(ctx.rules).byBehavior[behavior].wholeByName.get(toolName) ?? [];
}

export function ruleToString(rule: PermissionRule | PermissionRuleValue): string {
  return formatPermissionRule("ruleValue" in rule ? rule.ruleValue : rule);
}
