import { Fragment } from "react";
import { describe, expect, it } from "vitest";
import { renderer as webFetch } from "../../../src/tools/WebFetch/ui.js";
import { renderer as webSearch } from "../../../src/tools/WebSearch/ui.js";
import { renderer as todoWrite } from "../../../src/tools/TodoWrite/ui.js";
import { renderer as agent } from "../../../src/tools/Agent/ui.js";
import { renderer as skill } from "../../../src/tools/Skill/ui.js";
import { renderer as textEditor } from "../../../src/tools/TextEditor/ui.js";
import { renderer as applyPatch, summarizePatch } from "../../../src/tools/ApplyPatch/ui.js";
import { renderer as diagnostics } from "../../../src/tools/Diagnostics/ui.js";
import { draw, expectPartialsDraw, numberedLines, renderOptions, textResult } from "./support.js";

describe("WebFetch and WebSearch renderers", () => {
  it("WebFetch: the URL, then size, status, host and time, and the answer collapsed", () => {
    const input = { url: "https://docs.example.com/guide/install", prompt: "How do I install it?" };
    const frames = expectPartialsDraw(webFetch, input);
    expect(frames[1]).toBe("https://docs.exampl"); // the URL cut at half its length
    expect(draw(webFetch.renderToolUseMessage(input, renderOptions({ verbose: true })))).toContain("How do I install it?");
    const answer = numberedLines(12, "answer line");
    const result = textResult(answer, { output: { url: input.url, status: 200, statusText: "OK", bytes: 20480, durationMs: 1250, result: answer, cached: false }, durationMs: 1300 });
    const frame = draw(webFetch.renderToolResultMessage!(result, input, renderOptions()));
    expect(frame).toContain("Received 20.0 KB · 200 OK · from docs.example.com · 1.3s");
    expect(frame).toContain("answer line 6");
    expect(frame).not.toContain("answer line 7");
    expect(frame).toContain("… +6 lines (ctrl+o to expand)");
    expect(webFetch.isResultTruncated!(result, input)).toBe(true);
    const cached = textResult("text", { output: { url: input.url, status: 200, statusText: "OK", bytes: 10, durationMs: 1, result: "text", cached: true } });
    expect(draw(webFetch.renderToolResultMessage!(cached, input, renderOptions()))).toContain("Received 10 B · 200 OK · from docs.example.com · cached");
    const redirect = textResult("moved", { output: { url: input.url, status: 301, statusText: "Moved Permanently", bytes: 0, durationMs: 5, result: "moved", cached: false, redirect: { location: "https://other.example/x", status: 301 } } });
    expect(draw(webFetch.renderToolResultMessage!(redirect, input, renderOptions()))).toContain("Redirected to https://other.example/x · 301 Moved Permanently");
    // an output without those fields still draws: the host and the time of the call
    expect(draw(webFetch.renderToolResultMessage!(textResult("short answer", { durationMs: 900 }), input, renderOptions()))).toContain("from docs.example.com · 900ms");
    expect(draw(webFetch.renderToolUseRejectedMessage!(input, { ...renderOptions(), reason: "denied" }))).toContain("Rejected: fetch docs.example.com");
  });

  it("WebSearch: the query and the domain filters, the results collapsed", () => {
    const input = { query: "vitest 4 release notes", allowed_domains: ["vitest.dev", "github.com"], blocked_domains: ["spam.example"] };
    const frames = expectPartialsDraw(webSearch, input);
    expect(frames.at(-1)).toBe('"vitest 4 release notes" · only vitest.dev, github.com · not spam.example');
    const frame = draw(webSearch.renderToolResultMessage!(textResult(numberedLines(9, "result")), input, renderOptions()));
    expect(frame).toContain("result 6");
    expect(frame).toContain("… +3 lines");
    expect(draw(webSearch.renderToolResultMessage!(textResult(""), input, renderOptions()))).toContain("No results");
    const withHits = textResult("1. a\n2. b", { output: { source: "mcp__search__web", hits: [{}, {}], filteredOut: 3 } });
    expect(draw(webSearch.renderToolResultMessage!(withHits, input, renderOptions())).split("\n")[0]).toBe("  ⎿  2 results from mcp__search__web (3 filtered out)");
  });
});

describe("TodoWrite renderer", () => {
  const input = {
    todos: [
      { content: "Write the parser", status: "completed" as const, activeForm: "Writing the parser" },
      { content: "Test the parser", status: "in_progress" as const, activeForm: "Testing the parser" },
      { content: "Document it", status: "pending" as const, activeForm: "Documenting it" },
    ],
  };

  it("draws a checklist: done struck through, the one in progress in its active form, the rest open", () => {
    const frame = draw(todoWrite.renderToolResultMessage!(textResult("ok"), input, renderOptions()));
    expect(frame.split("\n")).toEqual(["  ⎿  ☑ Write the parser", "     ◐ Testing the parser", "     ☐ Document it"]);
    expect(draw(todoWrite.renderToolUseMessage(input, renderOptions()))).toBe("3 todos, 1 done");
  });

  it("draws every partial list (an item cut after its first member) and an empty one", () => {
    for (const partial of [{}, { todos: [] }, { todos: [{ content: "Wri" }] }, { todos: [input.todos[0], { content: "Test" }] }, { todos: [null, 3, "x"] }]) {
      expect(() => draw(todoWrite.renderToolResultMessage!(textResult("ok"), partial as never, renderOptions()))).not.toThrow();
    }
    expect(draw(todoWrite.renderToolResultMessage!(textResult("ok"), { todos: [input.todos[0], { content: "Test" }] } as never, renderOptions()))).toContain("☐ Test");
    expectPartialsDraw(todoWrite, input);
    expect(draw(todoWrite.renderToolUseErrorMessage!("<tool_use_error>Only one todo can be in_progress: 2 are</tool_use_error>", input, renderOptions()))).toBe(
      "  ⎿  Only one todo can be in_progress: 2 are",
    );
  });
});

describe("Agent renderer", () => {
  const input = { description: "Find the flaky test", prompt: "Look through test/ for …", subagent_type: "explorer" };

  it("names the agent type and shows the description, for partial input too", () => {
    expect(agent.userFacingName!(input)).toBe("explorer");
    expect(agent.userFacingName!({})).toBe("Agent");
    const frames = expectPartialsDraw(agent, input);
    expect(frames.at(-1)).toBe("Find the flaky test");
  });

  it("nests the subagent's live steps, newest last, older ones counted; unknown shapes drawn generically", () => {
    const progress = [
      { type: "text", text: "I will search first." },
      { type: "tool_use", name: "Grep", summary: 'pattern: "flaky"' },
      { type: "tool_use", name: "Read", summary: "test/a.test.ts" },
      { data: { type: "tool_use", name: "Read", summary: "test/b.test.ts" } },
      { type: "tool_use", name: "Bash" },
      { type: "usage", tokens: 1200 },
      { type: "text", text: "Found it." },
      null,
    ];
    const frame = draw(agent.renderToolUseProgressMessage!(progress, input, renderOptions()));
    expect(frame.split("\n")).toEqual([
      "  ⎿  … +2 earlier steps (ctrl+o to expand)",
      "     ● Read(test/a.test.ts)",
      "     ● Read(test/b.test.ts)",
      "     ● Bash",
      '       {"type":"usage","tokens":1200}',
      "       Found it.",
    ]);
    const all = draw(agent.renderToolUseProgressMessage!(progress, input, renderOptions({ expanded: true })));
    expect(all).toContain('● Grep(pattern: "flaky")');
    expect(all).toContain("I will search first.");
    expect(draw(agent.renderToolUseProgressMessage!([], input, renderOptions()))).toContain("Starting…");
  });

  it("draws what the Agent tool really streams: calls, failed outcomes, the subagent's text and notices", () => {
    const progress = [
      { type: "subagent_tool_use", agentId: "agent-1", toolUseID: "t1", toolName: "Read", summary: "src/a.ts" },
      { type: "subagent_tool_result", agentId: "agent-1", toolUseID: "t1", toolName: "Read", outcome: "success" },
      { type: "subagent_tool_use", agentId: "agent-1", toolUseID: "t2", toolName: "Bash", summary: "npm test" },
      { type: "subagent_tool_result", agentId: "agent-1", toolUseID: "t2", toolName: "Bash", outcome: "denied" },
      { type: "subagent_notice", agentId: "agent-1", level: "warning", message: "retrying the model" },
      { type: "subagent_text", agentId: "agent-1", text: "Reading done." },
    ];
    const frame = draw(agent.renderToolUseProgressMessage!(progress, input, renderOptions()));
    expect(frame.split("\n")).toEqual(["  ⎿  ● Read(src/a.ts)", "     ● Bash(npm test)", "       Bash: denied", "       warning: retrying the model", "       Reading done."]);
    const stopped = { ...textResult("partial answer", { durationMs: 4200 }), output: { text: "partial answer", turns: 3, stopReason: "max_turns" } };
    expect(draw(agent.renderToolResultMessage!(stopped, input, renderOptions()))).toContain("Stopped (max turns) · 3 turns · 4.2s");
  });

  it("shows the final text collapsed with the call's duration", () => {
    const result = textResult(numberedLines(20, "finding"), { durationMs: 65_000 });
    const frame = draw(agent.renderToolResultMessage!(result, input, renderOptions()));
    expect(frame).toContain("Done · 1m 5s");
    expect(frame).toContain("finding 8");
    expect(frame).not.toContain("finding 9");
    expect(agent.isResultTruncated!(result, input)).toBe(true);
    expect(draw(agent.renderToolResultMessage!(result, input, renderOptions({ expanded: true })))).toContain("finding 20");
  });
});

describe("Skill, TextEditor, ApplyPatch and Diagnostics renderers", () => {
  it("Skill: the name and arguments; the result says it loaded without dumping the instructions", () => {
    const input = { skill: "pdf-forms", args: "fill invoice.pdf" };
    expect(expectPartialsDraw(skill, input).at(-1)).toBe("pdf-forms fill invoice.pdf");
    const frame = draw(skill.renderToolResultMessage!(textResult(numberedLines(30, "step")), input, renderOptions()));
    expect(frame).toBe("  ⎿  Loaded the skill (30 lines of instructions)");
  });

  it("TextEditor: command and path; a diff when the output has one; the proposed change when rejected", () => {
    const input = { command: "str_replace" as const, path: "/work/project/src/a.py", old_str: "x = 1", new_str: "x = 2" };
    expect(expectPartialsDraw(textEditor, input).at(-1)).toBe("str_replace src/a.py");
    expect(textEditor.userFacingName!({ command: "view" })).toBe("Read");
    expect(draw(textEditor.renderToolUseMessage({ command: "view", path: "a.py", view_range: [10, 20] }, renderOptions()))).toBe("view a.py lines 10-20");
    const withPatch = textResult("The file was edited.", { output: { structuredPatch: [{ oldStart: 3, oldLines: 1, newStart: 3, newLines: 1, lines: ["-x = 1", "+x = 2"] }] } });
    const frame = draw(textEditor.renderToolResultMessage!(withPatch, input, renderOptions()));
    expect(frame).toContain("3 - x = 1");
    expect(frame).toContain("3 + x = 2");
    expect(draw(textEditor.renderToolResultMessage!(textResult("Done."), input, renderOptions()))).toContain("Done.");
    expect(draw(textEditor.renderToolResultMessage!(textResult("1\ta\n2\tb"), { command: "view", path: "a.py" }, renderOptions()))).toContain("Read 2 lines");
    const rejected = draw(textEditor.renderToolUseRejectedMessage!(input, renderOptions()));
    expect(rejected).toContain("- x = 1");
    expect(rejected).toContain("+ x = 2");
    expectPartialsDraw(textEditor, { command: "create", path: "n.txt", file_text: "hello\nworld" });
    expectPartialsDraw(textEditor, { command: "insert", path: "n.txt", insert_line: 3, new_str: "mid" });
  });

  const PATCH = [
    "*** Begin Patch",
    "*** Add File: docs/new.md",
    "+# New",
    "+text",
    "*** Update File: src/app.py",
    "*** Move to: src/main.py",
    "@@ def greet():",
    '-    print("Hi")',
    '+    print("Hello")',
    "+    return 1",
    "*** Delete File: old.txt",
    "*** End Patch",
  ].join("\n");

  it("ApplyPatch: the files a V4A patch touches with +/- counts", () => {
    expect(summarizePatch(PATCH)).toEqual([
      { action: "add", path: "docs/new.md", added: 2, removed: 0 },
      { action: "update", path: "src/app.py", moveTo: "src/main.py", added: 2, removed: 1 },
      { action: "delete", path: "old.txt", added: 0, removed: 0 },
    ]);
    const input = { input: PATCH };
    expect(draw(applyPatch.renderToolUseMessage(input, renderOptions()))).toBe("3 files · +4 -1");
    const frame = draw(applyPatch.renderToolResultMessage!(textResult("Done"), input, renderOptions()));
    expect(frame.split("\n")).toEqual(["  ⎿  Add docs/new.md +2 -0", "     Update src/app.py → src/main.py +2 -1", "     Delete old.txt"]);
  });

  it("ApplyPatch: never throws on a patch cut at any character", () => {
    const cuts = Array.from({ length: PATCH.length + 1 }, (_, i) => ({ input: PATCH.slice(0, i) }));
    // one frame holding every cut: drawing each alone costs an Ink render apiece
    const frame = draw(
      <>
        {cuts.map((input, i) => (
          <Fragment key={i}>
            {applyPatch.renderToolUseMessage(input, renderOptions())}
            {applyPatch.renderToolUseRejectedMessage!(input, renderOptions())}
          </Fragment>
        ))}
      </>,
    );
    expect(frame).toContain("Update src/app.py → src/main.py +2 -1");
    // a header cut mid-path shows what has arrived; one cut before its colon is not a file yet
    expect(summarizePatch("*** Begin Patch\n*** Update File: src/ap").map((f) => f.path)).toEqual(["src/ap"]);
    expect(summarizePatch("*** Begin Patch\n*** Update Fi")).toEqual([]);
    expect(draw(applyPatch.renderToolUseMessage({}, renderOptions()))).toBe("");
  });

  it("Diagnostics: the file or the open files; the result collapsed", () => {
    expect(expectPartialsDraw(diagnostics, { file_path: "/work/project/src/a.ts" }).at(-1)).toBe("src/a.ts");
    expect(draw(diagnostics.renderToolUseMessage({}, renderOptions()))).toBe("open files");
    const frame = draw(diagnostics.renderToolResultMessage!(textResult(numberedLines(12, "src/a.ts:1:1 error TS2322")), {}, renderOptions()));
    expect(frame).toContain("… +4 lines");
    expect(draw(diagnostics.renderToolResultMessage!(textResult(""), {}, renderOptions()))).toContain("No diagnostics");
    const output = { files: [{ diagnostics: [{ severity: 1 }, { severity: 2 }, {}] }, { diagnostics: [{ severity: 3 }] }] };
    expect(draw(diagnostics.renderToolResultMessage!(textResult("a.ts:1:1 error", { output }), {}, renderOptions())).split("\n")[0]).toBe("  ⎿  2 errors, 1 warning, 1 other in 2 files");
  });
});
