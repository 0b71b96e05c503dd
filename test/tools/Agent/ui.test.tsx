/** The Agent and TodoWrite renderers, drawn by ink into a test terminal. */
import { describe, expect, it } from "vitest";
import { render } from "ink-testing-library";
import { loadToolRenderer } from "../../../src/ui/renderers.js";
import type { SubagentProgress } from "../../../src/core/Tool.js";

const options = { columns: 80, expanded: false, verbose: false, cwd: "/p" };

describe("Agent renderer", () => {
  it("nests the subagent's steps under the call: each tool call with its outcome, the latest text, older calls counted", async () => {
    const renderer = await loadToolRenderer("Agent");
    const progress: SubagentProgress[] = [];
    for (let i = 1; i <= 7; i++) {
      progress.push({ type: "subagent_tool_use", agentId: "agent-1", toolUseID: `t${i}`, toolName: "Read", summary: `src/file${i}.ts` });
      if (i < 7) progress.push({ type: "subagent_tool_result", agentId: "agent-1", toolUseID: `t${i}`, toolName: "Read", outcome: i === 6 ? "tool_error" : "success" });
    }
    progress.push({ type: "subagent_text", agentId: "agent-1", text: "Now reading the last file." });
    const frame = render(<>{renderer.renderToolUseProgressMessage!(progress, { description: "Survey" }, options)}</>).lastFrame()!;
    expect(frame).toContain("… 2 earlier tool calls");
    expect(frame).not.toContain("src/file2.ts");
    expect(frame).toContain("✓ Read src/file3.ts");
    expect(frame).toContain("✗ Read src/file6.ts");
    expect(frame).toContain("… Read src/file7.ts");
    expect(frame).toContain("Now reading the last file.");
    expect(renderer.userFacingName!({ subagent_type: "reviewer" })).toBe("Agent(reviewer)");
  });

  it("shows how the subagent ended and the start of its answer", async () => {
    const renderer = await loadToolRenderer("Agent");
    const output = { agentId: "agent-1", agentType: "general-purpose", text: "line 1\nline 2\nline 3\nline 4", turns: 3, durationMs: 4200, usage: { input: 1000, output: 200 }, stopReason: "max_turns" };
    const result = { output, content: "", isError: true, outcome: "success" as const };
    const frame = render(<>{renderer.renderToolResultMessage!(result, { description: "x", prompt: "y" }, options)}</>).lastFrame()!;
    expect(frame).toContain("Stopped (max turns) · 3 turns · 1200 tokens · 4.2 s");
    expect(frame).toContain("line 3");
    expect(frame).not.toContain("line 4");
    expect(renderer.isResultTruncated!(result, { description: "x", prompt: "y" })).toBe(true);
  });
});

describe("TodoWrite renderer", () => {
  it("draws the list: completed ticked, the one in progress by its active form", async () => {
    const renderer = await loadToolRenderer("TodoWrite");
    const newTodos = [
      { content: "Read the test", status: "completed" as const, activeForm: "Reading the test" },
      { content: "Fix the bug", status: "in_progress" as const, activeForm: "Fixing the bug" },
      { content: "Run the tests", status: "pending" as const, activeForm: "Running the tests" },
    ];
    const frame = render(<>{renderer.renderToolResultMessage!({ output: { oldTodos: [], newTodos }, content: "", isError: false, outcome: "success" }, { todos: newTodos }, options)}</>).lastFrame()!;
    expect(frame.split("\n")).toEqual(["☒ Read the test", "◼ Fixing the bug", "☐ Run the tests"]);
    // A partial input while the model streams draws without throwing.
    const partial = render(<>{renderer.renderToolUseMessage({ todos: [{ status: "completed" }] } as never, options)}</>).lastFrame()!;
    expect(partial).toBe("1/1 done");
  });
});
