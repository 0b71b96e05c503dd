import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../../../src/core/buildTool.js";
import type { AnyTool } from "../../../src/core/Tool.js";
import { getDeferredToolNames, getToolsForModel } from "../../../src/core/registry.js";
import { ToolSearchTool } from "../../../src/tools/ToolSearch/index.js";
import { searchTools, splitNameParts } from "../../../src/tools/ToolSearch/search.js";
import { approveAll, testContext } from "../../helpers.js";
import { resultText, runOne } from "../../mcp/helpers.js";

function tool(name: string, description: string, extra: Partial<AnyTool> = {}): AnyTool {
  return buildTool({
    name,
    inputSchema: z.strictObject({ id: z.string().describe("the id") }),
    maxResultSizeChars: 10_000,
    description: () => description,
    prompt: () => description,
    async call() {
      return { data: "ok" };
    },
    mapToolResultToToolResultBlockParam: (output: string, id: string) => ({ type: "tool_result", tool_use_id: id, content: output }),
    ...extra,
  } as never);
}

const mcp = (server: string, name: string, description: string, extra: Partial<AnyTool> = {}) =>
  tool(`mcp__${server}__${name}`, description, { isMcp: true, mcpInfo: { serverName: server, toolName: name }, ...extra });

const tools: AnyTool[] = [
  tool("Read", "Reads a file from disk."),
  ToolSearchTool,
  mcp("github", "create_issue", "Create a new issue in a GitHub repository."),
  mcp("github", "list_pull_requests", "List pull requests of a repository."),
  mcp("github", "getFileContents", "Get the contents of a file or directory."),
  mcp("slack", "post_message", "Post a message to a Slack channel.", { searchHint: "chat send" }),
  mcp("slack", "list_channels", "List the channels of the workspace."),
  mcp("jira", "create_ticket", "Create an issue (ticket) in Jira."),
  tool("NotebookRender", "Render a notebook to HTML.", { shouldDefer: true }),
  mcp("always", "ping", "Ping.", { alwaysLoad: true }),
];

const descriptions = new Map(tools.map((t) => [t.name, (t.description as () => string)()]));
const search = (query: string, maxResults = 5) => searchTools(query, tools, { maxResults, descriptions });

describe("splitNameParts", () => {
  it("splits on __, _, - and camelCase", () => {
    expect(splitNameParts("mcp__github__getFileContents")).toEqual(["github", "get", "file", "contents"]);
    expect(splitNameParts("mcp__my-server__list_pull_requests")).toEqual(["my", "server", "list", "pull", "requests"]);
    expect(splitNameParts("HTMLParserTool")).toEqual(["html", "parser", "tool"]);
  });
});

describe("searchTools", () => {
  it("select: loads exactly the named tools, in order, and reports unknown names", () => {
    expect(search("select:mcp__slack__post_message,mcp__github__create_issue,Nope")).toEqual({
      matches: ["mcp__slack__post_message", "mcp__github__create_issue"],
      notFound: ["Nope"],
      mode: "select",
    });
    expect(search("select: Read ").matches).toEqual(["Read"]);
  });

  it("an exact tool name (any case) loads that tool", () => {
    expect(search("mcp__jira__create_ticket")).toMatchObject({ matches: ["mcp__jira__create_ticket"], mode: "exact" });
    expect(search("MCP__JIRA__CREATE_TICKET").matches).toEqual(["mcp__jira__create_ticket"]);
  });

  it("an mcp__server prefix loads every tool of that server, beyond max_results", () => {
    expect(search("mcp__github", 1)).toEqual({
      matches: ["mcp__github__create_issue", "mcp__github__list_pull_requests", "mcp__github__getFileContents"],
      notFound: [],
      mode: "server",
    });
    expect(search("mcp__slack__").matches).toEqual(["mcp__slack__post_message", "mcp__slack__list_channels"]);
  });

  it("keywords score name parts above descriptions", () => {
    const result = search("issue");
    expect(result.mode).toBe("keywords");
    // create_issue has "issue" in its name; create_ticket only in its description.
    expect(result.matches.slice(0, 2)).toEqual(["mcp__github__create_issue", "mcp__jira__create_ticket"]);
  });

  it("matches camelCase parts, search hints, and server names", () => {
    expect(search("file contents").matches[0]).toBe("mcp__github__getFileContents");
    expect(search("chat").matches).toEqual(["mcp__slack__post_message"]);
    expect(search("slack").matches).toEqual(expect.arrayContaining(["mcp__slack__post_message", "mcp__slack__list_channels"]));
  });

  it("+term is required", () => {
    expect(search("create +jira").matches).toEqual(["mcp__jira__create_ticket"]);
    expect(search("+github list").matches[0]).toBe("mcp__github__list_pull_requests");
    expect(search("+github list").matches.every((n) => n.startsWith("mcp__github__"))).toBe(true);
    expect(search("+nothingmatches issue").matches).toEqual([]);
  });

  it("searches only deferred tools for keywords and honours max_results", () => {
    expect(search("reads file").matches).not.toContain("Read");
    expect(search("render notebook").matches).toEqual(["NotebookRender"]);
    expect(search("ping").matches).toEqual([]);
    expect(search("list", 1).matches).toHaveLength(1);
  });

  it("nothing matches: empty", () => {
    expect(search("zebra").matches).toEqual([]);
    expect(search("   ").matches).toEqual([]);
  });
});

describe("ToolSearch through the pipeline", () => {
  it("is read-only, concurrency-safe and allowed by its own check", async () => {
    const context = testContext({ tools });
    expect(ToolSearchTool.isReadOnly({ query: "x", max_results: 5 })).toBe(true);
    expect(ToolSearchTool.isConcurrencySafe({ query: "x", max_results: 5 })).toBe(true);
    expect((await ToolSearchTool.checkPermissions({ query: "x", max_results: 5 }, context)).behavior).toBe("allow");
  });

  it("loads the matches into appState.loadedDeferredTools, so their schemas go to the model", async () => {
    const context = testContext({ tools });
    expect(getDeferredToolNames(tools, context.getAppState().loadedDeferredTools)).toContain("mcp__github__create_issue");
    const { result } = await runOne("ToolSearch", { query: "select:mcp__github__create_issue" }, context, approveAll);
    expect(result.outcome).toBe("success");
    const loaded = context.getAppState().loadedDeferredTools;
    expect([...loaded]).toEqual(["mcp__github__create_issue"]);
    expect(getToolsForModel(tools, loaded).map((t) => t.name)).toContain("mcp__github__create_issue");
    expect(getDeferredToolNames(tools, loaded)).not.toContain("mcp__github__create_issue");
  });

  it("returns tool_reference blocks and, by default, the schemas as text", async () => {
    const context = testContext({ tools });
    const { result } = await runOne("ToolSearch", { query: "mcp__slack" }, context, approveAll);
    const content = result.block.content as Array<{ type: string; tool_name?: string; text?: string }>;
    expect(content.slice(0, 2)).toEqual([
      { type: "tool_reference", tool_name: "mcp__slack__post_message" },
      { type: "tool_reference", tool_name: "mcp__slack__list_channels" },
    ]);
    const text = content[2].text!;
    expect(text).toContain("Loaded 2 tools: mcp__slack__post_message, mcp__slack__list_channels.");
    const fn = /<function>(.*?)<\/function>/.exec(text)![1];
    expect(JSON.parse(fn)).toEqual({
      name: "mcp__slack__post_message",
      description: "Post a message to a Slack channel.",
      parameters: { type: "object", properties: { id: { type: "string", description: "the id" } }, required: ["id"], additionalProperties: false },
    });
  });

  it("toolSearch.resultFormat picks references only or schemas only", async () => {
    const refs = testContext({ tools, settings: { toolSearch: { resultFormat: "references" } } });
    const r = await runOne("ToolSearch", { query: "select:mcp__jira__create_ticket" }, refs, approveAll);
    const refContent = r.result.block.content as Array<{ type: string; text?: string }>;
    expect(refContent.map((b) => b.type)).toEqual(["tool_reference", "text"]);
    expect(refContent[1].text).not.toContain("<functions>");

    const schemas = testContext({ tools, settings: { toolSearch: { resultFormat: "schemas" } } });
    const s = await runOne("ToolSearch", { query: "select:mcp__jira__create_ticket" }, schemas, approveAll);
    const schemaContent = s.result.block.content as Array<{ type: string; text?: string }>;
    expect(schemaContent.map((b) => b.type)).toEqual(["text"]);
    expect(schemaContent[0].text).toContain('"name":"mcp__jira__create_ticket"');
  });

  it("no match lists the deferred tools that can be loaded; unknown select names are named", async () => {
    const context = testContext({ tools });
    const none = await runOne("ToolSearch", { query: "zebra" }, context, approveAll);
    expect(resultText(none.result)).toContain('No tool matched "zebra".');
    expect(resultText(none.result)).toContain("Deferred tools you can load: mcp__github__create_issue,");
    expect(context.getAppState().loadedDeferredTools.size).toBe(0);
    const missing = await runOne("ToolSearch", { query: "select:mcp__x__y" }, context, approveAll);
    expect(resultText(missing.result)).toContain("No tool is named: mcp__x__y.");
  });

  it("uses the refreshed tool list (tools that appeared after the session started)", async () => {
    let pool: AnyTool[] = [ToolSearchTool];
    const context = testContext({ tools: pool, refreshTools: () => pool });
    pool = [...pool, mcp("late", "arrival", "Came later.")];
    const { result } = await runOne("ToolSearch", { query: "arrival" }, context, approveAll);
    expect(resultText(result)).toContain("Loaded 1 tool: mcp__late__arrival.");
  });

  it("validates its own input", async () => {
    const context = testContext({ tools });
    const { result } = await runOne("ToolSearch", { query: "x", max_results: 0 }, context, approveAll);
    expect(result.outcome).toBe("invalid_input");
    const { result: missing } = await runOne("ToolSearch", {}, context, approveAll);
    expect(resultText(missing)).toContain("query: required parameter is missing");
  });
});
