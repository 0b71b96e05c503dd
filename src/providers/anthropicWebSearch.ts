/**
 * Anthropic's server-side web search (`web_search_20250305`): one non-streaming Messages request in which the
 * model runs the searches on Anthropic's side and answers with `server_tool_use`, `web_search_tool_result`
 * and cited text blocks. Read back into neutral hits (title, URL, the passage cited from it) plus the text.
 */
import type { WebSearchHit, WebSearchResults } from "../core/Tool.js";
import type { WebSearchRequest } from "./events.js";

export const ANTHROPIC_WEB_SEARCH_TOOL = "web_search_20250305";

const SEARCH_SYSTEM =
  "You run web searches for another assistant. Search for the query you are given, then summarize what the results say about it in a few sentences, citing your sources. Do not answer from memory.";

export function buildWebSearchRequest(request: WebSearchRequest): Record<string, unknown> {
  const tool: Record<string, unknown> = { type: ANTHROPIC_WEB_SEARCH_TOOL, name: "web_search", max_uses: request.maxUses ?? 5 };
  if (request.allowedDomains?.length) tool.allowed_domains = request.allowedDomains;
  if (request.blockedDomains?.length) tool.blocked_domains = request.blockedDomains;
  return {
    model: request.model,
    max_tokens: request.maxTokens ?? 2048,
    system: SEARCH_SYSTEM,
    messages: [{ role: "user", content: [{ type: "text", text: `Search the web for: ${request.query}` }] }],
    tools: [tool],
  };
}

const SEARCH_ERRORS: Record<string, string> = {
  too_many_requests: "the search service is rate-limiting requests; try again shortly",
  invalid_tool_input: "the search query was not accepted; rephrase it",
  max_uses_exceeded: "the search limit for this request was reached",
  query_too_long: "the query is too long; shorten it",
  unavailable: "the search service is unavailable right now",
};

type Block = { type?: unknown; [key: string]: unknown };

/** Hits in the order the searches returned them (deduplicated by URL), cited passages as snippets, the text joined. */
export function parseWebSearchResponse(body: unknown, model: string): WebSearchResults {
  const content = (body as { content?: unknown })?.content;
  if (!Array.isArray(content)) throw new Error("The web search response had no content.");
  const hits = new Map<string, WebSearchHit>();
  const errors: string[] = [];
  const text: string[] = [];
  const citedByUrl = new Map<string, string>();
  let sawResults = false;
  for (const block of content as Block[]) {
    if (block.type === "web_search_tool_result") {
      sawResults = true;
      const result = block.content;
      if (Array.isArray(result)) {
        for (const item of result as Block[]) {
          if (item.type !== "web_search_result" || typeof item.url !== "string") continue;
          if (!hits.has(item.url)) {
            hits.set(item.url, {
              title: typeof item.title === "string" && item.title ? item.title : item.url,
              url: item.url,
              ...(typeof item.page_age === "string" && item.page_age ? { pageAge: item.page_age } : {}),
            });
          }
        }
      } else if (result && typeof result === "object") {
        const code = String((result as Block).error_code ?? "unknown");
        errors.push(SEARCH_ERRORS[code] ?? `the search failed (${code})`);
      }
    } else if (block.type === "text" && typeof block.text === "string" && (sawResults || !content.some((b: Block) => b?.type === "web_search_tool_result"))) {
      // Text before the first results is the model announcing its search; cited text blocks join without separators.
      text.push(block.text);
      for (const citation of Array.isArray(block.citations) ? (block.citations as Block[]) : []) {
        if (typeof citation.url === "string" && typeof citation.cited_text === "string" && !citedByUrl.has(citation.url)) {
          citedByUrl.set(citation.url, citation.cited_text);
        }
      }
    }
  }
  for (const [url, snippet] of citedByUrl) {
    const hit = hits.get(url);
    if (hit) hit.snippet = snippet;
  }
  if (hits.size === 0 && errors.length) throw new Error(`Web search failed: ${errors.join("; ")}.`);
  return { hits: [...hits.values()], text: text.join("").trim(), model };
}
