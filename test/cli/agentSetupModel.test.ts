/**
 * The UI's /model goes through prepareAgent's switchModel: the next subagent (agent type `inherit`) and the
 * tools' model access use the new model. Real session, real Anthropic SDK client, scripted model server.
 */
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { prepareAgent } from "../../src/cli/agentSetup.js";
import { createSession } from "../../src/session/index.js";
import { approveAll, tempDir } from "../helpers.js";
import { serve } from "../providers/support.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("prepareAgent: switchModel", () => {
  it("the next subagent and context.models use the model switched to; the one before used the first", async () => {
    const server = await serve({
      turns: [
        { content: [{ type: "text", text: "first subagent done" }] },
        { content: [{ type: "text", text: "second subagent done" }] },
        { content: [{ type: "text", text: "small answer" }] },
      ],
    });
    const cwd = tempDir();
    const home = tempDir("toolgate-home-");
    // The provider reads its key and address from the process environment, as the CLI's does.
    for (const [name, value] of Object.entries({ ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url, TOOLGATE_PROVIDER: "", TOOLGATE_MODEL: "", TOOLGATE_SMALL_MODEL: "" })) vi.stubEnv(name, value);
    const env = { ...process.env, TOOLGATE_HOME: home, HOME: path.join(home, "user"), TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") };
    const session = await createSession({ cwd, home, env, sandbox: false, mcpConfigFiles: [] });
    try {
      const prepared = await prepareAgent(session, { model: "claude-sonnet-4-5" });
      const run = (prompt: string) =>
        session.context.subagents!.run({ description: prompt, prompt, agentType: "general-purpose", toolUseID: `toolu_${prompt}`, parent: session.context, canUseTool: approveAll, signal: new AbortController().signal });
      expect((await run("one")).text).toBe("first subagent done");
      const next = prepared.switchModel("claude-opus-4-6");
      expect(next.model).toBe("claude-opus-4-6");
      expect((await run("two")).text).toBe("second subagent done");
      expect(await session.context.models!.ask({ prompt: "hi", model: "main" })).toMatchObject({ text: "small answer" });
      expect(server.requests().map((r) => r.body.model)).toEqual(["claude-sonnet-4-5", "claude-opus-4-6", "claude-opus-4-6"]);
    } finally {
      await session.close();
    }
  });
});
