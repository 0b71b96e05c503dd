/**
 * The text editor goes to Claude models as Anthropic's own tool type (the schema the model was trained on), and
 * to anything else as an ordinary tool with our schema. Checked on what the scripted server receives.
 */
import { describe, expect, it } from "vitest";
import { createAnthropicProvider, nativeTextEditorType } from "../../src/providers/anthropic.js";
import { toolDefinitionsForModel } from "../../src/providers/toolSchemas.js";
import { TextEditorTool } from "../../src/tools/TextEditor/index.js";
import { ReadTool } from "../../src/tools/Read/index.js";
import { collect, FAST_RETRY, serve } from "./support.js";

describe("the text editor's tool type", () => {
  it("is the native type for Claude 4 and later and Sonnet 3.7, and none for other models", () => {
    for (const model of ["claude-sonnet-4-5", "claude-opus-4-6", "claude-haiku-4-5-20251001", "claude-sonnet-5-5", "claude-opus-4-1@20250805", "anthropic.claude-sonnet-4-5"]) {
      expect(nativeTextEditorType(model)).toBe("text_editor_20250728");
    }
    expect(nativeTextEditorType("claude-3-7-sonnet-20250219")).toBe("text_editor_20250124");
    for (const model of ["claude-3-5-sonnet-20241022", "claude-3-opus", "gpt-4.1", "llama3", "my-claude-sonnet-4-5", "claude-sonnet-x"]) {
      expect(nativeTextEditorType(model)).toBeUndefined();
    }
  });

  for (const [model, expected] of [
    ["claude-sonnet-4-5", { type: "text_editor_20250728", name: "str_replace_based_edit_tool" }],
    ["some-local-model", undefined],
  ] as const) {
    it(`${model}: the request carries ${expected ? "the native tool" : "our schema"}; the other tools are unchanged`, async () => {
      const server = await serve({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
      const provider = createAnthropicProvider({ model, apiKey: "k", baseURL: server.url, retry: FAST_RETRY });
      const { tools } = await toolDefinitionsForModel([TextEditorTool, ReadTool], new Set());
      await collect(provider.stream({ model, system: "s", messages: [{ role: "user", content: "hi" }], maxTokens: 100, tools }));
      const sent = server.requests()[0].body.tools as Array<Record<string, unknown>>;
      const editor = sent.find((t) => t.name === "str_replace_based_edit_tool")!;
      if (expected) expect(editor).toEqual(expected);
      else expect(Object.keys((editor.input_schema as { properties: object }).properties)).toEqual(expect.arrayContaining(["command", "path", "old_str", "new_str"]));
      expect(sent.find((t) => t.name === "Read")).toMatchObject({ input_schema: { type: "object" } });
    });
  }
});
