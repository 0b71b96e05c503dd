/**
 * What the permission dialog says in words: why a call is asked about (said once), and for a "don't ask again"
 * choice which rule it adds, what that rule covers and where it is kept, so a label never promises more or less
 * than choosing it does.
 */
import type { PermissionAskDecision, PermissionMode, PermissionRuleValue, PermissionUpdate, PermissionUpdateDestination } from "../core/permissionTypes.js";
import { describeDecisionReason, ruleToString } from "../permissions/index.js";

/** Why the dialog asks: a sentence, and for a command with several parts that need approval each one's reason. */
export interface WhyItAsks {
  summary: string;
  parts: string[];
}

/**
 * Why the dialog asks. The engine's message already names the rule, hook, mode or directory behind it, so the
 * reason is not added again; for a command with several parts that need approval each part's message is
 * listed instead of the first one followed by the others' names.
 */
export function whyItAsks(decision: PermissionAskDecision): WhyItAsks {
  const reason = decision.decisionReason;
  if (reason?.type === "subcommands") {
    const pending = reason.parts.filter((part) => part.result.behavior !== "allow");
    const messages = pending.map((part) => ("message" in part.result && part.result.message) || `\`${part.command}\` needs approval.`);
    // only when the message is the first pending part's, followed by the others' names
    if (pending.length > 1 && decision.message.startsWith(messages[0]!)) {
      return { summary: `${pending.length} of the ${reason.parts.length} parts of this command need approval:`, parts: messages };
    }
  }
  if (reason?.type === "hook" && !/\bhook\b/i.test(decision.message)) {
    return { summary: `A ${reason.hookEvent} hook${reason.command ? ` (${reason.command})` : ""} asks: ${decision.message}`, parts: [] };
  }
  return { summary: decision.message || describeDecisionReason(reason), parts: [] };
}

/** Where a remembered rule applies, as the label says it. */
const SCOPES: Record<PermissionUpdateDestination, string> = {
  session: "for the rest of this session",
  localSettings: "in this project, for you only",
  projectSettings: "in this project, for everyone who uses its settings",
  userSettings: "in any project",
};

export function scopeInWords(destination: PermissionUpdateDestination): string {
  return SCOPES[destination];
}

const GLOB = /[*?[\]{}]/;

/**
 * Whether a path pattern's place depends on the project: `/x` is relative to the settings file's root and
 * `./x`, `x` to the directory toolgate runs in, while `//abs` and `~/x` (and `/x` in user settings, which is
 * relative to the home directory) name one place wherever toolgate runs.
 */
function isProjectRelative(pattern: string, destination: PermissionUpdateDestination): boolean {
  if (pattern.startsWith("//") || pattern === "~" || pattern.startsWith("~/")) return false;
  return !(pattern.startsWith("/") && destination === "userSettings");
}

/** What a path pattern covers; the rule beside it shows the path, so the words say how much of it. */
function pathInWords(pattern: string, destination: PermissionUpdateDestination): string {
  const relative = isProjectRelative(pattern, destination);
  const place = pattern.replace(/^\/+/, "").replace(/^(\.\/)+/, "");
  // a relative rule in user settings means this place in whichever project toolgate runs in
  const anyProject = relative && destination === "userSettings" ? " of whichever project you are in" : "";
  if (place === "**" || place === "" || place === ".") return relative ? `any file${anyProject || " of this project"}` : "any file under that folder";
  if (place.endsWith("/**") && !GLOB.test(place.slice(0, -3))) return anyProject ? `only files under ${place.slice(0, -3)}/${anyProject}` : "only files under that folder";
  if (GLOB.test(place)) return anyProject ? `only paths matching ${place}${anyProject}` : "only paths matching that pattern";
  return anyProject ? `only ${place}${anyProject}` : "only that one file";
}

function splitMcp(toolName: string): { server: string; tool?: string } | undefined {
  const match = /^mcp__(.+?)(?:__(.+))?$/.exec(toolName);
  return match ? { server: match[1]!, ...(match[2] ? { tool: match[2] } : {}) } : undefined;
}

/** What one rule covers, saying so when it is narrow (one command, one prefix, one path, one host). */
export function ruleInWords(rule: PermissionRuleValue, destination: PermissionUpdateDestination): string {
  const content = rule.ruleContent;
  switch (rule.toolName) {
    case "Bash":
      if (content === undefined) return "every shell command";
      if (content.endsWith(":*")) return `only commands that start with \`${content.slice(0, -2)}\``;
      if (content.includes("*")) return "only commands matching that pattern";
      return "only this exact command";
    case "Read":
      return `reading ${content === undefined ? "any file" : pathInWords(content, destination)}`;
    case "Edit":
      return `changing ${content === undefined ? "any file" : pathInWords(content, destination)}`;
    case "WebFetch": {
      if (content === undefined) return "fetching any URL";
      const domain = /^domain:(.+)$/i.exec(content)?.[1]?.trim();
      if (domain?.startsWith("*.")) return `only fetching from the subdomains of ${domain.slice(2)}`;
      return domain ? "only fetching from that host" : "only fetches matching that pattern";
    }
    case "WebSearch":
      return content === undefined ? "every web search" : "only searches matching that pattern";
  }
  const mcp = splitMcp(rule.toolName);
  if (mcp) return mcp.tool ? `every call of this tool of the MCP server ${mcp.server}` : `every tool of the MCP server ${mcp.server}`;
  return content === undefined ? `every ${rule.toolName} call` : "only calls matching that pattern";
}

/**
 * `` `Bash(git push:*)` (only commands that start with `git push`) `` for each rule, and the directories added;
 * `brief` leaves out what each rule covers.
 */
export function updatesInWords(updates: readonly PermissionUpdate[], destination: PermissionUpdateDestination, { brief = false } = {}): string {
  const rules = updates.flatMap((u) => (u.type === "addRules" ? u.rules : []));
  const directories = updates.flatMap((u) => (u.type === "addDirectories" ? u.directories : []));
  const parts = rules.map((r) => `\`${ruleToString(r)}\`${brief ? "" : ` (${ruleInWords(r, destination)})`}`);
  const ruleText = parts.length <= 2 ? parts.join(" and ") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
  const dirText = directories.length ? `add ${directories.join(", ")} to the working directories` : "";
  if (!ruleText) return dirText;
  return dirText ? `${ruleText}, and ${dirText}` : ruleText;
}

/** What switching mode changes, for the modes the engine suggests. */
const MODE_EFFECTS: Partial<Record<PermissionMode, string>> = {
  acceptEdits: "changes to files inside the working directories stop asking",
};

export function modeInWords(mode: PermissionMode): string {
  const effect = MODE_EFFECTS[mode];
  return `switch this session to ${mode} mode${effect ? ` (${effect})` : ""}`;
}
