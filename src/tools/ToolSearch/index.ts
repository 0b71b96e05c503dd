import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import { readSettingsSection } from "../../core/context.js";
import type { ToolUseContext } from "../../core/Tool.js";
import type { ToolResultBlockParam, ToolResultContentBlock } from "../../core/messages.js";
import { describeUnavailableMcpServer, getCurrentTools, getDeferredToolNames, isDeferredTool, normalizeNameForMcp } from "../../core/registry.js";
import { toolToAPISchema, type ToolAPISchema } from "../../providers/toolSchemas.js";
import { searchTools, type ToolSearchMatch } from "./search.js";
import { TOOL_SEARCH_DESCRIPTION, TOOL_SEARCH_TOOL_NAME, getToolSearchPrompt } from "./prompt.js";

/**
 * How loaded tools are handed back (setting `toolSearch.resultFormat`):
 * - "references": `tool_reference` blocks only, for providers that expand them into schemas;
 * - "schemas": the schemas as text only, for providers without tool_reference;
 * - "both" (default): both, so the result works whichever the provider is.
 */
export type ToolSearchResultFormat = "references" | "schemas" | "both";
const RESULT_FORMATS: readonly ToolSearchResultFormat[] = ["references", "schemas", "both"];

const MAX_LISTED_NAMES = 50;

const inputSchema = z.strictObject({
  query: z.string().describe('"select:Name1,Name2", an exact tool name, "mcp__server", or keywords (+word = required)'),
  max_results: z.number().int().min(1).max(50).default(5).describe("Most tools to return for a keyword search"),
});

export type ToolSearchInput = z.infer<typeof inputSchema>;

export interface ToolSearchOutput extends ToolSearchMatch {
  query: string;
  format: ToolSearchResultFormat;
  /** Deferred tools still not loaded after this search. */
  remainingDeferred: string[];
  /** Present when the format includes schemas. */
  schemas?: ToolAPISchema[];
  /** When nothing matched: configured MCP servers that are not connected, and why (their tools are unknown). */
  unavailableServers?: string[];
}

function getToolSearchResultFormat(context: ToolUseContext): ToolSearchResultFormat {
  const configured = readSettingsSection(context, TOOL_SEARCH_SETTINGS)?.resultFormat;
  return RESULT_FORMATS.includes(configured as ToolSearchResultFormat) ? (configured as ToolSearchResultFormat) : "both";
}

function unavailableServers(context: ToolUseContext): string[] {
  return context.options.mcpClients.flatMap((c) => describeUnavailableMcpServer(`mcp__${normalizeNameForMcp(c.name)}`, [c]) ?? []);
}

function listNames(names: readonly string[]): string {
  const shown = names.slice(0, MAX_LISTED_NAMES).join(", ");
  return names.length > MAX_LISTED_NAMES ? `${shown} (and ${names.length - MAX_LISTED_NAMES} more)` : shown;
}

function summary(output: ToolSearchOutput): string {
  const lines: string[] = [];
  if (output.matches.length > 0) {
    lines.push(`Loaded ${output.matches.length} tool${output.matches.length === 1 ? "" : "s"}: ${output.matches.join(", ")}. You can call ${output.matches.length === 1 ? "it" : "them"} now.`);
  } else {
    lines.push(`No tool matched ${JSON.stringify(output.query)}.`);
  }
  if (output.notFound.length > 0) lines.push(`No tool is named: ${output.notFound.join(", ")}.`);
  if (output.matches.length === 0 && output.remainingDeferred.length > 0) {
    lines.push(`Deferred tools you can load: ${listNames(output.remainingDeferred)}.`);
  }
  lines.push(...(output.unavailableServers ?? []));
  if (output.schemas && output.schemas.length > 0) {
    lines.push("", "Their definitions:", "<functions>");
    for (const schema of output.schemas) {
      lines.push(`<function>${JSON.stringify({ name: schema.name, description: schema.description, parameters: schema.input_schema })}</function>`);
    }
    lines.push("</functions>");
  }
  return lines.join("\n");
}

/** `toolSearch` in settings.json: hand loaded tools back as tool_reference blocks, as schema text, or both (default). */
export const TOOL_SEARCH_SETTINGS = { key: "toolSearch", schema: z.looseObject({ resultFormat: z.enum(["references", "schemas", "both"]).optional() }) };

export const ToolSearchTool = buildTool<ToolSearchInput, ToolSearchOutput>({
  settingsSection: TOOL_SEARCH_SETTINGS,
  name: TOOL_SEARCH_TOOL_NAME,
  searchHint: "find search discover load deferred tools schemas mcp",
  inputSchema,
  maxResultSizeChars: 100_000,
  description: () => TOOL_SEARCH_DESCRIPTION,
  prompt: () => getToolSearchPrompt(),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async checkPermissions(input) {
    return { behavior: "allow", updatedInput: input, decisionReason: { type: "tool", reason: "ToolSearch only loads tool schemas" } };
  },
  async call({ query, max_results }, context) {
    const tools = getCurrentTools(context);
    const descriptions = new Map<string, string>();
    await Promise.all(
      tools
        .filter((t) => isDeferredTool(t) && t.isEnabled())
        .map(async (t) => {
          try {
            descriptions.set(t.name, await t.description({}, { tools }));
          } catch {
            descriptions.set(t.name, "");
          }
        }),
    );
    const found = searchTools(query, tools, { maxResults: max_results, descriptions });

    // ToolSearch is concurrency-safe, so a contextModifier would be ignored: record the loaded tools directly.
    if (found.matches.length > 0) {
      context.setAppState((prev) => ({ ...prev, loadedDeferredTools: new Set([...prev.loadedDeferredTools, ...found.matches]) }));
    }
    const format = getToolSearchResultFormat(context);
    const byName = new Map(tools.map((t) => [t.name, t]));
    const schemas =
      format === "references"
        ? undefined
        : await Promise.all(found.matches.map((name) => toolToAPISchema(byName.get(name)!, { tools, permissionContext: context.getAppState().toolPermissionContext })));
    return {
      data: {
        ...found,
        query,
        format,
        remainingDeferred: getDeferredToolNames(tools, context.getAppState().loadedDeferredTools),
        ...(schemas && { schemas }),
        ...(found.matches.length === 0 && { unavailableServers: unavailableServers(context) }),
      },
    };
  },
  mapToolResultToToolResultBlockParam(output, toolUseID): ToolResultBlockParam {
    const content: ToolResultContentBlock[] = [];
    if (output.format !== "schemas") {
      for (const name of output.matches) content.push({ type: "tool_reference", tool_name: name });
    }
    content.push({ type: "text", text: summary(output) });
    return { type: "tool_result", tool_use_id: toolUseID, content };
  },
});
