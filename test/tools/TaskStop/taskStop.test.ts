/** TaskStop on any kind of background task, through the pipeline. */
import { describe, expect, it } from "vitest";
import { TaskStopTool } from "../../../src/tools/TaskStop/index.js";
import { approveAll, testContext } from "../../helpers.js";
import { runTool } from "../Bash/helpers.js";
import { createFakeTask } from "../TaskOutput/fakeTask.js";

describe("TaskStop", () => {
  it("stops a running task (also as KillShell) and reports one that already ended", async () => {
    const context = testContext({ tools: [TaskStopTool] });
    const running = createFakeTask("s1", "");
    const ended = createFakeTask("s2", "");
    ended.finish();
    context.tasks.add(running);
    context.tasks.add(ended);
    expect(TaskStopTool.isReadOnly({ task_id: "s1" })).toBe(false);
    const stopped = await runTool(context, "KillShell", { task_id: "s1" }, async () => {
      throw new Error("must not ask");
    });
    expect(stopped.text).toBe("Stopped task s1 (summarise the repository) and every process it started.");
    expect(running.status()).toBe("killed");
    const again = await runTool(context, "TaskStop", { task_id: "s2" }, approveAll);
    expect(again.result.block.is_error).toBeFalsy();
    expect(again.text).toBe("Task s2 (summarise the repository) was not running: it had completed.");
  });

  it("rejects unknown ids and unknown parameters", async () => {
    const context = testContext({ tools: [TaskStopTool] });
    const unknown = await runTool(context, "TaskStop", { task_id: "nope" }, approveAll);
    expect(unknown.result.outcome).toBe("invalid_input");
    expect(unknown.text).toMatch(/No background tasks exist in this session/);
    const extra = await runTool(context, "TaskStop", { task_id: "nope", shell_id: "nope" }, approveAll);
    expect(extra.text).toMatch(/shell_id: unexpected parameter/);
  });
});
