/**
 * The computer tool goes to Claude models as Anthropic's computer-use tool type, with the screen size the model
 * sees and its beta header, and to any other model as an ordinary tool with the same actions.
 */
import { describe, expect, it } from "vitest";
import { createOpenAIProvider } from "../../src/providers/index.js";
import { betaHeadersFor, createAnthropicProvider, nativeComputerType } from "../../src/providers/anthropic.js";
import { toolDefinitionsForModel } from "../../src/providers/toolSchemas.js";
import { createComputerTool } from "../../src/tools/Computer/index.js";
import { ReadTool } from "../../src/tools/Read/index.js";
import type { ComputerDisplay } from "../../src/computer/x11.js";
import { modelSize } from "../../src/computer/scaling.js";
import { collect, FAST_RETRY, serve } from "./support.js";

const screen = { width: 2560, height: 1600 };
const display: ComputerDisplay = { display: ":42", screen, model: modelSize(screen), virtual: true, close: async () => {} };
const tool = createComputerTool(display);

describe("the computer tool's tool type", () => {
  it("is computer_20251124 for Opus 4.5 and later and Claude 5, computer_20250124 for other Claude 4 and Sonnet 3.7, none otherwise", () => {
    for (const model of ["claude-opus-4-5", "claude-opus-4-5-20251101", "claude-opus-4-6", "claude-sonnet-4-6", "claude-sonnet-5", "anthropic.claude-opus-4-5-20251101-v1:0"]) {
      expect(nativeComputerType(model), model).toBe("computer_20251124");
    }
    for (const model of ["claude-sonnet-4-5", "claude-sonnet-4-20250514", "claude-opus-4-1", "claude-haiku-4-5-20251001", "claude-3-7-sonnet-20250219"]) {
      expect(nativeComputerType(model), model).toBe("computer_20250124");
    }
    for (const model of ["claude-3-5-sonnet-20241022", "gpt-4.1", "llama3", "my-claude-sonnet-4-5"]) expect(nativeComputerType(model), model).toBeUndefined();
  });

  it("asks for the beta its tool type needs, and no beta without one", () => {
    expect(betaHeadersFor({ tools: [{ type: "computer_20251124" }] })).toEqual({ "anthropic-beta": "computer-use-2025-11-24" });
    expect(betaHeadersFor({ tools: [{ type: "computer_20250124" }, { name: "Read" }] })).toEqual({ "anthropic-beta": "computer-use-2025-01-24" });
    expect(betaHeadersFor({ tools: [{ name: "Read" }] })).toBeUndefined();
  });

  for (const [model, expected, beta] of [
    ["claude-opus-4-5", { type: "computer_20251124", name: "computer", display_width_px: display.model.width, display_height_px: display.model.height, display_number: 42, enable_zoom: true }, "computer-use-2025-11-24"],
    ["claude-sonnet-4-5", { type: "computer_20250124", name: "computer", display_width_px: display.model.width, display_height_px: display.model.height, display_number: 42 }, "computer-use-2025-01-24"],
    ["some-local-model", undefined, undefined],
  ] as const) {
    it(`${model}: the Messages request carries ${expected ? "the native tool and its beta" : "our schema"}`, async () => {
      const server = await serve({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
      const provider = createAnthropicProvider({ model, apiKey: "k", baseURL: server.url, retry: FAST_RETRY });
      const { tools } = await toolDefinitionsForModel([tool, ReadTool], new Set());
      await collect(provider.stream({ model, system: "s", messages: [{ role: "user", content: "hi" }], maxTokens: 100, tools }));
      const request = server.requests()[0];
      const sent = request.body.tools as Array<Record<string, unknown>>;
      const computer = sent.find((t) => t.name === "computer")!;
      if (expected) {
        expect(computer).toEqual(expected);
        expect(request.headers["anthropic-beta"]).toBe(beta);
      } else {
        expect(Object.keys((computer.input_schema as { properties: object }).properties)).toEqual(expect.arrayContaining(["action", "coordinate", "text", "region"]));
        expect(request.headers["anthropic-beta"]).toBeUndefined();
      }
      expect(sent.find((t) => t.name === "Read")).toMatchObject({ input_schema: { type: "object" } });
    });
  }

  it("goes to OpenAI-compatible servers as a function with every action and the screen size in its description", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
    const provider = createOpenAIProvider({ model: "gpt-4o", apiKey: "k", baseURL: `${server.url}/v1`, retry: FAST_RETRY });
    const { tools } = await toolDefinitionsForModel([tool], new Set());
    await collect(provider.stream({ model: "gpt-4o", system: "s", messages: [{ role: "user", content: "hi" }], maxTokens: 100, tools }));
    const fn = (server.requests()[0].body.tools as Array<{ function: { name: string; description: string; parameters: { properties: { action: { enum: string[] } } } } }>)[0].function;
    expect(fn.name).toBe("computer");
    expect(fn.description).toContain(`${display.model.width}x${display.model.height}`);
    expect(fn.parameters.properties.action.enum).toEqual(expect.arrayContaining(["screenshot", "left_click", "type", "key", "hold_key", "zoom", "cursor_position", "left_click_drag", "scroll", "wait", "triple_click"]));
  });
});

describe("screenshots on OpenAI-compatible servers", () => {
  it("a tool result's image follows the tool message in a user message, the tool message saying so", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
    const provider = createOpenAIProvider({ model: "gpt-4o", apiKey: "k", baseURL: `${server.url}/v1`, retry: FAST_RETRY });
    await collect(
      provider.stream({
        model: "gpt-4o",
        system: "s",
        maxTokens: 100,
        messages: [
          { role: "user", content: "look" },
          { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "computer", input: { action: "screenshot" } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "Screenshot." }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }] }] },
        ],
      }),
    );
    const messages = server.requests()[0].body.messages as Array<{ role: string; content: unknown; tool_call_id?: string }>;
    const toolIndex = messages.findIndex((m) => m.role === "tool");
    expect(messages[toolIndex].content).toBe("Screenshot.\n[An image (image/png) follows in the next user message.]");
    expect(messages[toolIndex + 1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "The image of tool result c1:" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      ],
    });
  });
});
