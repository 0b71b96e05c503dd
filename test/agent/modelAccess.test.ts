import { describe, expect, it } from "vitest";
import { createModelAccess } from "../../src/agent/modelAccess.js";
import { anthropicAt, openaiAt, serve } from "../providers/support.js";

describe("ModelAccess.ask over the scripted model server", () => {
  it("sends one tool-less request to the small model and returns its text", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "The page says 42.", chunks: 3 }], usage: { input_tokens: 12, output_tokens: 5 } }] });
    const models = createModelAccess({ provider: anthropicAt(server), smallModel: "claude-haiku-4-5" });
    const answer = await models.ask({ system: "Answer briefly.", prompt: "What does the page say?", model: "small", maxTokens: 100 });
    expect(answer).toEqual({ text: "The page says 42.", model: "claude-haiku-4-5", usage: { input: 12, output: 5 } });
    const [request] = server.requests();
    expect(request!.body).toMatchObject({ model: "claude-haiku-4-5", max_tokens: 100, messages: [{ role: "user" }] });
    expect(request!.body.tools).toBeUndefined();
  });

  it("uses the main model unless asked for the small one (OpenAI-compatible too)", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
    const answer = await createModelAccess({ provider: openaiAt(server), smallModel: "mini" }).ask({ prompt: "hi" });
    expect(answer.model).toBe("gpt-4o");
    expect(server.requests()[0]!.body.model).toBe("gpt-4o");
  });

  it("rejects with a reason when the answer is cut short or the request fails", async () => {
    const server = await serve({ turns: [{ status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } } }] });
    await expect(createModelAccess({ provider: anthropicAt(server) }).ask({ prompt: "hi" })).rejects.toThrow(/gave no complete answer: .*prompt is too long/);
    const aborted = new AbortController();
    aborted.abort();
    await expect(createModelAccess({ provider: anthropicAt(server) }).ask({ prompt: "hi", signal: aborted.signal })).rejects.toThrow(/interrupted/);
  });
});
