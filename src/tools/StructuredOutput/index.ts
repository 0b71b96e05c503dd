import type { AnyObject, AnyTool, JSONSchema } from "../../core/Tool.js";
import { buildTool } from "../../core/buildTool.js";
import { createMcpInputSchema } from "../../mcp/client/inputSchema.js";
import { STRUCTURED_OUTPUT_TOOL_NAME, structuredOutputDescription } from "./prompt.js";

export { STRUCTURED_OUTPUT_TOOL_NAME, structuredOutputReminder, structuredOutputSystemSection } from "./prompt.js";

/**
 * `--json-schema`: the tool the model gives its final answer with. Its input is checked against the schema
 * (a mismatch is an is_error saying what to fix); the accepted value goes to `onAnswer`. It changes nothing,
 * so it needs no permission.
 */
export function createStructuredOutputTool(schema: JSONSchema, onAnswer: (value: AnyObject) => void): AnyTool {
  return buildTool<AnyObject, AnyObject>({
    name: STRUCTURED_OUTPUT_TOOL_NAME,
    alwaysLoad: true,
    searchHint: "final answer json schema structured output",
    maxResultSizeChars: 10_000,
    inputJSONSchema: schema,
    inputSchema: () => createMcpInputSchema(schema),
    description: () => structuredOutputDescription(),
    prompt: () => structuredOutputDescription(),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    checkPermissions: async (input) => ({ behavior: "allow", updatedInput: input }),
    toAutoClassifierInput: () => "",
    async call(input) {
      onAnswer(input);
      return { data: input };
    },
    mapToolResultToToolResultBlockParam(_output, toolUseID) {
      return { type: "tool_result", tool_use_id: toolUseID, content: "The answer was recorded. End your turn now with a one-line reply." };
    },
  });
}
