import type { PermissionRuleValue } from "../core/permissionTypes.js";

export class PermissionRuleParseError extends Error {
  constructor(
    readonly rule: string,
    readonly reason: string,
  ) {
    super(`invalid permission rule ${JSON.stringify(rule)}: ${reason}`);
    this.name = "PermissionRuleParseError";
  }
}

/** Tool names are MCP-normalized parts (`[A-Za-z0-9_-]`), optionally `mcp__server__*` for a whole server. */
const TOOL_NAME = /^[A-Za-z0-9_.-]+$/;
const MCP_SERVER_WILDCARD = /^mcp__[A-Za-z0-9_-]+__\*$/;

function isEscaped(text: string, index: number): boolean {
  let backslashes = 0;
  for (let i = index - 1; i >= 0 && text[i] === "\\"; i--) backslashes++;
  return backslashes % 2 === 1;
}

function unescapeRuleContent(content: string): string {
  return content.replace(/\\([\\()])/g, "$1");
}

export function escapeRuleContent(content: string): string {
  return content.replace(/[\\()]/g, (ch) => `\\${ch}`);
}

/**
 * `Tool`, `Tool(content)`, `Tool(*)` (= `Tool`), `Tool()` (= `Tool`, as Claude Code reads it),
 * `mcp__server`, `mcp__server__*`. Inside the content `\(`, `\)` and `\\` stand for the characters.
 * Throws PermissionRuleParseError for anything else: settings validation drops that rule alone and reports
 * it, the CLI reports it and stops.
 */
export function parsePermissionRule(rule: string): PermissionRuleValue {
  if (typeof rule !== "string") throw new PermissionRuleParseError(String(rule), "a rule must be a string");
  const text = rule.trim();
  if (!text) throw new PermissionRuleParseError(rule, "the rule is empty");
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(" && !isEscaped(text, i)) {
      open = i;
      break;
    }
  }
  if (open < 0) {
    if (text.includes(")")) throw new PermissionRuleParseError(rule, "unbalanced ')'");
    checkToolName(rule, text);
    return { toolName: text };
  }
  const toolName = text.slice(0, open).trim();
  checkToolName(rule, toolName);
  if (text[text.length - 1] !== ")" || isEscaped(text, text.length - 1)) {
    throw new PermissionRuleParseError(rule, `missing ')' at the end (write \\( and \\) for literal parentheses)`);
  }
  if (MCP_SERVER_WILDCARD.test(toolName)) {
    throw new PermissionRuleParseError(rule, "a whole-server rule (mcp__server__*) takes no content");
  }
  const content = unescapeRuleContent(text.slice(open + 1, -1));
  if (content.trim() === "" || content.trim() === "*") return { toolName };
  return { toolName, ruleContent: content };
}

function checkToolName(rule: string, toolName: string): void {
  if (!toolName) throw new PermissionRuleParseError(rule, "the tool name is missing");
  if (!TOOL_NAME.test(toolName) && !MCP_SERVER_WILDCARD.test(toolName)) {
    throw new PermissionRuleParseError(rule, `${JSON.stringify(toolName)} is not a tool name`);
  }
}

/** The inverse of parsePermissionRule: `Tool` or `Tool(escaped content)`. */
export function formatPermissionRule(value: PermissionRuleValue): string {
  return value.ruleContent === undefined ? value.toolName : `${value.toolName}(${escapeRuleContent(value.ruleContent)})`;
}

/**
 * CLI lists: `--allowedTools "Bash(git:*) Edit,Read"`. Splits on commas and whitespace outside parentheses.
 */
export function splitRuleList(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    let depth = 0;
    let current = "";
    for (let i = 0; i < value.length; i++) {
      const ch = value[i];
      if (ch === "\\" && i + 1 < value.length) {
        current += ch + value[++i];
        continue;
      }
      if (ch === "(") depth++;
      else if (ch === ")") depth = Math.max(0, depth - 1);
      if (depth === 0 && (ch === "," || /\s/.test(ch))) {
        if (current.trim()) out.push(current.trim());
        current = "";
        continue;
      }
      current += ch;
    }
    if (current.trim()) out.push(current.trim());
  }
  return out;
}
