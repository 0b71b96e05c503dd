import { z } from "zod";
import type { AnyTool, JSONSchema, PromptOptions } from "./Tool.js";

/** A tool as the model is told about it, in no API's wire shape; providers render it (src/providers/toolSchemas.ts). */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JSONSchema;
  /** A computer-use tool's screen (see Tool.display). */
  display?: { width: number; height: number; number?: number };
}

/** The JSON Schema the model sees: an MCP tool's own schema, else the zod schema's input side. */
export function toolInputJSONSchema(tool: AnyTool): JSONSchema {
  if (tool.inputJSONSchema) return tool.inputJSONSchema;
  const schema = z.toJSONSchema(tool.inputSchema, { io: "input", unrepresentable: "any" }) as JSONSchema;
  delete schema.$schema;
  return schema;
}

export async function toolToDefinition(tool: AnyTool, options: PromptOptions): Promise<ToolDefinition> {
  return { name: tool.name, description: await tool.prompt(options), inputSchema: toolInputJSONSchema(tool), ...(tool.display ? { display: { ...tool.display } } : {}) };
}
