import { z } from "zod";
import type { AnyTool, JSONSchema, PromptOptions } from "./Tool.js";

export interface ToolAPISchema {
  name: string;
  description: string;
  input_schema: JSONSchema;
}

/** The JSON Schema the model sees: an MCP tool's own schema, else the zod schema's input side. */
export function toolInputJSONSchema(tool: AnyTool): JSONSchema {
  if (tool.inputJSONSchema) return tool.inputJSONSchema;
  const schema = z.toJSONSchema(tool.inputSchema, { io: "input", unrepresentable: "any" }) as JSONSchema;
  delete schema.$schema;
  return schema;
}

export async function toolToAPISchema(tool: AnyTool, options: PromptOptions): Promise<ToolAPISchema> {
  return { name: tool.name, description: await tool.prompt(options), input_schema: toolInputJSONSchema(tool) };
}
