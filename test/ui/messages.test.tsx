/**
 * The message list: the view built from the agent loop's events (partial tool input while it streams,
 * progress, results, grouping, collapsing), drawn through the tool renderers; and the status line.
 */
import { Box } from "ink";
import { render, cleanup } from "ink-testing-library";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/query.js";
import type { ProviderEvent } from "../../src/providers/index.js";
import { parsePartialJson } from "../../src/providers/index.js";
import { ConversationView } from "../../src/ui/viewModel.js";
import { COLLAPSED_LINES, ensureRenderer, isCallTruncated, ToolCall, ToolCalls } from "../../src/ui/ToolCall.js";
import { StatusLine } from "../../src/ui/StatusLine.js";
import { clipToRows } from "../../src/ui/App.js";
import { SANDBOX_AUTO_ALLOW_REASON } from "../../src/sandbox/index.js";
import type { RenderOptions } from "../../src/ui/toolRenderer.js";

afterEach(() => cleanup());

const options: RenderOptions = { columns: 80, expanded: false, verbose: false, cwd: "/p" };
const stream = (event: ProviderEvent, turn = 1): AgentEvent => ({ type: "stream", turn, event });
const delta = (id: string, partialJson: string): AgentEvent => stream({ type: "tool_input_delta", id, partialJson, get partial() { return parsePartialJson(partialJson); } });

describe("message list", () => {
  it("draws a tool call's input while the model is still streaming it (partial JSON), through the generic renderer", async () => {
    await ensureRenderer("SomeMcpTool");
    const view = new ConversationView(isCallTruncated);
    view.apply(stream({ type: "message_start", model: "m" }));
    view.apply(stream({ type: "text_delta", index: 0, text: "Let me check." }));
    view.apply(stream({ type: "tool_call_start", id: "t1", name: "SomeMcpTool", index: 1 }));
    // The text before a call is final: it went to the scrollback.
    expect(view.items).toMatchObject([{ kind: "assistant", text: "Let me check." }]);
    view.apply(delta("t1", '{"query": "hel'));
    const partial = render(<ToolCall call={view.liveCalls[0]!} options={options} />);
    expect(partial.lastFrame()).toContain("SomeMcpTool");
    expect(partial.lastFrame()).toContain('query: "hel"');
    partial.unmount();
    view.apply(delta("t1", '{"query": "hello", "limit": 3'));
    const more = render(<ToolCall call={view.liveCalls[0]!} options={options} />);
    expect(more.lastFrame()).toContain('query: "hello", limit: 3');
  });

  it("progress while running, then the result; the turn's calls reach the scrollback when their results go to the model", async () => {
    await ensureRenderer("Probe");
    const view = new ConversationView(isCallTruncated);
    view.apply(stream({ type: "tool_call_start", id: "t1", name: "Probe", index: 0 }));
    view.apply(stream({ type: "tool_call_complete", id: "t1", name: "Probe", input: { target: "x" } }));
    view.apply({ type: "tool", update: { type: "status", toolUseID: "t1", toolName: "Probe", status: "running", at: 0 } });
    view.apply({ type: "tool", update: { type: "progress", toolUseID: "t1", data: { output: "step 1\nstep 2" } } });
    const running = render(<ToolCall call={view.liveCalls[0]!} options={options} />);
    expect(running.lastFrame()).toContain("step 2");
    running.unmount();
    view.apply({ type: "tool", update: { type: "result", toolUseID: "t1", block: { type: "tool_result", tool_use_id: "t1", content: "all good" }, outcome: "success", notices: [], durationMs: 5 } });
    expect(view.items).toHaveLength(0);
    view.apply({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "all good" }] } });
    expect(view.liveCalls).toHaveLength(0);
    const item = view.items[0]!;
    expect(item.kind).toBe("tools");
    const drawn = render(<ToolCalls calls={item.kind === "tools" ? item.calls : []} options={options} />);
    expect(drawn.lastFrame()).toContain("all good");
  });

  it("a call the sandbox let run (no rule allowed it) says so on its line", async () => {
    await ensureRenderer("Bash");
    const view = new ConversationView(isCallTruncated);
    view.apply(stream({ type: "tool_call_start", id: "s1", name: "Bash", index: 0 }));
    view.apply(stream({ type: "tool_call_complete", id: "s1", name: "Bash", input: { command: "touch x" } }));
    const decision = { behavior: "allow" as const, decisionReason: { type: "other" as const, reason: SANDBOX_AUTO_ALLOW_REASON } };
    view.apply({ type: "tool", update: { type: "status", toolUseID: "s1", toolName: "Bash", status: "running", at: 0, decision } });
    expect(render(<ToolCall call={view.liveCalls[0]!} options={options} />).lastFrame()).toContain("sandboxed: no rule allowed it, so it runs read-only");
    view.apply(stream({ type: "tool_call_start", id: "s2", name: "Bash", index: 1 }));
    view.apply({ type: "tool", update: { type: "status", toolUseID: "s2", toolName: "Bash", status: "running", at: 0, decision: { behavior: "allow", decisionReason: { type: "mode", mode: "acceptEdits" } } } });
    expect(render(<ToolCall call={view.liveCalls[1]!} options={options} />).lastFrame()).not.toContain("sandboxed");
  });

  it("a denied call shows as rejected and a failed one with its error", async () => {
    const view = new ConversationView(isCallTruncated);
    for (const id of ["d", "e"]) view.apply(stream({ type: "tool_call_start", id, name: "Probe", index: 0 }));
    view.apply({ type: "tool", update: { type: "result", toolUseID: "d", block: { type: "tool_result", tool_use_id: "d", content: "<tool_use_error>The user denied this call.</tool_use_error>", is_error: true }, outcome: "denied", notices: [], durationMs: 1 } });
    view.apply({ type: "tool", update: { type: "result", toolUseID: "e", block: { type: "tool_result", tool_use_id: "e", content: "<tool_use_error>disk full</tool_use_error>", is_error: true }, outcome: "tool_error", notices: [], durationMs: 1 } });
    const frame = render(<ToolCalls calls={view.liveCalls} options={options} />).lastFrame() ?? "";
    // the generic renderer: "Rejected" in the result gutter, the reason under it
    expect(frame).toMatch(/⎿ {2}Rejected\n\s+The user denied this call\./);
    expect(frame).toContain("disk full");
    expect(frame).not.toContain("<tool_use_error>");
  });

  it("a long result is collapsed with a Ctrl+O hint; expandCollapsed prints it whole", async () => {
    const view = new ConversationView(isCallTruncated);
    const output = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join("\n");
    view.apply(stream({ type: "tool_call_start", id: "t1", name: "Probe", index: 0 }));
    view.apply({ type: "tool", update: { type: "result", toolUseID: "t1", block: { type: "tool_result", tool_use_id: "t1", content: output }, outcome: "success", notices: [], durationMs: 1 } });
    view.apply({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: output }] } });
    const collapsed = view.items[0]!;
    const small = render(<ToolCalls calls={collapsed.kind === "tools" ? collapsed.calls : []} options={options} />).lastFrame() ?? "";
    expect(small).toContain(`line ${COLLAPSED_LINES}`);
    expect(small).not.toContain(`line ${COLLAPSED_LINES + 1}\n`);
    expect(small).toContain(`+${200 - COLLAPSED_LINES} lines (ctrl+o to expand)`);
    expect(view.expandCollapsed()).toBe(1);
    expect(view.expandCollapsed()).toBe(0);
    const whole = view.items[1]!;
    expect(whole).toMatchObject({ kind: "tools", expanded: true });
    const big = render(<ToolCalls calls={whole.kind === "tools" ? whole.calls : []} options={{ ...options, expanded: true }} />).lastFrame() ?? "";
    expect(big).toContain("line 1\n");
    expect(big).toContain("line 200");
  });

  it("parallel uses of one tool are drawn as one group when its renderer groups them", async () => {
    const view = new ConversationView(isCallTruncated);
    for (const id of ["a", "b"]) {
      view.apply(stream({ type: "tool_call_start", id, name: "Probe", index: 0 }));
      view.apply(stream({ type: "tool_call_complete", id, name: "Probe", input: { n: id } }));
    }
    const frame = render(<ToolCalls calls={view.liveCalls} options={options} />).lastFrame() ?? "";
    // The generic renderer has no group view: one line each, in order.
    expect(frame.indexOf('n: "a"')).toBeLessThan(frame.indexOf('n: "b"'));
  });

  it("an interrupted turn ends with a notice and every call in the scrollback", () => {
    const view = new ConversationView(isCallTruncated);
    view.apply(stream({ type: "tool_call_start", id: "t1", name: "Probe", index: 0 }));
    view.apply({ type: "result", result: { reason: "aborted", turns: 1, durationMs: 1, usage: { inputTokens: 1, outputTokens: 2, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, source: "api" }, permissionDenials: [], text: "" } });
    expect(view.liveCalls).toHaveLength(0);
    expect(view.items.map((i) => i.kind)).toEqual(["tools", "notice"]);
    expect(view.usage.outputTokens).toBe(2);
  });

  it("clipToRows keeps the last rows of streaming text, counting wrapped lines", () => {
    expect(clipToRows("a\nb\nc\nd", 2, 80)).toBe("c\nd");
    expect(clipToRows("x".repeat(25), 2, 10)).toBe("xxxxxxxxxx\nxxxxx");
  });

  it("clipToRows breaks streaming text at spaces, so no word is cut in two where it need not be", () => {
    expect(clipToRows("the quick brown fox jumps over", 5, 10)).toBe("the quick\nbrown fox\njumps over");
    // only the last rows, still whole words
    expect(clipToRows("the quick brown fox jumps over", 2, 10)).toBe("brown fox\njumps over");
  });

  it("a call's header keeps its mark and name whole beside a long summary, and its result fits the width", async () => {
    await ensureRenderer("Bash");
    const long = `printf ${"word ".repeat(30)}`;
    const view = new ConversationView(isCallTruncated);
    view.apply(stream({ type: "tool_call_start", id: "t1", name: "Bash", index: 0 }));
    view.apply(delta("t1", JSON.stringify({ command: long })));
    const frame =
      render(
        <Box width={60} flexDirection="column">
          <ToolCall call={view.liveCalls[0]!} options={{ ...options, columns: 60, verbose: true }} />
        </Box>,
      ).lastFrame() ?? "";
    const rows = frame.split("\n");
    expect(rows[0]).toMatch(/^○ Bash printf word/);
    // the summary wraps under itself, past the name
    expect(rows[1]).toMatch(/^ {7}word/);
    expect(rows.every((row) => Array.from(row).length <= 60)).toBe(true);
  });
});

describe("status line", () => {
  it("shows the model, the mode, context used, cost and a pending approval", () => {
    const frame = render(<StatusLine model="claude-sonnet-4-5" mode="acceptEdits" contextPercent={42.4} costUSD={0.1234} pendingApproval />).lastFrame() ?? "";
    expect(frame).toContain("claude-sonnet-4-5");
    expect(frame).toContain("acceptEdits mode");
    expect(frame).toContain("context 42%");
    expect(frame).toContain("$0.12");
    expect(frame).toContain("approval pending");
  });

  it("says when the cost is unknown (a local model)", () => {
    const frame = render(<StatusLine model="qwen3:8b" mode="default" />).lastFrame() ?? "";
    expect(frame).toContain("cost n/a");
    expect(frame).not.toContain("approval");
  });
});

describe("a resumed conversation", () => {
  it("is drawn as it went: prompts, the model's text, its calls grouped per message with their results, a compaction as one line", async () => {
    await ensureRenderer("Bash");
    const view = new ConversationView(isCallTruncated);
    view.replay([
      { role: "user", content: [{ type: "text", text: "This session was compacted: the earlier conversation is summarised below…" }] },
      { role: "assistant", content: [{ type: "text", text: "Understood." }] },
      { role: "user", content: "list the files" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hidden", signature: "s" },
          { type: "text", text: "Listing." },
          { type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } },
          { type: "tool_use", id: "t2", name: "Bash", input: { command: "false" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "a.txt\nb.txt" },
          { type: "tool_result", tool_use_id: "t2", content: "exit 1", is_error: true },
          { type: "text", text: "<system-reminder>not the user's words</system-reminder>" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "Two files." }] },
    ]);
    expect(view.items.map((i) => i.kind)).toEqual(["notice", "assistant", "user", "assistant", "tools", "assistant"]);
    expect(view.items[0]).toMatchObject({ kind: "notice", text: "(the conversation before this point was compacted into a summary)" });
    expect(view.items[2]).toMatchObject({ kind: "user", text: "list the files" });
    const tools = view.items[4] as Extract<(typeof view.items)[number], { kind: "tools" }>;
    expect(tools.calls.map((c) => [c.name, c.input, c.status, c.result?.isError])).toEqual([
      ["Bash", { command: "ls" }, "done", false],
      ["Bash", { command: "false" }, "done", true],
    ]);
    const { lastFrame } = render(<ToolCalls calls={tools.calls} options={options} />);
    expect(lastFrame()).toContain("a.txt");
    expect(view.liveCalls).toEqual([]);
  });

  it("a long session is drawn from a prompt among its last messages, saying how many are not shown", () => {
    const view = new ConversationView(isCallTruncated);
    const history = Array.from({ length: 10 }, (_, i) => [
      { role: "user" as const, content: `prompt ${i}` },
      { role: "assistant" as const, content: [{ type: "text" as const, text: `answer ${i}` }] },
    ]).flat();
    view.replay(history, 5);
    expect(view.items.map((i) => ("text" in i ? i.text : i.kind))).toEqual(["(16 earlier messages of this session are not shown)", "prompt 8", "answer 8", "prompt 9", "answer 9"]);
  });
});
