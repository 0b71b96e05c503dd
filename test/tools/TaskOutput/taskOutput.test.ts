/** TaskOutput on any kind of background task, through the pipeline. */
import { describe, expect, it } from "vitest";
import { TaskOutputTool } from "../../../src/tools/TaskOutput/index.js";
import { createTaskRegistry, createTaskId } from "../../../src/core/tasks.js";
import { approveAll, testContext } from "../../helpers.js";
import { runTool } from "../Bash/helpers.js";
import { createFakeTask } from "./fakeTask.js";

describe("TaskOutput", () => {
  it("is read-only, concurrency-safe, allowed without asking, and answers to BashOutput", async () => {
    const context = testContext({ tools: [TaskOutputTool] });
    const task = createFakeTask("a1", "half done");
    context.tasks.add(task);
    expect(TaskOutputTool.isReadOnly({ task_id: "a1", block: true, timeout: 1 })).toBe(true);
    expect(TaskOutputTool.isConcurrencySafe({ task_id: "a1", block: true, timeout: 1 })).toBe(true);
    const { result, text } = await runTool(context, "BashOutput", { task_id: "a1", block: false }, async () => {
      throw new Error("must not ask");
    });
    expect(result.outcome).toBe("success");
    expect(text).toContain("Task a1 (agent: summarise the repository) is running.");
    expect(text).toContain("Output:\nhalf done");
    expect(text).not.toContain("Exit code");
  });

  it("blocks until the task finishes", async () => {
    const context = testContext({ tools: [TaskOutputTool] });
    const task = createFakeTask("a2", "all done");
    context.tasks.add(task);
    setTimeout(() => task.finish(), 100);
    const { text } = await runTool(context, "TaskOutput", { task_id: "a2" }, approveAll);
    expect(text).toMatch(/has completed/);
  });

  it("returns after its timeout while the task runs on, and stops waiting when the turn is aborted", async () => {
    const context = testContext({ tools: [TaskOutputTool] });
    context.tasks.add(createFakeTask("a3", ""));
    const timedOut = await runTool(context, "TaskOutput", { task_id: "a3", timeout: "50" }, approveAll);
    expect(timedOut.text).toMatch(/still running: the wait timed out/);
    expect(timedOut.text).toMatch(/\(no output yet\)/);
    setTimeout(() => context.abortController.abort(), 50);
    const aborted = await runTool(context, "TaskOutput", { task_id: "a3", timeout: 600_000 }, approveAll);
    expect(aborted.result.outcome).toBe("cancelled");
  });

  it("rejects a timeout above the maximum and unknown ids", async () => {
    const context = testContext({ tools: [TaskOutputTool] });
    context.tasks.add(createFakeTask("a4", ""));
    expect((await runTool(context, "TaskOutput", { task_id: "a4", timeout: 600_001 }, approveAll)).result.outcome).toBe("invalid_input");
    const unknown = await runTool(context, "TaskOutput", { task_id: "zz" }, approveAll);
    expect(unknown.text).toMatch(/No background task has the id zz\. Known tasks: a4 \(running\)\./);
  });
});

describe("TaskRegistry", () => {
  it("refuses a duplicate id and stops every running task at session end", async () => {
    const registry = createTaskRegistry();
    const a = createFakeTask("x", "");
    const b = createFakeTask("y", "");
    registry.add(a);
    registry.add(b);
    expect(() => registry.add(createFakeTask("x", ""))).toThrow(/already registered/);
    b.finish();
    await registry.stopAll();
    expect(a.status()).toBe("killed");
    expect(b.status()).toBe("completed");
    expect(createTaskId("b")).toMatch(/^b[0-9a-f]{8}$/);
  });
});
