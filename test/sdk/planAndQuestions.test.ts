/**
 * The Claude Agent SDK's own client against toolgate: its canUseTool callback approves a plan (and the session
 * leaves plan mode), and answers AskUserQuestion the way the SDK documents, with `answers` in updatedInput.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { call, closeServers, collect, project, results, resultText, sdkOptions, serve, text, toolResults } from "./helpers.js";

vi.setConfig({ testTimeout: 180_000 });
afterEach(closeServers);

const QUESTION = { question: "Which date library should we use?", header: "Library", options: [{ label: "date-fns", description: "functions" }, { label: "dayjs", description: "small" }], multiSelect: false };

describe("Agent SDK: plan mode and questions", () => {
  it("canUseTool approves ExitPlanMode (the write after it is asked, not denied) and answers AskUserQuestion", async () => {
    const dir = project();
    const notes = path.join(dir, "notes.txt");
    const server = await serve({
      turns: [
        call("toolu_ask", "AskUserQuestion", { questions: [QUESTION] }),
        call("toolu_plan", "ExitPlanMode", { plan: "1. Write notes.txt" }),
        call("toolu_write", "Write", { file_path: notes, content: "dayjs\n" }),
        text("done"),
      ],
    });
    const asked: string[] = [];
    const messages = await collect(
      query({
        prompt: "plan, ask, then write",
        options: sdkOptions(dir, server, {
          permissionMode: "plan",
          canUseTool: async (toolName, input) => {
            asked.push(toolName);
            if (toolName === "AskUserQuestion") return { behavior: "allow", updatedInput: { ...input, answers: { [QUESTION.question]: "dayjs" } } };
            return { behavior: "allow", updatedInput: input };
          },
        }),
      }),
    );
    expect(results(messages)[0]).toMatchObject({ subtype: "success", result: "done" });
    expect(asked).toEqual(["AskUserQuestion", "ExitPlanMode", "Write"]);
    const sentBack = toolResults(server, 3);
    expect(resultText(sentBack.find((r) => r.tool_use_id === "toolu_ask")!)).toContain('"Which date library should we use?" → "dayjs"');
    expect(resultText(sentBack.find((r) => r.tool_use_id === "toolu_plan")!)).toContain("now default mode");
    expect(fs.readFileSync(notes, "utf8")).toBe("dayjs\n");
  });
});
