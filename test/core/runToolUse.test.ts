import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../../src/core/buildTool.js";
import { runToolUse, INTERRUPT_MESSAGE, type ToolResultUpdate, type ToolUseUpdate } from "../../src/core/pipeline/index.js";
import type { AnyTool, CanUseToolFn, ToolUseContext, HookRunner } from "../../src/core/Tool.js";
import type { ToolUseBlock } from "../../src/core/messages.js";
import { approveAll, assistantMessage, rejectAll, testContext } from "../helpers.js";

const emptyOutcome = () => ({ additionalContext: [] as string[], notices: [] });

/** A tool that records every stage it takes part in. */
function recordingTool(stages: string[], overrides: Partial<Parameters<typeof buildTool>[0]> = {}) {
  return buildTool({
    name: "Recorder",
    aliases: ["OldRecorder"],
    maxResultSizeChars: 100_000,
    inputSchema: () => z.strictObject({ path: z.string(), count: z.number().optional(), flag: z.boolean().optional() }),
    description: () => "records stages",
    prompt: () => "records stages",
    backfillObservableInput(input: { path: string }) {
      stages.push("backfill");
      input.path = `/abs/${input.path}`;
    },
    async validateInput(input: { path: string }) {
      stages.push(`validateInput:${input.path}`);
      return input.path === "invalid" ? { result: false, message: "path must not be 'invalid'", errorCode: 7 } : { result: true };
    },
    async checkPermissions(input: { path: string }) {
      stages.push(`checkPermissions:${input.path}`);
      return { behavior: "allow" as const };
    },
    async call(args: { path: string; count?: number; flag?: boolean }, context: ToolUseContext, _c: CanUseToolFn, _m, onProgress) {
      stages.push(`call:${args.path}`);
      onProgress?.({ toolUseID: context.toolUseID!, data: { step: 1 } });
      return { data: { seen: args } };
    },
    mapToolResultToToolResultBlockParam: (output: unknown, id: string) => ({
      type: "tool_result" as const,
      tool_use_id: id,
      content: JSON.stringify(output),
    }),
    ...overrides,
  } as Parameters<typeof buildTool>[0]);
}

function recordingHooks(stages: string[], overrides: Partial<HookRunner> = {}): HookRunner {
  return {
    preToolUse: async ({ input }) => {
      stages.push(`preToolUse:${input.path}`);
      return emptyOutcome();
    },
    postToolUse: async ({ input }) => {
      stages.push(`postToolUse:${input.path}`);
      return emptyOutcome();
    },
    postToolUseFailure: async ({ error }) => {
      stages.push(`postToolUseFailure:${error}`);
      return emptyOutcome();
    },
    permissionRequest: async () => {
      stages.push("permissionRequest");
      return emptyOutcome();
    },
    ...overrides,
  };
}

const use = (input: unknown, name = "Recorder", id = "toolu_1"): ToolUseBlock => ({ type: "tool_use", id, name, input });

async function collect(gen: AsyncGenerator<ToolUseUpdate, void>): Promise<{ updates: ToolUseUpdate[]; results: ToolResultUpdate[] }> {
  const updates: ToolUseUpdate[] = [];
  for await (const u of gen) updates.push(u);
  return { updates, results: updates.filter((u): u is ToolResultUpdate => u.type === "result") };
}

async function runOne(tool: AnyTool, input: unknown, ctx?: ToolUseContext, canUseTool: CanUseToolFn = approveAll, name?: string) {
  const context = ctx ?? testContext({ tools: [tool] });
  const { updates, results } = await collect(runToolUse(use(input, name ?? tool.name), assistantMessage(), canUseTool, context));
  expect(results).toHaveLength(1);
  return { updates, result: results[0], block: results[0].block };
}

describe("runToolUse pipeline", () => {
  it("runs every stage in the specified order, hooks and permissions seeing the backfilled clone", async () => {
    const stages: string[] = [];
    const tool = recordingTool(stages);
    const ctx = testContext({
      tools: [tool],
      hookRunner: recordingHooks(stages),
      permissionDecider: async (t, input, context) => {
        stages.push(`decide:${input.path}`);
        const r = await t.checkPermissions(input, context);
        return r.behavior === "passthrough" ? { ...r, behavior: "ask" } : r;
      },
    });
    const { updates, block } = await runOne(tool, { path: "a.txt" }, ctx);
    expect(stages).toEqual([
      "backfill",
      "validateInput:a.txt",
      "preToolUse:/abs/a.txt",
      "decide:/abs/a.txt",
      "checkPermissions:/abs/a.txt",
      "call:a.txt",
      "postToolUse:/abs/a.txt",
    ]);
    expect(updates.map((u) => u.type)).toEqual(["progress", "result"]);
    expect(block.is_error).toBeUndefined();
    // the result echoes the path as the model wrote it
    expect(JSON.parse(block.content as string)).toEqual({ seen: { path: "a.txt" } });
  });

  it("resolves aliases, and legacy aliases of built-ins that are not in the pool", async () => {
    const stages: string[] = [];
    const tool = recordingTool(stages);
    const { block } = await runOne(tool, { path: "x" }, undefined, approveAll, "OldRecorder");
    expect(block.is_error).toBeUndefined();
    const ctx = testContext({ tools: [], builtinTools: [tool] });
    const legacy = await runOne(tool, { path: "x" }, ctx, approveAll, "OldRecorder");
    expect(legacy.block.is_error).toBeUndefined();
    const notByPrimaryName = await runOne(tool, { path: "x" }, ctx, approveAll, "Recorder");
    expect(notByPrimaryName.block.is_error).toBe(true);
  });

  it("answers an unknown tool with the no-such-tool error and runs nothing but the PostToolUseFailure hooks", async () => {
    const stages: string[] = [];
    const ctx = testContext({ tools: [recordingTool(stages)], hookRunner: recordingHooks(stages) });
    const { block, result } = await runOne(recordingTool(stages), {}, ctx, approveAll, "Missing");
    expect(block).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: "<tool_use_error>Error: No such tool available: Missing</tool_use_error>",
      is_error: true,
    });
    expect(result.outcome).toBe("unknown_tool");
    expect(stages).toEqual(["postToolUseFailure:No such tool available: Missing"]);
  });

  it("refuses to start when the signal is already aborted", async () => {
    const stages: string[] = [];
    const tool = recordingTool(stages);
    const ctx = testContext({ tools: [tool] });
    ctx.abortController.abort();
    const { block, result } = await runOne(tool, { path: "a" }, ctx);
    expect(block.is_error).toBe(true);
    expect(block.content).toBe(INTERRUPT_MESSAGE);
    expect(result.outcome).toBe("cancelled");
    expect(stages).toEqual([]);
  });

  it("reports missing, unexpected and wrong-typed parameters one line each with their paths", async () => {
    const stages: string[] = [];
    const tool = recordingTool(stages);
    const { block } = await runOne(tool, { count: [1], flag: "maybe", extra: 1 });
    const text = block.content as string;
    expect(block.is_error).toBe(true);
    expect(text.startsWith("<tool_use_error>InputValidationError: Recorder")).toBe(true);
    const lines = text.replace("</tool_use_error>", "").split("\n").filter((l) => l.startsWith("- "));
    expect(lines).toEqual([
      "- path: required parameter is missing (expected string)",
      "- count: wrong type, expected number but got array",
      "- flag: wrong type, expected boolean but got string",
      "- extra: unexpected parameter, remove it",
    ]);
    expect(stages).toEqual([]);
  });

  it("names nested parameter paths", async () => {
    const tool = buildTool({
      name: "Nested",
      maxResultSizeChars: 1000,
      inputSchema: z.strictObject({ edits: z.array(z.strictObject({ old_string: z.string() })) }),
      description: () => "",
      prompt: () => "",
      call: async () => ({ data: "ok" }),
      mapToolResultToToolResultBlockParam: (o: string, id: string) => ({ type: "tool_result", tool_use_id: id, content: o }),
    });
    const { block } = await runOne(tool, { edits: [{ old_string: "a" }, { old_string: 3 }] });
    expect(block.content).toContain("- edits[1].old_string: wrong type, expected string but got number");
  });

  it("coerces numbers, booleans and JSON arrays sent as strings", async () => {
    const stages: string[] = [];
    const tool = recordingTool(stages);
    const { block } = await runOne(tool, { path: "p", count: "10", flag: "true" });
    expect(block.is_error).toBeUndefined();
    expect(JSON.parse(block.content as string)).toEqual({ seen: { path: "p", count: 10, flag: true } });
    const notANumber = await runOne(tool, { path: "p", count: "ten" });
    expect(notANumber.block.content).toContain("- count: wrong type, expected number but got string");
  });

  it("rejects a non-object input of any JSON type with a clear error", async () => {
    const tool = recordingTool([]);
    for (const input of [null, "text", 42, [1, 2], true, undefined]) {
      const { block } = await runOne(tool, input);
      expect(block.is_error).toBe(true);
      expect(block.content).toContain("InputValidationError");
      expect(block.content).toMatch(/\(input\): (wrong type, expected object|required parameter is missing)/);
    }
  });

  it("hints at ToolSearch select: for a deferred tool whose schema was never loaded", async () => {
    const tool = recordingTool([], { shouldDefer: true });
    const ctx = testContext({ tools: [tool] });
    const { block } = await runOne(tool, { wrong: 1 }, ctx);
    expect(block.content).toContain('"select:Recorder"');
    ctx.setAppState((s) => ({ ...s, loadedDeferredTools: new Set(["Recorder"]) }));
    const loaded = await runOne(tool, { wrong: 1 }, ctx);
    expect(loaded.block.content).not.toContain("select:");
  });

  it("turns a validateInput failure into a tool_use_error without calling the tool", async () => {
    const stages: string[] = [];
    const tool = recordingTool(stages);
    const { block, result } = await runOne(tool, { path: "invalid" });
    expect(block).toMatchObject({ is_error: true, content: "<tool_use_error>path must not be 'invalid'</tool_use_error>" });
    expect(result.errorLabel).toBe("validation:7");
    expect(stages).not.toContain("call:invalid");
  });

  it("turns a throwing call into an is_error result and runs PostToolUseFailure hooks", async () => {
    const stages: string[] = [];
    const tool = recordingTool(stages, {
      call: async () => {
        const err = new Error("disk on fire") as NodeJS.ErrnoException;
        err.code = "EIO";
        throw err;
      },
    });
    const ctx = testContext({ tools: [tool], hookRunner: recordingHooks(stages) });
    const { block, result } = await runOne(tool, { path: "a" }, ctx);
    expect(block).toMatchObject({ is_error: true, content: "<tool_use_error>Error: disk on fire</tool_use_error>" });
    expect(result.errorLabel).toBe("Error:EIO");
    expect(stages).toContain("postToolUseFailure:disk on fire");
    expect(stages).not.toContain("postToolUse:/abs/a");
  });

  it("keeps the head and tail of a very long error message", async () => {
    const long = `HEAD${"x".repeat(50_000)}TAIL`;
    const tool = recordingTool([], { call: async () => Promise.reject(new Error(long)) });
    const { block } = await runOne(tool, { path: "a" });
    const text = block.content as string;
    expect(text).toContain("HEAD");
    expect(text).toContain("TAIL");
    expect(text).toMatch(/\[\d+ characters truncated\]/);
    expect(text.length).toBeLessThan(11_000);
  });

  it("denies with the decider's reason, unwrapped, and does not call the tool", async () => {
    const stages: string[] = [];
    const tool = recordingTool(stages);
    const ctx = testContext({
      tools: [tool],
      permissionDecider: async () => ({ behavior: "deny", message: "Denied by rule Recorder(/abs/**) in settings.json" }),
    });
    const { block, result } = await runOne(tool, { path: "a" }, ctx);
    expect(block).toMatchObject({ is_error: true, content: "Denied by rule Recorder(/abs/**) in settings.json" });
    expect(result.outcome).toBe("denied");
    expect(stages.some((s) => s.startsWith("call"))).toBe(false);
  });

  it("asks through PermissionRequest hooks then canUseTool, and honours the answer", async () => {
    const stages: string[] = [];
    const tool = recordingTool(stages, {
      checkPermissions: async () => ({ behavior: "passthrough" as const, message: "needs approval" }),
    });
    const ctx = testContext({ tools: [tool], hookRunner: recordingHooks(stages) });
    const asked: string[] = [];
    const recordingCanUse: CanUseToolFn = async (_t, _i, _c, _m, _id, decision) => {
      asked.push(decision.behavior);
      return { behavior: "deny", message: "user said no" };
    };
    const denied = await runOne(tool, { path: "a" }, ctx, recordingCanUse);
    expect(asked).toEqual(["ask"]);
    expect(stages).toContain("permissionRequest");
    expect(denied.block).toMatchObject({ is_error: true, content: "user said no" });
    const approved = await runOne(tool, { path: "a" }, ctx, approveAll);
    expect(approved.block.is_error).toBeUndefined();
    const rejected = await runOne(tool, { path: "a" }, ctx, rejectAll);
    expect(rejected.block.content).toBe("The user rejected this call.");
  });

  it("re-validates input rewritten by a hook or by the permission step", async () => {
    const stages: string[] = [];
    const tool = recordingTool(stages);
    const badHook = testContext({
      tools: [tool],
      hookRunner: recordingHooks(stages, { preToolUse: async () => ({ ...emptyOutcome(), updatedInput: { path: 5 } }) }),
    });
    const bad = await runOne(tool, { path: "a" }, badHook);
    expect(bad.block.is_error).toBe(true);
    expect(bad.block.content).toContain("A PreToolUse hook rewrote the input of Recorder into an invalid one");
    const goodHook = testContext({
      tools: [tool],
      hookRunner: recordingHooks(stages, { preToolUse: async () => ({ ...emptyOutcome(), updatedInput: { path: "rewritten" } }) }),
    });
    const good = await runOne(tool, { path: "a" }, goodHook);
    expect(JSON.parse(good.block.content as string)).toEqual({ seen: { path: "rewritten" } });
    const hookToInvalid = testContext({
      tools: [tool],
      hookRunner: recordingHooks(stages, { preToolUse: async () => ({ ...emptyOutcome(), updatedInput: { path: "invalid" } }) }),
    });
    expect((await runOne(tool, { path: "a" }, hookToInvalid)).block.content).toContain("must not be 'invalid'");
    const sdk: CanUseToolFn = async () => ({ behavior: "allow", updatedInput: { path: "from-sdk" } });
    const asking = recordingTool(stages, { checkPermissions: async () => ({ behavior: "ask" as const, message: "?" }) });
    const fromSdk = await runOne(asking, { path: "a" }, undefined, sdk);
    expect(JSON.parse(fromSdk.block.content as string)).toEqual({ seen: { path: "from-sdk" } });
  });

  it("a hook ask forces the question even when the tool itself has no objection", async () => {
    const stages: string[] = [];
    const tool = recordingTool(stages);
    const ctx = testContext({
      tools: [tool],
      hookRunner: recordingHooks(stages, {
        preToolUse: async () => ({ ...emptyOutcome(), permissionDecision: { behavior: "ask", reason: "confirm writes" } }),
        permissionRequest: async () => ({ additionalContext: ["approved by policy bot"], notices: [] }),
      }),
    });
    const asked: string[] = [];
    const canUse: CanUseToolFn = async (_t, _i, _c, _m, _id, decision) => {
      asked.push(decision.behavior === "ask" ? decision.message : decision.behavior);
      return { behavior: "allow", updatedInput: { path: "invalid" } };
    };
    const { block } = await runOne(tool, { path: "a" }, ctx, canUse);
    expect(asked).toEqual(["confirm writes"]);
    // the approved input is re-validated: validateInput refuses "invalid"
    expect(block.is_error).toBe(true);
    expect(JSON.stringify(block.content)).toContain("path must not be 'invalid'");
    expect(JSON.stringify(block.content)).toContain("approved by policy bot");
    expect(stages.some((s) => s.startsWith("call"))).toBe(false);
  });

  it("blocks on a hook deny and on continue:false, and adds hook context to the result", async () => {
    const stages: string[] = [];
    const tool = recordingTool(stages);
    const deny = testContext({
      tools: [tool],
      hookRunner: recordingHooks(stages, {
        preToolUse: async () => ({ ...emptyOutcome(), permissionDecision: { behavior: "deny", reason: "no writes on Friday" } }),
      }),
    });
    const denied = await runOne(tool, { path: "a" }, deny);
    expect(denied.block).toMatchObject({ is_error: true });
    expect(denied.block.content).toContain("no writes on Friday");
    const stop = testContext({
      tools: [tool],
      hookRunner: recordingHooks(stages, {
        preToolUse: async () => ({ ...emptyOutcome(), preventContinuation: { reason: "budget exhausted" } }),
      }),
    });
    const stopped = await runOne(tool, { path: "a" }, stop);
    expect(stopped.result.preventContinuation).toEqual({ reason: "budget exhausted" });
    expect(stopped.block.is_error).toBe(true);
    expect(stages.some((s) => s.startsWith("call"))).toBe(false);
    const withContext = testContext({
      tools: [tool],
      hookRunner: recordingHooks(stages, {
        postToolUse: async () => ({ additionalContext: ["lint: 2 warnings"], notices: [], blockingError: "tests failed" }),
      }),
    });
    const extra = await runOne(tool, { path: "a" }, withContext);
    const content = extra.block.content as Array<{ type: string; text: string }>;
    expect(content.map((b) => b.text).join("\n")).toContain("lint: 2 warnings");
    expect(content.map((b) => b.text).join("\n")).toContain("tests failed");
  });

  it("yields progress before the result, while the call is still running", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const tool = recordingTool([], {
      async call(_args: unknown, ctx: ToolUseContext, _c: unknown, _m: unknown, onProgress?: (p: { toolUseID: string; data: unknown }) => void) {
        onProgress?.({ toolUseID: ctx.toolUseID!, data: "started" });
        await gate;
        return { data: "done" };
      },
    });
    const ctx = testContext({ tools: [tool] });
    const gen = runToolUse(use({ path: "a" }), assistantMessage(), approveAll, ctx);
    const first = await gen.next();
    expect(first.value).toEqual({ type: "progress", toolUseID: "toolu_1", data: "started" });
    release();
    const second = await gen.next();
    expect((second.value as ToolResultUpdate).type).toBe("result");
  });

  it("returns a cancellation result once an aborted call stops, or after the grace period", async () => {
    const tool = recordingTool([], { call: () => new Promise(() => {}) });
    const ctx = testContext({ tools: [tool] });
    setTimeout(() => ctx.abortController.abort(), 20);
    const { block, result } = await runOne(tool, { path: "a" }, ctx);
    expect(block).toMatchObject({ is_error: true, content: INTERRUPT_MESSAGE });
    expect(result.outcome).toBe("cancelled");
  });

  it("produces exactly one result whatever part of the runtime throws", async () => {
    const boom = () => {
      throw new Error("kaboom");
    };
    const stages: string[] = [];
    const cases: Array<{ label: string; tool: AnyTool; ctx?: Partial<Parameters<typeof testContext>[0]>; canUse?: CanUseToolFn }> = [
      { label: "validateInput throws", tool: recordingTool(stages, { validateInput: boom }) },
      { label: "checkPermissions throws", tool: recordingTool(stages, { checkPermissions: boom }) },
      { label: "backfill throws", tool: recordingTool(stages, { backfillObservableInput: boom }) },
      { label: "mapping throws", tool: recordingTool(stages, { mapToolResultToToolResultBlockParam: boom }) },
      { label: "call throws synchronously", tool: recordingTool(stages, { call: boom }) },
      { label: "schema getter throws", tool: recordingTool(stages, { inputSchema: boom }) },
      { label: "hook runner throws", tool: recordingTool(stages), ctx: { hookRunner: recordingHooks(stages, { preToolUse: boom }) } },
      { label: "post hook throws", tool: recordingTool(stages), ctx: { hookRunner: recordingHooks(stages, { postToolUse: boom }) } },
      { label: "decider throws", tool: recordingTool(stages), ctx: { permissionDecider: boom } },
      {
        label: "canUseTool throws",
        tool: recordingTool(stages, { checkPermissions: async () => ({ behavior: "ask" as const, message: "?" }) }),
        canUse: boom as unknown as CanUseToolFn,
      },
      { label: "mapping returns empty", tool: recordingTool(stages, { mapToolResultToToolResultBlockParam: (_o: unknown, id: string) => ({ type: "tool_result", tool_use_id: id, content: "" }) }) },
    ];
    for (const c of cases) {
      const ctx = testContext({ tools: [c.tool], ...c.ctx });
      const { results } = await collect(runToolUse(use({ path: "a" }), assistantMessage(), c.canUse ?? approveAll, ctx));
      expect(results, c.label).toHaveLength(1);
      expect(results[0].block.tool_use_id, c.label).toBe("toolu_1");
      if (c.label === "mapping returns empty") {
        expect(results[0].block.content).toBe("(Recorder completed with no output)");
      } else {
        expect(results[0].block.is_error, c.label).toBe(true);
        expect(String(results[0].block.content), c.label).toContain("kaboom");
      }
    }
  });
});
