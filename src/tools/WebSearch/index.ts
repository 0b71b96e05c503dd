import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import { readSettingsSection } from "../../core/context.js";
import { describeUnavailableMcpServer, findToolByName, getCurrentTools, parseMcpToolName } from "../../core/registry.js";
import type { AnyTool, ToolUseContext, Tools, WebSearchHit } from "../../core/Tool.js";
import type { AssistantMessage, ToolResultBlockParam } from "../../core/messages.js";
import { ruleSuggestions } from "../../permissions/index.js";
import { normalizeDomain, passesDomainFilter, type DomainFilter } from "./domains.js";
import { hitsFromMcpResult } from "./mcpResults.js";
import { WEB_SEARCH_DESCRIPTION, WEB_SEARCH_TOOL_NAME, webSearchPrompt } from "./prompt.js";

export { normalizeDomain, passesDomainFilter } from "./domains.js";
export { hitsFromMcpResult } from "./mcpResults.js";

const MAX_HITS = 10;
/** Raw text of an MCP answer shown when it cannot be read as a list of results. */
const MAX_RAW_CHARS = 20_000;

const inputSchema = () =>
  z.strictObject({
    query: z.string().min(2).describe("The search query"),
    allowed_domains: z.array(z.string()).optional().describe('Only include results from these domains and their subdomains, e.g. ["docs.python.org"]'),
    blocked_domains: z.array(z.string()).optional().describe("Never include results from these domains and their subdomains"),
  });

export type WebSearchInput = z.infer<ReturnType<typeof inputSchema>>;

export interface WebSearchOutput {
  query: string;
  /** Who searched: Anthropic's server-side search or the MCP tool named in settings. */
  backend: "anthropic" | "mcp";
  /** The model (anthropic) or MCP tool (mcp) that ran the search. */
  source: string;
  hits: WebSearchHit[];
  /** The search model's summary with its sources (anthropic), when it wrote one. */
  summary?: string;
  /** Results the domain filters removed. */
  filteredOut: number;
  /** The MCP tool's answer as text, when it did not read as a list of results (and no filter was asked for). */
  raw?: string;
  durationMs: number;
}

/**
 * `webSearch` in settings.json. `backend`: `auto` (default) uses the provider's own search when it has one
 * (Anthropic, in an agent session), else `mcpTool`; `anthropic` or `mcp` pick one and never the other.
 * `mcpTool` names an MCP search tool (`mcp__server__tool`); `queryParam` is its query argument (default
 * `query`); `extraArgs` are passed along (`{"count": 10}`).
 */
export const WEB_SEARCH_SETTINGS = {
  key: "webSearch",
  schema: z.looseObject({
    backend: z.enum(["auto", "anthropic", "mcp"]).optional(),
    mcpTool: z.string().regex(/^mcp__.+__.+/, "must name an MCP tool: mcp__<server>__<tool>").optional(),
    queryParam: z.string().min(1).optional(),
    extraArgs: z.record(z.string(), z.unknown()).optional(),
  }),
};

export type WebSearchBackend = { kind: "anthropic" } | { kind: "mcp"; toolName: string } | { kind: "none" };

/** Which search this session can run, from its model access and settings. */
export function webSearchBackend(context: Pick<ToolUseContext, "models" | "options">): WebSearchBackend {
  const settings = readSettingsSection(context as ToolUseContext, WEB_SEARCH_SETTINGS) ?? {};
  const backend = settings.backend ?? "auto";
  const provider = backend !== "mcp" && context.models?.search ? ({ kind: "anthropic" } as const) : undefined;
  const mcp = backend !== "anthropic" && settings.mcpTool ? ({ kind: "mcp", toolName: settings.mcpTool } as const) : undefined;
  return provider ?? mcp ?? { kind: "none" };
}

/**
 * For an agent session: without a search backend, WebSearch is not offered to the model at all (exec still
 * lists it, and a call there says how to enable it).
 */
export function hideWebSearchWithoutBackend(context: ToolUseContext): void {
  if (webSearchBackend(context).kind !== "none") return;
  const withoutSearch = (tools: Tools): Tools => tools.filter((tool) => tool.name !== WEB_SEARCH_TOOL_NAME);
  context.options.tools = withoutSearch(context.options.tools);
  const refresh = context.options.refreshTools;
  if (refresh) context.options.refreshTools = () => withoutSearch(refresh());
}

export const WEB_SEARCH_SETUP_HINT =
  'WebSearch needs a search backend: the Anthropic provider\'s server-side search (in an agent session: toolgate -p or the UI), or an MCP search tool named in settings, e.g. {"webSearch": {"mcpTool": "mcp__brave__brave_web_search", "queryParam": "query"}} with that server in .mcp.json.';

function domainFilterOf(input: WebSearchInput): { filter: DomainFilter } | { error: string } {
  const normalize = (list: string[] | undefined, key: string): string[] | { error: string } => {
    const out: string[] = [];
    for (const entry of list ?? []) {
      const domain = normalizeDomain(entry);
      if (!domain) return { error: `${key} entry "${entry}" is not a domain name; write domains like "docs.python.org".` };
      out.push(domain);
    }
    return out;
  };
  const allowed = normalize(input.allowed_domains, "allowed_domains");
  if ("error" in allowed) return allowed;
  const blocked = normalize(input.blocked_domains, "blocked_domains");
  if ("error" in blocked) return blocked;
  return { filter: { ...(allowed.length ? { allowed } : {}), ...(blocked.length ? { blocked } : {}) } };
}

/** A refusal the model reads as is_error. */
class WebSearchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebSearchError";
  }
}

function mcpToolFor(name: string, context: ToolUseContext): AnyTool {
  const tool = findToolByName(getCurrentTools(context), name);
  if (tool) return tool;
  const unavailable = describeUnavailableMcpServer(name, context.options.mcpClients);
  const server = parseMcpToolName(name)?.serverName;
  throw new WebSearchError(
    `WebSearch is set to search with the MCP tool ${name} (settings webSearch.mcpTool), but ${
      unavailable ?? `no connected MCP server "${server}" offers it. Check .mcp.json and "toolgate mcp list".`
    }`,
  );
}

async function searchWithMcp(
  toolName: string,
  input: WebSearchInput,
  filter: DomainFilter,
  context: ToolUseContext,
  parent: AssistantMessage,
): Promise<{ hits: WebSearchHit[]; raw?: string }> {
  const tool = mcpToolFor(toolName, context);
  const settings = readSettingsSection(context, WEB_SEARCH_SETTINGS) ?? {};
  const args = { ...(settings.extraArgs ?? {}), [settings.queryParam ?? "query"]: input.query };
  // Approving WebSearch approves its configured backend, but a rule that denies that MCP tool still holds.
  const decision = await context.permissionDecider?.(tool, args, context, { toolUseID: context.toolUseID ?? "" });
  if (decision?.behavior === "deny") throw new WebSearchError(`WebSearch's MCP search tool ${toolName} is denied: ${decision.message}`);
  const result = await tool.call(args, context, async () => ({ behavior: "deny", message: "WebSearch does not ask again" }), parent);
  const output = result.data as { content?: Array<{ type: string; text?: string }>; isError?: boolean };
  const texts = (output.content ?? []).flatMap((b) => (b.type === "text" && typeof b.text === "string" ? [b.text] : []));
  if (output.isError) throw new WebSearchError(`The MCP search tool ${toolName} reported an error: ${texts.join("\n").slice(0, 2000) || "(no message)"}`);
  const hits = hitsFromMcpResult(result.mcpMeta?.structuredContent, texts);
  if (hits) return { hits };
  if (filter.allowed || filter.blocked) {
    throw new WebSearchError(
      `The MCP search tool ${toolName} answered in a form WebSearch cannot read as a list of results, so the domain filter cannot be applied and nothing is returned. Search without allowed_domains/blocked_domains to see its raw answer.`,
    );
  }
  const raw = texts.join("\n\n");
  return { hits: [], raw: raw.length > MAX_RAW_CHARS ? `${raw.slice(0, MAX_RAW_CHARS)}\n[cut at ${MAX_RAW_CHARS} characters]` : raw };
}

export function formatWebSearchResult(output: WebSearchOutput): string {
  const via = output.backend === "anthropic" ? `Anthropic web search, ${output.source}` : output.source;
  const lines = [`Web search results for "${output.query}" (via ${via}):`, ""];
  if (output.raw !== undefined) {
    lines.push("The search tool's answer (not in a form that could be listed as results):", "", output.raw);
  } else if (output.hits.length === 0) {
    lines.push("No results.");
  } else {
    output.hits.forEach((hit, i) => {
      lines.push(`${i + 1}. ${hit.title}`, `   ${hit.url}`);
      if (hit.pageAge) lines.push(`   (${hit.pageAge})`);
      if (hit.snippet) lines.push(`   ${hit.snippet.replace(/\s+/g, " ")}`);
    });
  }
  if (output.summary) lines.push("", "Summary by the search model:", output.summary);
  if (output.filteredOut) lines.push("", `(${output.filteredOut} result${output.filteredOut === 1 ? " was" : "s were"} left out by the domain filter.)`);
  if (output.hits.length || output.raw) lines.push("", "Use WebFetch on a URL to read the page; cite the URLs you rely on.");
  return lines.join("\n");
}

export const WebSearchTool = buildTool<WebSearchInput, WebSearchOutput>({
  settingsSection: WEB_SEARCH_SETTINGS,
  name: WEB_SEARCH_TOOL_NAME,
  searchHint: "search the web internet google current information documentation news",
  maxResultSizeChars: 100_000,
  inputSchema,
  description: () => WEB_SEARCH_DESCRIPTION,
  prompt: () => webSearchPrompt(),
  userFacingName: () => "Web Search",
  describeInput: (input) => (input.query ? `"${input.query}"` : ""),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  interruptBehavior: () => "cancel",
  toAutoClassifierInput: (input) => input.query,
  inputsEquivalent: (a, b) =>
    a.query.trim() === b.query.trim() &&
    JSON.stringify(a.allowed_domains ?? []) === JSON.stringify(b.allowed_domains ?? []) &&
    JSON.stringify(a.blocked_domains ?? []) === JSON.stringify(b.blocked_domains ?? []),

  async validateInput(input) {
    if (input.allowed_domains?.length && input.blocked_domains?.length) {
      return { result: false, message: "Pass allowed_domains or blocked_domains, not both.", errorCode: 1 };
    }
    const parsed = domainFilterOf(input);
    return "error" in parsed ? { result: false, message: parsed.error, errorCode: 2 } : { result: true };
  },

  async checkPermissions() {
    // The query leaves the machine for a third party: ask unless a WebSearch rule allows it.
    return {
      behavior: "passthrough",
      message: "WebSearch sends the query to a web search service.",
      suggestions: ruleSuggestions({ toolName: WEB_SEARCH_TOOL_NAME }),
    };
  },

  async call(input, context, _canUseTool, parent) {
    const started = Date.now();
    const parsed = domainFilterOf(input);
    if ("error" in parsed) throw new WebSearchError(parsed.error);
    const { filter } = parsed;
    const backend = webSearchBackend(context);
    let hits: WebSearchHit[];
    let output: Omit<WebSearchOutput, "hits" | "filteredOut" | "durationMs">;
    if (backend.kind === "anthropic") {
      const found = await context.models!.search!({
        query: input.query,
        ...(filter.allowed ? { allowedDomains: filter.allowed } : {}),
        ...(filter.blocked ? { blockedDomains: filter.blocked } : {}),
        signal: context.abortController.signal,
      });
      hits = found.hits;
      output = { query: input.query, backend: "anthropic", source: found.model, ...(found.text ? { summary: found.text } : {}) };
    } else if (backend.kind === "mcp") {
      const found = await searchWithMcp(backend.toolName, input, filter, context, parent);
      hits = found.hits;
      output = { query: input.query, backend: "mcp", source: backend.toolName, ...(found.raw !== undefined ? { raw: found.raw } : {}) };
    } else {
      throw new WebSearchError(`WebSearch is not enabled in this session. ${WEB_SEARCH_SETUP_HINT} Until then, use WebFetch on a URL you know.`);
    }
    // Filters are applied here too: a backend that ignores them must not leak results the model excluded.
    const kept = hits.filter((hit) => passesDomainFilter(hit.url, filter));
    return { data: { ...output, hits: kept.slice(0, MAX_HITS), filteredOut: hits.length - kept.length, durationMs: Date.now() - started } };
  },

  mapToolResultToToolResultBlockParam(output, toolUseID): ToolResultBlockParam {
    return { type: "tool_result", tool_use_id: toolUseID, content: formatWebSearchResult(output) };
  },
});
