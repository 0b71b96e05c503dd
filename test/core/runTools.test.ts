import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../../src/core/buildTool.js";
import { partitionToolCalls, runTools, runToolsToMessage } from "../../src/core/executor/index.js";
import type { ToolUseUpdate } from "../../src/core/pipeline/index.js";
import type { ToolUseContext } from "../../src/core/Tool.js";
import type { ToolUseBlock } from "../../src/core/messages.js";
import { approveAll, assistantMessage, testContext } from "../helpers.js";

interface Span {
  id: string;
  start: number;
  end: number;
}

/** Sleeps `ms`, records when it ran; `safe` decides concurrency safety; optionally modifies the context. */
function sleeper(spans: Span[]) {
  return buildTool({
    name: "Sleep",
    maxResultSizeChars: 100_000,
    inputSchema: z.strictObject({ ms: z.number(), safe: z.boolean(), tag: z.string().optional(), fail: z.boolean().optional() }),
    description: () => "sleep",
    prompt: () => "sleep",
    isConcurrencySafe: (input) => input.safe,
    isReadOnly: (input) => input.safe,
    async call(args, context) {
      const start = performance.now();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, args.ms);
        context.abortController.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
        });
      });
      spans.push({ id: context.toolUseID!, start, end: performance.now() });
      if (args.fail) throw new Error(`${args.tag ?? "call"} failed`);
      return {
        data: args.tag ?? "",
        contextModifier: args.tag
          ? (ctx: ToolUseContext) => ({ ...ctx, messages: [...ctx.messages, { role: "user" as const, content: args.tag! }] })
          : undefined,
      };
    },
    mapToolResultToToolResultBlockParam: (out: string, id) => ({ type: "tool_result", tool_use_id: id, content: `slept ${out}` }),
  });
}

/** The largest number of spans running at the same instant (ends sort before starts at equal times). */
function maxConcurrent(spans: Span[]): number {
  const events = spans.flatMap((s) => [
    { t: s.start, d: 1 },
    { t: s.end, d: -1 },
  ]);
  events.sort((a, b) => a.t - b.t || a.d - b.d);
  let running = 0;
  let max = 0;
  for (const e of events) max = Math.max(max, (running += e.d));
  return max;
}

const block = (id: string, input: Record<string, unknown>, name = "Sleep"): ToolUseBlock => ({ type: "tool_use", id, name, input });

async function drain(gen: AsyncGenerator<ToolUseUpdate, ToolUseContext>) {
  const updates: ToolUseUpdate[] = [];
  let step = await gen.next();
  while (!step.done) {
    updates.push(step.value);
    step = await gen.next();
  }
  return { updates, context: step.value };
}

describe("runTools", () => {
  it("partitions [safe, safe, unsafe, safe, safe] into three batches; bad input is never safe", () => {
    const ctx = testContext({ tools: [sleeper([])] });
    const blocks = [
      block("a", { ms: 1, safe: true }),
      block("b", { ms: 1, safe: true }),
      block("c", { ms: 1, safe: false }),
      block("d", { ms: 1, safe: true }),
      block("e", { ms: 1, safe: true }),
      block("f", { ms: "oops", safe: true, extra: 1 }),
      block("g", { ms: 1, safe: true }, "Unknown"),
    ];
    expect(partitionToolCalls(blocks, ctx).map((b) => [b.isConcurrencySafe, b.blocks.map((x) => x.id).join("")])).toEqual([
      [true, "ab"],
      [false, "c"],
      [true, "de"],
      [false, "f"],
      [false, "g"],
    ]);
  });

  it("runs safe batches concurrently, unsafe calls alone, batches in order, results in block order", async () => {
    const spans: Span[] = [];
    const ctx = testContext({ tools: [sleeper(spans)] });
    const blocks = [
      block("a", { ms: 150, safe: true }),
      block("b", { ms: 50, safe: true }),
      block("c", { ms: 50, safe: false }),
      block("d", { ms: 100, safe: true }),
      block("e", { ms: 30, safe: true }),
    ];
    const { updates } = await drain(runTools(blocks, assistantMessage(), approveAll, ctx));
    expect(updates.filter((u) => u.type === "result").map((u) => u.toolUseID)).toEqual(["a", "b", "c", "d", "e"]);
    const span = (id: string) => spans.find((s) => s.id === id)!;
    // a and b overlapped; so did d and e
    expect(span("b").start).toBeLessThan(span("a").end);
    expect(span("e").start).toBeLessThan(span("d").end);
    // c started only after the whole first batch finished, and ended before the last batch began
    expect(span("c").start).toBeGreaterThanOrEqual(Math.max(span("a").end, span("b").end));
    expect(span("d").start).toBeGreaterThanOrEqual(span("c").end);
    // b finished first but its result was held until a's
    expect(span("b").end).toBeLessThan(span("a").end);
  });

  it("caps parallelism at TOOLGATE_MAX_TOOL_USE_CONCURRENCY", async () => {
    const spans: Span[] = [];
    const ctx = testContext({ tools: [sleeper(spans)], env: { ...process.env, TOOLGATE_MAX_TOOL_USE_CONCURRENCY: "2" } });
    const blocks = ["a", "b", "c", "d", "e"].map((id) => block(id, { ms: 40, safe: true }));
    await drain(runTools(blocks, assistantMessage(), approveAll, ctx));
    expect(spans).toHaveLength(5);
    expect(maxConcurrent(spans)).toBe(2);
    // default cap is 10: 12 calls never run more than 10 at once
    const spans2: Span[] = [];
    const ctx2 = testContext({ tools: [sleeper(spans2)], env: {} });
    await drain(runTools(Array.from({ length: 12 }, (_, i) => block(`x${i}`, { ms: 60, safe: true })), assistantMessage(), approveAll, ctx2));
    expect(maxConcurrent(spans2)).toBe(10);
  });

  it("applies contextModifier only for calls that are not concurrency-safe, before the next batch", async () => {
    const spans: Span[] = [];
    const ctx = testContext({ tools: [sleeper(spans)] });
    const blocks = [
      block("a", { ms: 1, safe: true, tag: "safe-a" }),
      block("b", { ms: 1, safe: false, tag: "unsafe-b" }),
      block("c", { ms: 1, safe: false, tag: "unsafe-c" }),
      block("d", { ms: 1, safe: true, tag: "safe-d" }),
    ];
    const { context } = await drain(runTools(blocks, assistantMessage(), approveAll, ctx));
    expect(context.messages.map((m) => m.content)).toEqual(["unsafe-b", "unsafe-c"]);
  });

  it("streams progress as it happens, before earlier blocks' results", async () => {
    const slow = buildTool({
      name: "Prog",
      maxResultSizeChars: 1000,
      inputSchema: z.strictObject({ ms: z.number() }),
      description: () => "",
      prompt: () => "",
      isConcurrencySafe: () => true,
      async call(args, ctx, _c, _m, onProgress) {
        await new Promise((r) => setTimeout(r, args.ms));
        onProgress?.({ toolUseID: ctx.toolUseID!, data: args.ms });
        await new Promise((r) => setTimeout(r, 5));
        return { data: "ok" };
      },
      mapToolResultToToolResultBlockParam: (o: string, id) => ({ type: "tool_result", tool_use_id: id, content: o }),
    });
    const ctx = testContext({ tools: [slow] });
    const { updates } = await drain(
      runTools([block("slow", { ms: 120 }, "Prog"), block("fast", { ms: 10 }, "Prog")], assistantMessage(), approveAll, ctx),
    );
    expect(updates.map((u) => `${u.type}:${u.toolUseID}`)).toEqual(["progress:fast", "progress:slow", "result:slow", "result:fast"]);
  });

  it("cancels running and queued siblings when a Bash call fails in a parallel batch", async () => {
    const spans: Span[] = [];
    const fakeBash = { ...sleeper(spans), name: "Bash", cancelsSiblingsOnError: true };
    const ctx = testContext({ tools: [fakeBash], env: { TOOLGATE_MAX_TOOL_USE_CONCURRENCY: "2" } });
    const blocks = [
      block("long", { ms: 5_000, safe: true }, "Bash"),
      block("bad", { ms: 10, safe: true, fail: true, tag: "grep" }, "Bash"),
      block("queued", { ms: 10, safe: true }, "Bash"),
    ];
    const started = performance.now();
    const { message } = await runToolsToMessage(blocks, assistantMessage(), approveAll, ctx);
    expect(performance.now() - started).toBeLessThan(4_000);
    const content = message.content as Array<{ tool_use_id: string; content: string; is_error?: boolean }>;
    expect(content.map((c) => c.tool_use_id)).toEqual(["long", "bad", "queued"]);
    expect(content[1].content).toContain("grep failed");
    for (const sibling of [content[0], content[2]]) {
      expect(sibling.is_error).toBe(true);
      expect(sibling.content).toMatch(/^Cancelled: the parallel tool call Bash.* failed/);
    }
    // the session's own controller is untouched: the next message runs normally
    expect(ctx.abortController.signal.aborted).toBe(false);
  });

  it("a Bash call that is denied does not cancel its siblings", async () => {
    const spans: Span[] = [];
    const fakeBash = { ...sleeper(spans), name: "Bash", cancelsSiblingsOnError: true };
    const ctx = testContext({
      tools: [fakeBash],
      permissionDecider: async (_t, input) =>
        input.tag === "forbidden" ? { behavior: "deny", message: "denied by rule" } : { behavior: "allow" },
    });
    const { message } = await runToolsToMessage(
      [block("ok", { ms: 80, safe: true }, "Bash"), block("no", { ms: 1, safe: true, tag: "forbidden" }, "Bash"), block("ok2", { ms: 80, safe: true }, "Bash")],
      assistantMessage(),
      approveAll,
      ctx,
    );
    const content = message.content as Array<{ content: string; is_error?: boolean }>;
    expect(content[1]).toMatchObject({ is_error: true, content: "denied by rule" });
    expect(content[0]).toMatchObject({ content: "slept " });
    expect(content[2]).toMatchObject({ content: "slept " });
    expect(spans).toHaveLength(2);
  });

  it("a failing non-Bash tool does not cancel its siblings", async () => {
    const spans: Span[] = [];
    const ctx = testContext({ tools: [sleeper(spans)] });
    const { message } = await runToolsToMessage(
      [block("a", { ms: 80, safe: true }), block("b", { ms: 5, safe: true, fail: true })],
      assistantMessage(),
      approveAll,
      ctx,
    );
    const content = message.content as Array<{ content: string; is_error?: boolean }>;
    expect(content[0]).toMatchObject({ content: "slept " });
    expect(content[1].is_error).toBe(true);
  });

  it("gives every tool_use exactly one tool_result, whatever each one does", async () => {
    const spans: Span[] = [];
    const ctx = testContext({ tools: [sleeper(spans)] });
    const blocks = [
      block("ok", { ms: 1, safe: true }),
      block("bad-input", { nope: true }),
      block("unknown", {}, "Nope"),
      block("throws", { ms: 1, safe: false, fail: true }),
      block("ok2", { ms: 1, safe: true }),
    ];
    const { message } = await runToolsToMessage(blocks, assistantMessage(), approveAll, ctx);
    const content = message.content as Array<{ type: string; tool_use_id: string; is_error?: boolean }>;
    expect(content.map((c) => [c.type, c.tool_use_id, c.is_error ?? false])).toEqual([
      ["tool_result", "ok", false],
      ["tool_result", "bad-input", true],
      ["tool_result", "unknown", true],
      ["tool_result", "throws", true],
      ["tool_result", "ok2", false],
    ]);
  });
});

describe("large results", () => {
  function bigTool(limit = 100_000) {
    return buildTool({
      name: "Big",
      maxResultSizeChars: limit,
      inputSchema: z.strictObject({ size: z.number() }),
      description: () => "",
      prompt: () => "",
      isConcurrencySafe: () => true,
      call: async ({ size }) => ({ data: Array.from({ length: Math.ceil(size / 9) }, (_, i) => `${String(i).padStart(8, "0")}\n`).join("").slice(0, size) }),
      mapToolResultToToolResultBlockParam: (o: string, id) => ({ type: "tool_result", tool_use_id: id, content: o }),
    });
  }

  it("persists a result above min(maxResultSizeChars, 50 000) with a preview cut at a line end", async () => {
    const ctx = testContext({ tools: [bigTool()] });
    const { message } = await runToolsToMessage(
      [block("small", { size: 50_000 }, "Big"), block("large", { size: 50_001 }, "Big")],
      assistantMessage(),
      approveAll,
      ctx,
    );
    const [small, large] = message.content as Array<{ content: string }>;
    expect(small.content).toHaveLength(50_000);
    expect(large.content.startsWith("<persisted-output>")).toBe(true);
    const savedPath = /saved at: (.+\.txt)/.exec(large.content)![1];
    expect(savedPath.startsWith(ctx.paths.toolResultsDir)).toBe(true);
    expect(fs.readFileSync(savedPath, "utf8")).toHaveLength(50_001);
    const preview = large.content.split("\n").slice(6, -2);
    expect(preview.join("\n").length).toBeLessThanOrEqual(2_000);
    expect(preview.every((line) => /^\d{8}$/.test(line))).toBe(true);
  });

  it("honours a tool limit below 50 000, and never persists tools with an infinite limit", async () => {
    const ctx = testContext({ tools: [bigTool(1_000), { ...bigTool(Infinity), name: "Reader" }] });
    const { message } = await runToolsToMessage(
      [block("a", { size: 1_001 }, "Big"), block("b", { size: 120_000 }, "Reader")],
      assistantMessage(),
      approveAll,
      ctx,
    );
    const [a, b] = message.content as Array<{ content: string }>;
    expect(a.content.startsWith("<persisted-output>")).toBe(true);
    expect(b.content).toHaveLength(120_000);
  });

  it("persists the text of a large result that also carries an image, keeping the image inline", async () => {
    const image = { type: "image" as const, source: { type: "base64" as const, media_type: "image/png", data: "iVBORw0KGgo=" } };
    const mixed = buildTool({
      name: "Shot",
      maxResultSizeChars: 100_000,
      inputSchema: z.strictObject({}),
      description: () => "",
      prompt: () => "",
      call: async () => ({ data: "line\n".repeat(20_000) }),
      mapToolResultToToolResultBlockParam: (text: string, id) => ({ type: "tool_result", tool_use_id: id, content: [{ type: "text", text }, image] }),
    });
    const ctx = testContext({ tools: [mixed] });
    const { message } = await runToolsToMessage([block("s", {}, "Shot")], assistantMessage(), approveAll, ctx);
    const content = (message.content as Array<{ content: Array<{ type: string; text?: string }> }>)[0].content;
    expect(content.map((b) => b.type)).toEqual(["text", "image"]);
    expect(content[0].text!.startsWith("<persisted-output>")).toBe(true);
    const saved = /saved at: (.+\.txt)/.exec(content[0].text!)![1];
    expect(fs.readFileSync(saved, "utf8")).toHaveLength(100_000);
  });

  it("keeps one message's results under 200 000 chars by persisting the largest, and replays the decision", async () => {
    const ctx = testContext({ tools: [bigTool()] });
    const sizes = [45_000, 48_000, 30_000, 49_000, 47_000, 40_000];
    const blocks = sizes.map((size, i) => block(`r${i}`, { size }, "Big"));
    const first = await runToolsToMessage(blocks, assistantMessage(), approveAll, ctx);
    const content = first.message.content as Array<{ tool_use_id: string; content: string }>;
    const total = content.reduce((n, c) => n + c.content.length, 0);
    expect(total).toBeLessThanOrEqual(200_000);
    const persisted = content.filter((c) => c.content.startsWith("<persisted-output>")).map((c) => c.tool_use_id);
    // 259 000 chars: persisting the two largest (49 000 and 48 000) brings it under budget
    expect(persisted.sort()).toEqual(["r1", "r3"]);
    // the same results judged again (a replayed conversation) come out byte-identical
    const { applyToolResultBudget } = await import("../../src/core/results.js");
    const replay = await applyToolResultBudget(
      sizes.map((size, i) => ({ block: { type: "tool_result" as const, tool_use_id: `r${i}`, content: "x".repeat(size) } })),
      ctx,
    );
    expect(replay.map((b) => b.content)).toEqual(content.map((c) => (c.content.startsWith("<persisted") ? c.content : "x".repeat(c.content.length))));
  });
});
