export const TOOL_SEARCH_TOOL_NAME = "ToolSearch";

export const TOOL_SEARCH_DESCRIPTION = "Find deferred tools by name or keyword and load their schemas so they can be called.";

export function getToolSearchPrompt(): string {
  return `Load the schemas of deferred tools so you can call them.

Some tools (for example those of MCP servers, named mcp__<server>__<tool>) are listed by name only: their parameters are not known until you load them with this tool. Calling such a tool before loading it usually fails with a validation error.

The query can be:
- "select:NAME" or "select:NAME1,NAME2" to load exactly those tools (use this when you already know the names);
- an exact tool name, e.g. "mcp__github__create_issue";
- "mcp__<server>" to load every tool of one MCP server;
- keywords, e.g. "create issue"; prefix a word with + to require it, e.g. "+github issue".

Keyword search looks at the parts of tool names, their search hints and their descriptions, and returns at most max_results tools (default 5), best first. Loaded tools stay loaded for the rest of the conversation; call them directly afterwards.`;
}
