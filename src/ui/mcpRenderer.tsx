import { Text } from "ink";
import type { AnyToolRenderer, ToolRenderer } from "./toolRenderer.js";
import { summarizeArguments } from "./genericRenderer.js";
import { ArgumentList, ResultText, ToolRejected, contentText, isTextTruncated, renderError } from "./components/index.js";

const RESULT_LINES = 8;

/** `mcp__github__create_issue` → server "github", tool "create_issue" (split at the first `__` after the prefix). */
export function splitMcpName(name: string): { server: string; tool: string } | undefined {
  const match = /^mcp__(.+?)__(.+)$/.exec(name);
  return match ? { server: match[1], tool: match[2] } : undefined;
}

/** A renderer for one MCP tool: "server - tool (MCP)", its arguments, the result's text. */
export function mcpRenderer(toolName: string): AnyToolRenderer {
  const parts = splitMcpName(toolName);
  const label = parts ? `${parts.server} - ${parts.tool} (MCP)` : toolName;
  const renderer: ToolRenderer = {
    userFacingName: () => label,
    renderToolUseMessage(input, options) {
      return <Text>{summarizeArguments(input, options)}</Text>;
    },
    renderPermissionPreview(input, options) {
      return <ArgumentList input={input} maxLines={options.maxLines} expanded={options.expanded} />;
    },
    renderToolResultMessage(result, _input, options) {
      return <ResultText text={contentText(result.content)} options={options} maxLines={RESULT_LINES} empty="(no content)" />;
    },
    renderToolUseRejectedMessage(_input, options) {
      return <ToolRejected what={label} reason={options.reason} />;
    },
    renderToolUseErrorMessage: renderError,
    isResultTruncated: (result) => isTextTruncated(contentText(result.content), RESULT_LINES),
  };
  return renderer;
}
