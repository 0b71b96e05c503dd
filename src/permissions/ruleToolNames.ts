import type { PermissionRule } from "../core/permissionTypes.js";
import { normalizeNameForMcp, parseMcpToolName } from "../core/registry.js";
import { suggestToolName } from "../core/toolNames.js";
import { describeRule } from "./describe.js";

/**
 * Tools of Claude Code that toolgate does not provide. Settings files are shared with Claude Code, so rules
 * naming them are not typos: they simply have nothing to match here.
 */
export const OTHER_AGENT_TOOL_NAMES: ReadonlySet<string> = new Set([
  "WebFetch",
  "WebSearch",
  "TodoWrite",
  "TodoRead",
  "Task",
  "Agent",
  "NotebookRead",
  "LS",
  "ExitPlanMode",
  "SlashCommand",
  "Skill",
  "KillBash",
  "ListMcpResourcesTool",
  "ReadMcpResourceTool",
]);

export interface RuleToolNameContext {
  /** Names and aliases of every tool the session could run, built-ins included. */
  toolNames: Iterable<string>;
  /**
   * Configured MCP servers by normalized name, with their tool names when connected (undefined when not).
   * Omit when the session did not load the MCP configuration: MCP rule names are then not judged.
   */
  mcpServers?: ReadonlyMap<string, readonly string[] | undefined>;
}

export type RuleToolNameProblem =
  /** Names no tool at all (a typo such as `bash` or `Reed`); the rule never matches. */
  | { kind: "unknownTool"; rule: PermissionRule; toolName: string; suggestion?: string }
  /** A connected MCP server has no such tool. */
  | { kind: "unknownMcpTool"; rule: PermissionRule; toolName: string; serverName: string; suggestion?: string }
  /** No MCP server of that name is configured (it may be configured later, or in another project). */
  | { kind: "mcpServerNotConfigured"; rule: PermissionRule; toolName: string; serverName: string }
  /** A tool of another agent (Claude Code's WebFetch, …) that toolgate does not have. */
  | { kind: "otherAgentTool"; rule: PermissionRule; toolName: string };

/** Rules whose tool name matches nothing the session knows, each with the closest known name when there is one. */
export function findRuleToolNameProblems(rules: readonly PermissionRule[], known: RuleToolNameContext): RuleToolNameProblem[] {
  const names = new Set(known.toolNames);
  const plainNames = [...names].filter((name) => !name.startsWith("mcp__"));
  const problems: RuleToolNameProblem[] = [];
  for (const rule of rules) {
    const toolName = rule.ruleValue.toolName;
    if (names.has(toolName)) continue;
    const mcp = parseMcpToolName(toolName);
    if (!mcp) {
      if (OTHER_AGENT_TOOL_NAMES.has(toolName)) problems.push({ kind: "otherAgentTool", rule, toolName });
      else problems.push({ kind: "unknownTool", rule, toolName, suggestion: suggestToolName(toolName, plainNames) });
      continue;
    }
    if (!known.mcpServers) continue;
    const serverName = normalizeNameForMcp(mcp.serverName);
    if (!known.mcpServers.has(serverName)) {
      problems.push({ kind: "mcpServerNotConfigured", rule, toolName, serverName });
      continue;
    }
    const serverTools = known.mcpServers.get(serverName);
    if (!serverTools || mcp.toolName === undefined || mcp.toolName === "*") continue;
    problems.push({ kind: "unknownMcpTool", rule, toolName, serverName, suggestion: suggestToolName(toolName, serverTools) });
  }
  return problems;
}

/** Problems that make a rule silently useless: a typo'd tool name, a tool a connected server lacks. */
export function isRuleToolNameTypo(problem: RuleToolNameProblem): boolean {
  return problem.kind === "unknownTool" || problem.kind === "unknownMcpTool";
}

/** `deny rule "bash(rm:*)" from project settings (/p/.toolgate/settings.json) names no tool "bash"; did you mean Bash? The rule never matches.` */
export function formatRuleToolNameProblem(problem: RuleToolNameProblem): string {
  const rule = `${problem.rule.ruleBehavior} rule ${describeRule(problem.rule)}`;
  const name = JSON.stringify(problem.toolName);
  switch (problem.kind) {
    case "unknownTool":
      return `${rule} names no tool ${name}${problem.suggestion ? `; did you mean ${problem.suggestion}?` : "."} The rule never matches.`;
    case "unknownMcpTool":
      return `${rule}: the MCP server ${problem.serverName} has no tool ${name}${problem.suggestion ? `; did you mean ${problem.suggestion}?` : "."}`;
    case "mcpServerNotConfigured":
      return `${rule}: no MCP server named ${problem.serverName} is configured, so it matches nothing for now.`;
    case "otherAgentTool":
      return `${rule}: ${problem.toolName} is not a toolgate tool (Claude Code has one), so it matches nothing here.`;
  }
}
