import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../../../src/core/buildTool.js";
import { createStreamingToolExecutor, type ExecutorUpdate } from "../../../src/core/executor/index.js";
import type { ToolStatusUpdate, ToolResultUpdate } from "../../../src/core/pipeline/index.js";
import type { ToolUseContext } from "../../../src/core/Tool.js";
import type { ToolUseBlock } from "../../../src/core/messages.js";
import { approveAll, testContext } from "../../helpers.js";

/** Gates the test opens by name; a call waits on its gate, so the test decides when each call ends. */
function gates() {
  const promises = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  const get = (key: string) => {
    if (!promises.has(key)) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      promises.set(key, { promise, resolve });
    }
    return promises.get(key) as { promise: Promise<void>; resolve: () => void };
  };
  return {
    wait: (name: string) => get(`open:${name}`).promise,
    open: (name: string) => get(`open:${name}`).resolve(),
    /** Resolves once the tool's call() for this gate has begun. */
    started: (name: string) => get(`started:${name}`).promise,
    markStarted: (name: string) => get(`started:${name}`).resolve(),
  };
}

function gatedTool(g: ReturnType<typeof gates>, started: string[]) {
  return buildTool({
    name: "Gate",
    maxResultSizeChars: 100_000,
    inputSchema: z.strictObject({ gate: z.string(), safe: z.boolean(), fail: z.boolean().optional(), tag: z.string().optional() }),
    description: () => "waits on a gate",
    prompt: () => "waits on a gate",
    cancelsSiblingsOnError: true,
    describeInput: (input) => `gate ${input.gate}`,
    isConcurrencySafe: (input) => input.safe,
    isReadOnly: (input) => input.safe,
    async call(args, context, _c, _m, onProgress) {
      started.push(args.gate);
      g.markStarted(args.gate);
      onProgress?.({ toolUseID: context.toolUseID!, data: `started ${args.gate}` });
      await new Promise<void>((resolve, reject) => {
        const signal = context.abortController.signal;
        const aborted = () => reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
        if (signal.aborted) return aborted();
        void g.wait(args.gate).then(resolve);
        signal.addEventListener("abort", aborted, { once: true });
      });
      if (args.fail) throw new Error(`gate ${args.gate} failed`);
      return {
        data: `${args.gate} saw ${context.messages.length} messages`,
        contextModifier: args.tag ? (ctx: ToolUseContext) => ({ ...ctx, messages: [...ctx.messages, { role: "user" as const, content: args.tag! }] }) : undefined,
      };
    },
    mapToolResultToToolResultBlockParam: (out: string, id) => ({ type: "tool_result", tool_use_id: id, content: out }),
  });
}

const block = (id: string, input: Record<string, unknown>): ToolUseBlock => ({ type: "tool_use", id, name: "Gate", input });

/** Resolves once the board says the call reached `status`. */
function reached(context: ToolUseContext, id: string, status: ToolStatusUpdate["status"]): Promise<void> {
  return new Promise((resolve) => {
    if (context.toolStatus.get(id)?.status === status) return resolve();
    const stop = context.toolStatus.subscribe((u) => {
      if (u.toolUseID === id && u.status === status) {
        stop();
        resolve();
      }
    });
  });
}

function setup(env: Record<string, string> = {}) {
  const g = gates();
  const started: string[] = [];
  const context = testContext({ tools: [gatedTool(g, started)], env: { ...process.env, ...env } });
  const executor = createStreamingToolExecutor(context, approveAll);
  const updates: ExecutorUpdate[] = [];
  const drained = (async () => {
    for await (const u of executor.updates) updates.push(u);
  })();
  return { g, started, context, executor, updates, drained };
}

const resultsOf = (updates: ExecutorUpdate[]) => updates.filter((u): u is ToolResultUpdate => u.type === "result");

describe("streaming tool executor", () => {
  it("starts a safe call while the message is still streaming, before the next block arrives", async () => {
    const { g, started, context, executor, updates, drained } = setup();
    executor.addTool(block("a", { gate: "a", safe: true }));
    await g.started("a");
    expect(started).toEqual(["a"]);
    executor.addTool(block("b", { gate: "b", safe: true }));
    await g.started("b");
    expect(started).toEqual(["a", "b"]);
    g.open("b");
    g.open("a");
    executor.finish();
    await drained;
    expect(resultsOf(updates).map((r) => r.toolUseID)).toEqual(["a", "b"]);
    expect(resultsOf(updates).every((r) => r.outcome === "success")).toBe(true);
  });

  it("yields results in block order, progress as it happens, and status from queued to done", async () => {
    const { g, context, executor, updates, drained } = setup();
    executor.addTool(block("slow", { gate: "slow", safe: true }));
    executor.addTool(block("fast", { gate: "fast", safe: true }));
    executor.finish();
    await g.started("slow");
    await g.started("fast");
    g.open("fast");
    await reached(context, "fast", "done");
    expect(context.getInProgressToolUseIDs()).toEqual(new Set(["slow"]));
    g.open("slow");
    await drained;
    const order = updates.filter((u) => u.type !== "status").map((u) => `${u.type}:${u.toolUseID}`);
    expect(order.indexOf("result:fast")).toBeGreaterThan(order.indexOf("result:slow"));
    expect(order.indexOf("progress:fast")).toBeLessThan(order.indexOf("result:slow"));
    for (const id of ["slow", "fast"]) {
      const statuses = updates.filter((u): u is ToolStatusUpdate => u.type === "status" && u.toolUseID === id).map((u) => u.status);
      expect(statuses).toEqual(["queued", "validating", "running", "done"]);
      const doneAt = updates.findIndex((u) => u.type === "status" && u.toolUseID === id && u.status === "done");
      expect(doneAt).toBeLessThan(updates.findIndex((u) => u.type === "result" && u.toolUseID === id));
    }
    expect(context.getInProgressToolUseIDs().size).toBe(0);
  });

  it("holds an unsafe call until everything before it is done, and safe calls after it until it is done", async () => {
    const { g, started, context, executor, drained } = setup();
    executor.addTool(block("read", { gate: "read", safe: true }));
    executor.addTool(block("write", { gate: "write", safe: false, tag: "written" }));
    executor.addTool(block("after", { gate: "after", safe: true }));
    executor.finish();
    await g.started("read");
    expect(started).toEqual(["read"]);
    expect(context.toolStatus.get("write")?.status).toBe("queued");
    g.open("read");
    await g.started("write");
    expect(started).toEqual(["read", "write"]);
    g.open("write");
    g.open("after");
    await drained;
    expect(started).toEqual(["read", "write", "after"]);
    const { message, context: after } = await executor.result();
    const texts = (message.content as Array<{ content: string }>).map((c) => c.content);
    // the unsafe call's contextModifier reached the call after it, and the executor's final context
    expect(texts).toEqual(["read saw 0 messages", "write saw 0 messages", "after saw 1 messages"]);
    expect(after.messages).toHaveLength(1);
  });

  it("never runs more safe calls at once than the cap", async () => {
    const { g, started, context, executor, drained } = setup({ TOOLGATE_MAX_TOOL_USE_CONCURRENCY: "2" });
    for (const id of ["1", "2", "3"]) executor.addTool(block(id, { gate: id, safe: true }));
    executor.finish();
    await g.started("2");
    expect(started).toEqual(["1", "2"]);
    expect(context.toolStatus.get("3")?.status).toBe("queued");
    g.open("1");
    await g.started("3");
    g.open("2");
    g.open("3");
    await drained;
    expect(started).toEqual(["1", "2", "3"]);
  });

  it("abort gives every unfinished call its cancellation result, including calls not started yet", async () => {
    const { g, started, context, executor, updates, drained } = setup();
    executor.addTool(block("done-first", { gate: "done-first", safe: true }));
    executor.addTool(block("running", { gate: "running", safe: true }));
    executor.addTool(block("blocked", { gate: "blocked", safe: false }));
    await g.started("running");
    g.open("done-first");
    await reached(context, "done-first", "done");
    executor.abort("The user pressed Esc.");
    executor.finish();
    await drained;
    const results = resultsOf(updates);
    expect(results.map((r) => [r.toolUseID, r.outcome])).toEqual([
      ["done-first", "success"],
      ["running", "cancelled"],
      ["blocked", "cancelled"],
    ]);
    expect(results[1].block.content).toBe("The user pressed Esc.");
    expect(started).not.toContain("blocked");
    // the session's own controller is untouched: the next turn runs normally
    expect(context.abortController.signal.aborted).toBe(false);
  });

  it("a failing call whose tool cancels its siblings stops the rest of its batch, not later batches", async () => {
    const { g, context, executor, updates, drained } = setup();
    executor.addTool(block("sibling", { gate: "sibling", safe: true }));
    executor.addTool(block("bad", { gate: "bad", safe: true, fail: true }));
    executor.addTool(block("next", { gate: "next", safe: false }));
    executor.finish();
    await g.started("bad");
    g.open("bad");
    await g.started("next");
    g.open("next");
    await drained;
    const results = resultsOf(updates);
    expect(results.map((r) => r.outcome)).toEqual(["cancelled", "tool_error", "success"]);
    expect(results[0].block.content).toBe("Cancelled: the parallel tool call Gate(gate bad) failed, so this call was stopped.");
  });

  it("result() answers every block in order, and the session's abort reaches calls too", async () => {
    const g = gates();
    const context = testContext({ tools: [gatedTool(g, [])] });
    const executor = createStreamingToolExecutor(context, approveAll);
    executor.addTool(block("x", { gate: "x", safe: true }));
    executor.addTool({ type: "tool_use", id: "y", name: "NoSuchTool", input: {} });
    executor.finish();
    await g.started("x");
    context.abortController.abort();
    const { message, results } = await executor.result();
    expect((message.content as Array<{ tool_use_id: string }>).map((c) => c.tool_use_id)).toEqual(["x", "y"]);
    // the pipeline finds the tool before it checks for an abort, so the unknown name is what the model hears
    expect(results.map((r) => r.outcome)).toEqual(["cancelled", "unknown_tool"]);
  });

  it("refuses a block added after finish instead of losing it", () => {
    const { executor } = setup();
    executor.finish();
    expect(() => executor.addTool(block("late", { gate: "late", safe: true }))).toThrow(/after the executor was closed/);
  });
});
