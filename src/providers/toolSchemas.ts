/**
 * Tool definitions rendered for each API. The registry decides which tools the model sees in full; deferred
 * ones (MCP tools, tools that ask for it) are announced by name only until ToolSearch loads them.
 */
import { toolToDefinition, type ToolDefinition } from "../core/apiSchema.js";
import type { AnyTool, JSONSchema, PromptOptions, Tools } from "../core/Tool.js";
import { getDeferredToolNames, getToolsForModel } from "../core/registry.js";
import type { ToolChoice } from "./events.js";

/** The Anthropic Messages API shape of one tool (also what ToolSearch and `toolgate tools` print). */
export interface ToolAPISchema {
  name: string;
  description: string;
  input_schema: JSONSchema;
}

export async function toolToAPISchema(tool: AnyTool, options: PromptOptions): Promise<ToolAPISchema> {
  return renderAnthropicTool(await toolToDefinition(tool, options));
}

/** The tools sent in full, and the names of the deferred ones not loaded yet. */
export async function toolDefinitionsForModel(
  tools: Tools,
  loadedDeferredTools: ReadonlySet<string>,
  options: Omit<PromptOptions, "tools"> = {},
): Promise<{ tools: ToolDefinition[]; deferredToolNames: string[] }> {
  const visible = getToolsForModel(tools, loadedDeferredTools);
  return {
    tools: await Promise.all(visible.map((tool) => toolToDefinition(tool, { ...options, tools }))),
    deferredToolNames: getDeferredToolNames(tools, loadedDeferredTools),
  };
}

/** The system-prompt line that announces deferred tools, or undefined when there are none. */
export function deferredToolsNote(names: readonly string[] | undefined): string | undefined {
  if (!names?.length) return undefined;
  return `These tools are available but their parameters are not loaded yet: ${names.join(", ")}. Load one with ToolSearch ("select:NAME") before calling it.`;
}

function renderAnthropicTool(def: ToolDefinition): ToolAPISchema {
  return { name: def.name, description: def.description, input_schema: def.inputSchema };
}

export function renderAnthropicTools(defs: readonly ToolDefinition[]): Array<ToolAPISchema & { cache_control?: unknown }> {
  return defs.map(renderAnthropicTool);
}

export interface OpenAIToolSchema {
  type: "function";
  function: { name: string; description: string; parameters: JSONSchema; strict?: true };
}

/** Chat-completions tools; `strict: true` only where the schema meets OpenAI's strict-mode rules. */
export function renderOpenAITools(defs: readonly ToolDefinition[]): OpenAIToolSchema[] {
  return defs.map((def) => ({
    type: "function",
    function: {
      name: def.name,
      description: def.description,
      parameters: def.inputSchema,
      ...(qualifiesForStrict(def.inputSchema) ? { strict: true as const } : {}),
    },
  }));
}

/** A tool choice as both OpenAI APIs spell it: "any" is "required"; each API names one tool its own way (`named`). */
export function openAIToolChoice(choice: ToolChoice, named: (name: string) => unknown): unknown {
  switch (choice.type) {
    case "auto":
    case "none":
      return choice.type;
    case "any":
      return "required";
    case "tool":
      return named(choice.name);
  }
}

/**
 * OpenAI's strict mode rejects a schema unless every object lists all its properties as required and forbids
 * others; a schema with optional fields would fail the whole request, so it is sent without `strict`.
 */
export function qualifiesForStrict(schema: unknown): boolean {
  if (!schema || typeof schema !== "object") return true;
  if (Array.isArray(schema)) return schema.every(qualifiesForStrict);
  const s = schema as Record<string, unknown>;
  if (s.type === "object" || s.properties) {
    if (s.additionalProperties !== false) return false;
    const keys = Object.keys((s.properties as object | undefined) ?? {});
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    if (!keys.every((k) => required.has(k))) return false;
  }
  const children = [
    ...Object.values((s.properties as object | undefined) ?? {}),
    s.items,
    ...((s.anyOf as unknown[] | undefined) ?? []),
    ...Object.values((s.$defs as object | undefined) ?? {}),
  ];
  return children.every((child) => child === undefined || qualifiesForStrict(child));
}
