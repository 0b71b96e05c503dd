import { describe, expect, it, afterAll } from "vitest";
import { BashTool } from "../../../src/tools/Bash/index.js";
import { TaskOutputTool } from "../../../src/tools/TaskOutput/index.js";
import { TaskStopTool } from "../../../src/tools/TaskStop/index.js";
import { GrepTool } from "../../../src/tools/Grep/index.js";
import { GlobTool } from "../../../src/tools/Glob/index.js";
import { ReadTool } from "../../../src/tools/Read/index.js";
import { ToolSearchTool } from "../../../src/tools/ToolSearch/index.js";
import { renderer as bashRenderer } from "../../../src/tools/Bash/ui.js";
import { renderer as taskOutputRenderer } from "../../../src/tools/TaskOutput/ui.js";
import { renderer as taskStopRenderer } from "../../../src/tools/TaskStop/ui.js";
import { renderer as grepRenderer } from "../../../src/tools/Grep/ui.js";
import { renderer as globRenderer } from "../../../src/tools/Glob/ui.js";
import { renderer as toolSearchRenderer } from "../../../src/tools/ToolSearch/ui.js";
import type { ToolUseContext } from "../../../src/core/Tool.js";
import type { BashOutput } from "../../../src/tools/Bash/index.js";
import { approveAll, tempDir, testContext } from "../../helpers.js";
import { runTool, write } from "../../tools/Bash/helpers.js";
import { draw, expectPartialsDraw, renderOptions, rendered } from "./support.js";

const contexts: ToolUseContext[] = [];
function session(): ToolUseContext {
  const context = testContext({ tools: [BashTool, TaskOutputTool, TaskStopTool, GrepTool, GlobTool, ReadTool, ToolSearchTool], cwd: tempDir("toolgate-render-") });
  contexts.push(context);
  return context;
}
afterAll(async () => {
  await Promise.all(contexts.map((c) => c.tasks.stopAll()));
});

describe("Bash renderer", () => {
  it("shows the command as it streams in, flags, and a one-line summary of a script", () => {
    const frames = expectPartialsDraw(bashRenderer, { command: "npm run build && npm test", description: "Build and test", run_in_background: true });
    expect(frames[1]).toBe("npm run build"); // the command cut at half its length
    expect(frames.at(-1)).toBe("npm run build && npm test · background");
    expect(draw(bashRenderer.renderToolUseMessage({ command: "for f in *; do\n  echo $f\ndone" }, renderOptions()))).toBe("for f in *; do ⏎   echo $f ⏎ done");
    expect(draw(bashRenderer.renderToolUseMessage({ command: "rm -rf build", dangerouslyDisableSandbox: true }, renderOptions()))).toBe("rm -rf build · outside the sandbox");
  });

  it("tails the live output from real progress events, then shows the result", async () => {
    const context = session();
    const input = { command: "for i in $(seq 1 8); do echo tick $i; done; sleep 1.2; echo done" };
    const { result, progress } = await runTool(context, "Bash", input, approveAll);
    expect(progress.length).toBeGreaterThan(0);
    const live = draw(bashRenderer.renderToolUseProgressMessage!(progress, input, renderOptions()));
    expect(live).toContain("tick 8");
    expect(live).toContain("tick 4");
    expect(live).not.toContain("tick 3");
    expect(live).toMatch(/Running… \d/);
    // the same events wrapped as the executor's progress updates
    const wrapped = draw(bashRenderer.renderToolUseProgressMessage!(progress.map((data) => ({ toolUseID: "t", data })), input, renderOptions()));
    expect(wrapped).toContain("tick 8");
    expect(draw(bashRenderer.renderToolUseProgressMessage!([], input, renderOptions()))).toContain("Running…");
    const done = draw(bashRenderer.renderToolResultMessage!(rendered<BashOutput>(result), input, renderOptions()));
    expect(done).toContain("tick 1");
    expect(done).toContain("done");
  });

  it("collapses a 200-line output to its first lines and shows it whole when expanded", async () => {
    const input = { command: "seq 1 200" };
    const { result } = await runTool(session(), "Bash", input, approveAll);
    const r = rendered<BashOutput>(result);
    expect(bashRenderer.isResultTruncated!(r, input)).toBe(true);
    const collapsed = draw(bashRenderer.renderToolResultMessage!(r, input, renderOptions()));
    expect(collapsed.split("\n")).toHaveLength(11);
    expect(collapsed).toContain("… +190 lines (ctrl+o to expand)");
    const whole = draw(bashRenderer.renderToolResultMessage!(r, input, renderOptions({ expanded: true })));
    expect(whole).toContain("200");
    expect(whole.split("\n")).toHaveLength(200);
  });

  it("shows the exit code of a failing command and the note for a benign one", async () => {
    const failing = { command: "echo oops; exit 3" };
    const { result } = await runTool(session(), "Bash", failing, approveAll);
    expect(result.block.is_error).toBe(true);
    const frame = draw(bashRenderer.renderToolResultMessage!(rendered<BashOutput>(result), failing, renderOptions()));
    expect(frame).toContain("oops");
    expect(frame).toContain("Exit code 3");
    const context = session();
    write(context.getCwd(), "f.txt", "abc\n");
    const benign = { command: "grep zzz f.txt" };
    const second = await runTool(context, "Bash", benign, approveAll);
    const note = draw(bashRenderer.renderToolResultMessage!(rendered<BashOutput>(second.result), benign, renderOptions()));
    expect(note).toContain("(no output)");
    expect(note).not.toContain("Exit code");
  });

  it("shows a background task's id, and TaskOutput / TaskStop on it", async () => {
    const context = session();
    const input = { command: "echo begun; sleep 30", run_in_background: true };
    const { result } = await runTool(context, "Bash", input, approveAll);
    const output = result.output as BashOutput;
    expect(output.backgroundTaskId).toBeTruthy();
    const frame = draw(bashRenderer.renderToolResultMessage!(rendered<BashOutput>(result), input, renderOptions()));
    expect(frame).toContain(`Running in the background (task ${output.backgroundTaskId}`);

    const peekInput = { task_id: output.backgroundTaskId!, block: false };
    expect(draw(taskOutputRenderer.renderToolUseMessage(peekInput, renderOptions()))).toBe(`${output.backgroundTaskId} · no wait`);
    const peek = await runTool(context, "TaskOutput", { task_id: output.backgroundTaskId, block: true, timeout: 300 }, approveAll);
    const peekFrame = draw(taskOutputRenderer.renderToolResultMessage!(rendered(peek.result), { ...peekInput, timeout: 300 }, renderOptions()));
    expect(peekFrame).toContain("running");
    expect(peekFrame).toContain("begun");

    const stop = await runTool(context, "TaskStop", { task_id: output.backgroundTaskId }, approveAll);
    expect(draw(taskStopRenderer.renderToolResultMessage!(rendered(stop.result), { task_id: output.backgroundTaskId! }, renderOptions()))).toContain(`Stopped ${output.backgroundTaskId}`);
    const unknown = await runTool(context, "TaskStop", { task_id: "nope" }, approveAll);
    expect(unknown.result.block.is_error).toBe(true);
    expect(draw(taskStopRenderer.renderToolUseErrorMessage!(unknown.text, { task_id: "nope" }, renderOptions()))).toContain("nope");
    expectPartialsDraw(taskOutputRenderer, { task_id: "b123", block: true, timeout: 1000 });
    expectPartialsDraw(taskStopRenderer, { task_id: "b123" });
  });

  it("draws a rejection with the reason", () => {
    const frame = draw(bashRenderer.renderToolUseRejectedMessage!({ command: "git push" }, { ...renderOptions(), reason: "`git push` needs approval" }));
    expect(frame).toContain("Rejected: git push");
    expect(frame).toContain("needs approval");
  });
});

describe("Grep and Glob renderers", () => {
  it("Grep: pattern and options, counts and the first matches of a real search, grouped", async () => {
    const context = session();
    for (let i = 0; i < 8; i++) write(context.getCwd(), `src/f${i}.ts`, `export const value${i} = ${i};\n// TODO item ${i}\n`);
    const input = { pattern: "TODO", path: `${context.getCwd()}/src`, output_mode: "content" as const };
    const options = renderOptions({ cwd: context.getCwd() });
    expect(draw(grepRenderer.renderToolUseMessage(input, options))).toBe('pattern: "TODO", path: "src", content');
    const { result } = await runTool(context, "Grep", input, approveAll);
    const r = rendered(result);
    const frame = draw(grepRenderer.renderToolResultMessage!(r as never, input, options));
    expect(frame).toContain("Found 8 lines in 8 files");
    expect(frame).toMatch(/src\/f\d\.ts:2:\/\/ TODO item/);
    expect(frame).toContain("… +3 lines (ctrl+o to expand)");
    expect(grepRenderer.isResultTruncated!(r as never, input)).toBe(true);

    const files = await runTool(context, "Grep", { pattern: "value3" }, approveAll);
    const none = await runTool(context, "Grep", { pattern: "absent-text" }, approveAll);
    const group = draw(
      grepRenderer.renderGroupedToolUse!(
        [
          { toolUseID: "1", input: { pattern: "value3" }, progress: [], result: rendered(files.result) as never },
          { toolUseID: "2", input: { pattern: "absent-text" }, progress: [], result: rendered(none.result) as never },
          { toolUseID: "3", input: { pattern: "stil" }, progress: [] },
        ],
        options,
      ),
    );
    expect(group.split("\n")).toEqual(["● Search (3 patterns)", '  ⎿  pattern: "value3" · Found 1 file', '  ⎿  pattern: "absent-text" · Found 0 files', '  ⎿  pattern: "stil" · searching…']);
    expectPartialsDraw(grepRenderer, { pattern: "foo.*bar", path: "src", glob: "*.ts", output_mode: "count", "-i": true });
  });

  it("Glob: counts, the first files, truncation, grouped", async () => {
    const context = session();
    for (let i = 0; i < 7; i++) write(context.getCwd(), `lib/m${i}.js`, "x\n");
    const input = { pattern: "**/*.js" };
    const options = renderOptions({ cwd: context.getCwd() });
    const { result } = await runTool(context, "Glob", input, approveAll);
    const frame = draw(globRenderer.renderToolResultMessage!(rendered(result) as never, input, options));
    expect(frame).toContain("Found 7 files");
    expect(frame).toMatch(/lib\/m\d\.js/);
    expect(frame).toContain("… +2 lines (ctrl+o to expand)");
    const expanded = draw(globRenderer.renderToolResultMessage!(rendered(result) as never, input, renderOptions({ cwd: context.getCwd(), expanded: true })));
    expect(expanded.match(/lib\/m\d\.js/g)).toHaveLength(7);
    const missing = await runTool(context, "Glob", { pattern: "*.js", path: "nowhere" }, approveAll);
    expect(missing.result.block.is_error).toBe(true);
    expect(draw(globRenderer.renderToolUseErrorMessage!(missing.text, { pattern: "*.js", path: "nowhere" }, options))).toContain("Directory does not exist: nowhere");
    const group = draw(globRenderer.renderGroupedToolUse!([{ toolUseID: "1", input, progress: [], result: rendered(result) as never }, { toolUseID: "2", input: { pattern: "*.md" }, progress: [] }], options));
    expect(group).toContain("● Search (2 patterns)");
    expect(group).toContain('pattern: "**/*.js" · Found 7 files');
    expectPartialsDraw(globRenderer, { pattern: "src/**/*.{ts,tsx}", path: "packages/app" });
  });
});

describe("ToolSearch renderer", () => {
  it("shows the query and what a real search loaded", async () => {
    const context = session();
    const input = { query: "select:Read,NoSuchTool", max_results: 5 };
    const { result } = await runTool(context, "ToolSearch", input, approveAll);
    const frame = draw(toolSearchRenderer.renderToolResultMessage!(rendered(result) as never, input, renderOptions()));
    expect(frame).toContain("Loaded 1 tool: Read");
    expect(frame).toContain("Not found: NoSuchTool");
    expect(draw(toolSearchRenderer.renderToolUseMessage(input, renderOptions()))).toBe('"select:Read,NoSuchTool"');
    expectPartialsDraw(toolSearchRenderer, input);
  });
});
