import type { AnyTool, Tools } from "../../core/Tool.js";
import { findToolByName, isDeferredTool, parseMcpToolName } from "../../core/registry.js";

/**
 * Query forms, tried in this order:
 * - `select:A,B` — exactly those tools (any tool, deferred or not), in the order given;
 * - an exact tool name (or alias);
 * - `mcp__server` or `mcp__server__` — every tool of that server;
 * - keywords: scored over name parts, searchHint and description; `+term` must match.
 * Pure: takes the tool list, returns names.
 */

export interface ToolSearchMatch {
  /** Tool names to load, best first. */
  matches: string[];
  /** `select:` names that no tool has. */
  notFound: string[];
  mode: "select" | "exact" | "server" | "keywords";
}

/** `mcp__my_server__getItems` → ["my", "server", "get", "items"]. */
export function splitNameParts(name: string): string[] {
  return name
    .replace(/^mcp__/, "")
    .split(/__|[_\-\s.]+/)
    .flatMap((part) => part.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2").split(" "))
    .map((part) => part.toLowerCase())
    .filter(Boolean);
}

function words(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
}

interface Term {
  text: string;
  required: boolean;
}

function parseTerms(query: string): Term[] {
  return query
    .split(/\s+/)
    .filter(Boolean)
    .map((raw) => {
      const required = raw.startsWith("+") && raw.length > 1;
      return { text: (required ? raw.slice(1) : raw).toLowerCase(), required };
    })
    .flatMap((term) => words(term.text).map((text) => ({ text, required: term.required })));
}

interface Indexed {
  toolParts: string[];
  serverParts: string[];
  hintWords: string[];
  descriptionWords: string[];
}

function mcpParts(tool: AnyTool): { serverName: string; toolName: string } | undefined {
  if (tool.mcpInfo) return tool.mcpInfo;
  const parsed = parseMcpToolName(tool.name);
  return parsed?.toolName ? { serverName: parsed.serverName, toolName: parsed.toolName } : undefined;
}

function index(tool: AnyTool, description: string): Indexed {
  const mcp = mcpParts(tool);
  return {
    toolParts: mcp ? splitNameParts(mcp.toolName) : splitNameParts(tool.name),
    serverParts: mcp ? splitNameParts(mcp.serverName) : [],
    hintWords: words(tool.searchHint ?? ""),
    descriptionWords: words(description),
  };
}

/** Points one term earns against one tool; 0 = no match anywhere. */
function scoreTerm(entry: Indexed, term: string): number {
  let score = 0;
  if (entry.toolParts.includes(term)) score += 10;
  else if (entry.toolParts.some((p) => p.startsWith(term) || (term.length >= 4 && p.includes(term)))) score += 5;
  if (entry.serverParts.includes(term)) score += 4;
  else if (entry.serverParts.some((p) => p.startsWith(term))) score += 2;
  if (entry.hintWords.includes(term)) score += 4;
  else if (entry.hintWords.some((w) => w.startsWith(term))) score += 2;
  if (entry.descriptionWords.includes(term)) score += 2;
  else if (term.length >= 3 && entry.descriptionWords.some((w) => w.startsWith(term))) score += 1;
  return score;
}

export interface SearchOptions {
  maxResults: number;
  /** Description text per tool (tools' descriptions may be async, so the caller resolves them). */
  descriptions: ReadonlyMap<string, string>;
}

export function searchTools(query: string, tools: Tools, options: SearchOptions): ToolSearchMatch {
  const trimmed = query.trim();
  const deferred = tools.filter((t) => t.isEnabled() && isDeferredTool(t));

  const select = /^select:(.*)$/is.exec(trimmed);
  if (select) {
    const matches: string[] = [];
    const notFound: string[] = [];
    for (const requested of select[1].split(",").map((s) => s.trim()).filter(Boolean)) {
      const tool = findToolByName(tools, requested);
      if (tool && tool.isEnabled()) {
        if (!matches.includes(tool.name)) matches.push(tool.name);
      } else notFound.push(requested);
    }
    return { matches, notFound, mode: "select" };
  }

  const exact = findToolByName(tools, trimmed) ?? tools.find((t) => t.name.toLowerCase() === trimmed.toLowerCase());
  if (exact && exact.isEnabled()) return { matches: [exact.name], notFound: [], mode: "exact" };

  const server = /^mcp__([A-Za-z0-9_-]+?)(?:__)?$/.exec(trimmed);
  if (server) {
    const serverName = server[1].toLowerCase();
    const matches = tools
      .filter((t) => {
        if (!t.isEnabled()) return false;
        const parsed = parseMcpToolName(t.name);
        return parsed?.serverName.toLowerCase() === serverName;
      })
      .map((t) => t.name);
    if (matches.length > 0) return { matches, notFound: [], mode: "server" };
  }

  const terms = parseTerms(trimmed);
  if (terms.length === 0) return { matches: [], notFound: [], mode: "keywords" };
  const scored: Array<{ name: string; score: number }> = [];
  for (const tool of deferred) {
    const entry = index(tool, options.descriptions.get(tool.name) ?? "");
    let total = 0;
    let rejected = false;
    for (const term of terms) {
      const score = scoreTerm(entry, term.text);
      if (term.required && score === 0) {
        rejected = true;
        break;
      }
      total += score;
    }
    if (!rejected && total > 0) scored.push({ name: tool.name, score: total });
  }
  scored.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  return { matches: scored.slice(0, Math.max(1, options.maxResults)).map((s) => s.name), notFound: [], mode: "keywords" };
}
