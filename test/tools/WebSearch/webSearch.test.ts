import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, type McpManager } from "../../../src/mcp/client/manager.js";
import type { AnyTool } from "../../../src/core/Tool.js";
import { createModelAccess } from "../../../src/agent/modelAccess.js";
import { createNonInteractiveCanUseTool } from "../../../src/permissions/index.js";
import { parseWebSearchResponse } from "../../../src/providers/anthropicWebSearch.js";
import { WebSearchTool, hideWebSearchWithoutBackend, hitsFromMcpResult, normalizeDomain, passesDomainFilter, webSearchBackend, type WebSearchOutput } from "../../../src/tools/WebSearch/index.js";
import { WebFetchTool } from "../../../src/tools/WebFetch/index.js";
import { repoRoot, stdioServer, TSX_IMPORT } from "../../mcp/helpers.js";
import { anthropicAt, openaiAt, serve } from "../../providers/support.js";
import { run, webSession } from "../WebFetch/helpers.js";

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/searchServer.ts");
const output = (r: Awaited<ReturnType<typeof run>>) => r.result.output as WebSearchOutput;

let manager: McpManager;
beforeAll(async () => {
  manager = await connectMcpServers([stdioServer("search", { command: process.execPath, args: [...TSX_IMPORT, FIXTURE], cwd: repoRoot })]);
  expect(manager.clients.map((c) => c.status)).toEqual(["connected"]);
}, 60_000);
afterAll(async () => {
  await manager?.close();
});

function mcpSession(webSearch: Record<string, unknown>, rules: { allow?: string[]; deny?: string[] } = { allow: ["WebSearch"] }) {
  return webSession({ ...rules, tools: [WebSearchTool, ...manager.tools()] as AnyTool[], settings: { webSearch } });
}

describe("WebSearch domain filters", () => {
  it("normalizes domains and matches a domain with its subdomains only", () => {
    expect(normalizeDomain("Docs.Python.org.")).toBe("docs.python.org");
    expect(normalizeDomain("https://docs.python.org/3/")).toBe("docs.python.org");
    expect(normalizeDomain("*.python.org")).toBe("python.org");
    expect(normalizeDomain("bücher.de")).toBe("xn--bcher-kva.de");
    for (const bad of ["", "python", "evil.com/path", "user@evil.com", "a b.com", "evil.com:8080"]) expect(normalizeDomain(bad), bad).toBeUndefined();
    const allowed = { allowed: ["python.org"] };
    expect(passesDomainFilter("https://python.org/", allowed)).toBe(true);
    expect(passesDomainFilter("https://docs.python.org/3", allowed)).toBe(true);
    expect(passesDomainFilter("https://notpython.org/", allowed)).toBe(false);
    expect(passesDomainFilter("https://python.org.evil.example/", allowed)).toBe(false);
    expect(passesDomainFilter("https://python.org@evil.example/", allowed)).toBe(false);
    expect(passesDomainFilter("not a url", allowed)).toBe(false);
    expect(passesDomainFilter("https://PYTHON.ORG./", allowed)).toBe(true);
    const blocked = { blocked: ["example.com"] };
    expect(passesDomainFilter("https://blog.example.com/x", blocked)).toBe(false);
    expect(passesDomainFilter("https://example.com.other.org/", blocked)).toBe(true);
    expect(passesDomainFilter("not a url", blocked)).toBe(false);
    expect(passesDomainFilter("not a url", {})).toBe(true);
  });

  it("reads results from JSON, structured content and Title/URL text records", () => {
    expect(hitsFromMcpResult(undefined, [JSON.stringify([{ title: "A", url: "https://a.org/", snippet: "s" }])])).toEqual([{ title: "A", url: "https://a.org/", snippet: "s" }]);
    expect(hitsFromMcpResult({ data: { organic: [{ name: "B", link: "https://b.org/" }] } }, [])).toEqual([{ title: "B", url: "https://b.org/" }]);
    expect(hitsFromMcpResult(undefined, ["Title: C\nURL: https://c.org/\nDescription: d"])).toEqual([{ title: "C", url: "https://c.org/", snippet: "d" }]);
    expect(hitsFromMcpResult(undefined, ['{"results": []}'])).toEqual([]);
    // javascript: and other schemes are not results
    expect(hitsFromMcpResult(undefined, [JSON.stringify([{ title: "x", url: "javascript:alert(1)" }])])).toEqual([]);
    expect(hitsFromMcpResult(undefined, ["just prose"])).toBeUndefined();
  });
});

describe("WebSearch through an MCP search server", () => {
  it("calls the configured tool with the query and lists title, URL and snippet", async () => {
    const ctx = mcpSession({ mcpTool: "mcp__search__json_search", extraArgs: { count: 5 } });
    const r = await run(ctx, "WebSearch", { query: "asyncio gather" });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('Web search results for "asyncio gather" (via mcp__search__json_search)');
    expect(r.text).toContain("1. Results for asyncio gather\n   https://docs.python.org/3/library/asyncio.html\n   args=");
    expect(r.text).toContain('"count":5');
    expect(r.text).toContain('"query":"asyncio gather"');
    expect(output(r).hits).toHaveLength(6);
    expect(output(r).backend).toBe("mcp");
  });

  it("uses queryParam for servers whose argument is not called query, and reads their text records", async () => {
    const r = await run(mcpSession({ mcpTool: "mcp__search__text_search", queryParam: "q" }), "WebSearch", { query: "tokio select" });
    expect(r.isError).toBe(false);
    expect(output(r).hits[0]).toEqual({ title: "Results for tokio select", url: "https://docs.python.org/3/library/asyncio.html", snippet: 'args={"q":"tokio select"}' });
    const structured = await run(mcpSession({ mcpTool: "mcp__search__structured_search" }), "WebSearch", { query: "x y" });
    expect(output(structured).hits.map((h) => h.url)).toContain("https://www.python.org/");
  });

  it("applies allowed_domains and blocked_domains to the results, subdomains included, look-alikes not", async () => {
    const ctx = mcpSession({ mcpTool: "mcp__search__json_search" });
    const allowed = await run(ctx, "WebSearch", { query: "asyncio", allowed_domains: ["python.org"] });
    expect(output(allowed).hits.map((h) => h.url)).toEqual(["https://docs.python.org/3/library/asyncio.html", "https://sub.docs.python.org/x", "https://www.python.org/"]);
    expect(output(allowed).filteredOut).toBe(3);
    expect(allowed.text).toContain("3 results were left out by the domain filter");
    expect(allowed.text).not.toContain("evil.example");
    const blocked = await run(ctx, "WebSearch", { query: "asyncio", blocked_domains: ["docs.python.org", "https://blog.example.com/"] });
    expect(output(blocked).hits.map((h) => h.url)).toEqual(["https://www.python.org/", "https://docs.python.org.evil.example/phish", "https://notpython.org/"]);
  });

  it("refuses to return an answer it cannot filter; without a filter the raw answer is shown", async () => {
    const ctx = mcpSession({ mcpTool: "mcp__search__opaque_search" });
    const filtered = await run(ctx, "WebSearch", { query: "does it work", allowed_domains: ["python.org"] });
    expect(filtered.isError).toBe(true);
    expect(filtered.text).toContain("domain filter cannot be applied");
    expect(filtered.text).not.toContain("consensus");
    const raw = await run(ctx, "WebSearch", { query: "does it work" });
    expect(raw.isError).toBe(false);
    expect(raw.text).toContain("I looked up does it work and the consensus is that it works.");
    const empty = await run(mcpSession({ mcpTool: "mcp__search__empty_search" }), "WebSearch", { query: "nothing" });
    expect(empty.text).toContain("No results.");
  });

  it("reports the server's error, a missing tool, and a rule that denies the MCP tool", async () => {
    const failing = await run(mcpSession({ mcpTool: "mcp__search__failing_search" }), "WebSearch", { query: "q1" });
    expect(failing.isError).toBe(true);
    expect(failing.text).toContain("quota exhausted for this API key");
    const missing = await run(mcpSession({ mcpTool: "mcp__brave__brave_web_search" }), "WebSearch", { query: "q2" });
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain("mcp__brave__brave_web_search");
    expect(missing.text).toContain('"brave"');
    const denied = await run(mcpSession({ mcpTool: "mcp__search__json_search" }, { allow: ["WebSearch"], deny: ["mcp__search__json_search"] }), "WebSearch", { query: "q3" });
    expect(denied.isError).toBe(true);
    expect(denied.text).toContain("denied");
  });
});

describe("WebSearch input, permission and availability", () => {
  it("refuses both filters together and entries that are not domains", async () => {
    const ctx = mcpSession({ mcpTool: "mcp__search__json_search" });
    const both = await run(ctx, "WebSearch", { query: "qq", allowed_domains: ["a.org"], blocked_domains: ["b.org"] });
    expect(both.isError).toBe(true);
    expect(both.text).toContain("not both");
    const bad = await run(ctx, "WebSearch", { query: "qq", allowed_domains: ["python"] });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('"python" is not a domain name');
  });

  it("asks by default (denied when no one can be asked) and a WebSearch allow rule allows", async () => {
    const deny = createNonInteractiveCanUseTool();
    const asked = await run(mcpSession({ mcpTool: "mcp__search__json_search" }, {}), "WebSearch", { query: "secret plans" }, deny);
    expect(asked.isError).toBe(true);
    expect(asked.text).toContain("sends the query to a web search service");
    expect(asked.text).toContain('"WebSearch"');
    const allowed = await run(mcpSession({ mcpTool: "mcp__search__json_search" }), "WebSearch", { query: "public things" }, deny);
    expect(allowed.isError).toBe(false);
    expect(WebSearchTool.isReadOnly({ query: "x" })).toBe(true);
    expect(WebSearchTool.isConcurrencySafe({ query: "x" })).toBe(true);
  });

  it("without a backend a call says how to enable it, and agent sessions do not offer the tool", async () => {
    const ctx = webSession({ allow: ["WebSearch"], tools: [WebFetchTool, WebSearchTool] as AnyTool[] });
    const r = await run(ctx, "WebSearch", { query: "anything" });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("WebSearch is not enabled in this session");
    expect(r.text).toContain('{"webSearch": {"mcpTool": "mcp__brave__brave_web_search"');

    hideWebSearchWithoutBackend(ctx);
    expect(ctx.options.tools.map((t) => t.name)).toEqual(["WebFetch"]);
    const withMcp = webSession({ tools: [WebFetchTool, WebSearchTool] as AnyTool[], settings: { webSearch: { mcpTool: "mcp__s__t" } } });
    hideWebSearchWithoutBackend(withMcp);
    expect(withMcp.options.tools.map((t) => t.name)).toEqual(["WebFetch", "WebSearch"]);
  });

  it("picks Anthropic's search when the provider has one, the MCP tool otherwise, as settings say", async () => {
    const model = await serve({ turns: [] });
    const anthropic = createModelAccess({ provider: anthropicAt(model) });
    const openai = createModelAccess({ provider: openaiAt(model) });
    expect(openai.search).toBeUndefined();
    const kind = (models: typeof anthropic | undefined, webSearch?: Record<string, unknown>) =>
      webSearchBackend(webSession({ models, ...(webSearch ? { settings: { webSearch } } : {}) })).kind;
    expect(kind(anthropic)).toBe("anthropic");
    expect(kind(openai)).toBe("none");
    expect(kind(openai, { mcpTool: "mcp__s__t" })).toBe("mcp");
    expect(kind(anthropic, { mcpTool: "mcp__s__t" })).toBe("anthropic");
    expect(kind(anthropic, { mcpTool: "mcp__s__t", backend: "mcp" })).toBe("mcp");
    expect(kind(undefined, { mcpTool: "mcp__s__t", backend: "anthropic" })).toBe("none");
  });
});

const SEARCH_RESPONSE = {
  id: "msg_search",
  type: "message",
  role: "assistant",
  model: "claude-haiku-4-5",
  stop_reason: "end_turn",
  usage: { input_tokens: 900, output_tokens: 80, server_tool_use: { web_search_requests: 1 } },
  content: [
    { type: "text", text: "I'll search for that." },
    { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "node 20 release date" } },
    {
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_1",
      content: [
        { type: "web_search_result", title: "Node.js 20 is now available", url: "https://nodejs.org/en/blog/announcements/v20-release-announce", encrypted_content: "enc1", page_age: "April 18, 2023" },
        { type: "web_search_result", title: "Node.js releases", url: "https://nodejs.org/en/about/previous-releases", encrypted_content: "enc2", page_age: null },
        { type: "web_search_result", title: "Random blog", url: "https://blog.example.com/node20", encrypted_content: "enc3", page_age: null },
      ],
    },
    {
      type: "text",
      text: "Node.js 20 was released on April 18, 2023.",
      citations: [
        { type: "web_search_result_location", url: "https://nodejs.org/en/blog/announcements/v20-release-announce", title: "Node.js 20 is now available", encrypted_index: "x", cited_text: "We're excited to announce the release of Node.js 20!" },
      ],
    },
  ],
};

describe("WebSearch with Anthropic's server-side search", () => {
  it("sends the web_search tool with the filters and lists the results with cited snippets", async () => {
    const model = await serve({ turns: [{ status: 200, body: SEARCH_RESPONSE }] });
    const models = createModelAccess({ provider: anthropicAt(model), smallModel: "claude-haiku-4-5" });
    const ctx = webSession({ allow: ["WebSearch"], models, tools: [WebSearchTool] as AnyTool[] });
    const r = await run(ctx, "WebSearch", { query: "node 20 release date", blocked_domains: ["example.com"] });
    expect(r.isError).toBe(false);
    const [request] = model.requests();
    expect(request.body.model).toBe("claude-haiku-4-5");
    expect(request.body.stream).toBeUndefined();
    expect(request.body.tools).toEqual([{ type: "web_search_20250305", name: "web_search", max_uses: 5, blocked_domains: ["example.com"] }]);
    expect(JSON.stringify(request.body.messages)).toContain("node 20 release date");
    expect(r.text).toContain("(via Anthropic web search, claude-haiku-4-5)");
    expect(r.text).toContain(
      "1. Node.js 20 is now available\n   https://nodejs.org/en/blog/announcements/v20-release-announce\n   (April 18, 2023)\n   We're excited to announce the release of Node.js 20!",
    );
    expect(r.text).toContain("2. Node.js releases\n   https://nodejs.org/en/about/previous-releases");
    // the filter is applied again here, in case the backend ignored it
    expect(r.text).not.toContain("blog.example.com");
    expect(output(r).filteredOut).toBe(1);
    expect(r.text).toContain("Summary by the search model:\nNode.js 20 was released on April 18, 2023.");
  });

  it("turns a search error and an API error into an is_error result the model can act on", async () => {
    const errorBody = { ...SEARCH_RESPONSE, content: [{ type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: { type: "web_search_tool_result_error", error_code: "too_many_requests" } }] };
    const model = await serve({ turns: [{ status: 200, body: errorBody }, { status: 400 }] });
    const models = createModelAccess({ provider: anthropicAt(model) });
    const ctx = webSession({ allow: ["WebSearch"], models, tools: [WebSearchTool] as AnyTool[] });
    const limited = await run(ctx, "WebSearch", { query: "q one" });
    expect(limited.isError).toBe(true);
    expect(limited.text).toContain("rate-limiting");
    const failed = await run(ctx, "WebSearch", { query: "q two" });
    expect(failed.isError).toBe(true);
    expect(failed.text).toContain("Web search through");
  });

  it("parses a response without results or text as no results", () => {
    expect(parseWebSearchResponse({ content: [] }, "m")).toEqual({ hits: [], text: "", model: "m" });
    expect(() => parseWebSearchResponse({}, "m")).toThrow("no content");
  });
});
