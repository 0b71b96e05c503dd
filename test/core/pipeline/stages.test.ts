import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../../../src/core/buildTool.js";
import {
  STAGES_BEFORE_CALL,
  backfillInput,
  callTool,
  checkNotAborted,
  createCallState,
  resolvePermission,
  findTool,
  mapResult,
  parseInput,
  runPostToolUseHooks,
  runPreToolUseHooks,
  runToolUse,
  validateInput,
  type ResolvedCall,
  type ToolResultUpdate,
  type ToolStatusUpdate,
} from "../../../src/core/pipeline/index.js";
import type { AnyTool, CanUseToolFn, ToolUseContext, HookRunner } from "../../../src/core/Tool.js";
import { approveAll, assistantMessage, rejectAll, testContext } from "../../helpers.js";

const noOutcome = () => ({ additionalContext: [] as string[], notices: [] });

function hooks(log: string[], overrides: Partial<HookRunner> = {}): HookRunner {
  return {
    preToolUse: async () => noOutcome(),
    postToolUse: async () => {
      log.push("PostToolUse");
      return noOutcome();
    },
    postToolUseFailure: async ({ error, isInterrupt }) => {
      log.push(`PostToolUseFailure:${isInterrupt}:${error}`);
      return noOutcome();
    },
    permissionRequest: async () => noOutcome(),
    permissionDenied: async ({ reason }) => {
      log.push(`PermissionDenied:${reason}`);
      return noOutcome();
    },
    ...overrides,
  };
}

const echo = (overrides: Record<string, unknown> = {}): AnyTool =>
  buildTool({
    name: "Echo",
    aliases: ["OldEcho"],
    maxResultSizeChars: 100_000,
    inputSchema: z.strictObject({ text: z.string(), times: z.coerce.number().optional() }),
    description: () => "echo",
    prompt: () => "echo",
    backfillObservableInput(input: { text: string }) {
      input.text = `seen:${input.text}`;
    },
    async validateInput(input: { text: string }) {
      return input.text === "bad" ? { result: false, message: "text must not be 'bad'", errorCode: 3 } : { result: true };
    },
    async call(args: { text: string }, context: ToolUseContext, _c: CanUseToolFn, _m: unknown, onProgress?: (p: { toolUseID: string; data: unknown }) => void) {
      onProgress?.({ toolUseID: context.toolUseID!, data: "halfway" });
      if (args.text === "throw") throw new Error("echo broke");
      return { data: args.text };
    },
    mapToolResultToToolResultBlockParam: (out: string, id: string) => ({ type: "tool_result" as const, tool_use_id: id, content: out }),
    ...overrides,
  } as Parameters<typeof buildTool>[0]);

function stateFor(input: unknown, options: { name?: string; tool?: AnyTool; hookRunner?: HookRunner; canUse?: CanUseToolFn } = {}) {
  const tool = options.tool ?? echo();
  const context = testContext({ tools: [tool], hookRunner: options.hookRunner });
  return createCallState({ type: "tool_use", id: "toolu_s", name: options.name ?? "Echo", input }, assistantMessage(), options.canUse ?? approveAll, context);
}

async function resolved(input: unknown, options: Parameters<typeof stateFor>[1] = {}): Promise<ResolvedCall> {
  const found = await findTool(stateFor(input, options));
  if ("type" in found) throw new Error("tool not found");
  return found;
}

describe("pipeline stages, each alone", () => {
  it("lists the stages between find and call in the spec's order", () => {
    expect(STAGES_BEFORE_CALL.map((s) => s.name)).toEqual(["abort check", "parse", "backfill", "validate", "PreToolUse hooks", "permission"]);
  });

  it("find: resolves a name or legacy alias; an unknown name ends the call with a did-you-mean and reaches the hooks", async () => {
    expect(((await findTool(stateFor({}, { name: "OldEcho" }))) as ResolvedCall).tool.name).toBe("Echo");
    const log: string[] = [];
    const unknown = (await findTool(stateFor({ text: "x" }, { name: "Ecko", hookRunner: hooks(log) }))) as ToolResultUpdate;
    expect(unknown.outcome).toBe("unknown_tool");
    expect(unknown.block.content).toBe("<tool_use_error>Error: No such tool available: Ecko. Did you mean Echo?</tool_use_error>");
    expect(log).toEqual(["PostToolUseFailure:false:No such tool available: Ecko. Did you mean Echo?"]);
    const disabled = await findTool(stateFor({}, { tool: echo({ isEnabled: () => false }) }));
    expect((disabled as ToolResultUpdate).outcome).toBe("unknown_tool");
  });

  it("abort check: passes a live call, cancels an aborted one and tells the hooks it was an interrupt", async () => {
    const log: string[] = [];
    const call = await resolved({ text: "x" }, { hookRunner: hooks(log) });
    expect(await checkNotAborted(call)).toBeUndefined();
    call.context.abortController.abort();
    const result = await checkNotAborted(call);
    expect(result?.outcome).toBe("cancelled");
    expect(log[0]).toMatch(/^PostToolUseFailure:true:The user interrupted/);
  });

  it("parse: keeps the schema's output (coerced) as the call input, or refuses with what to fix", async () => {
    const call = await resolved({ text: "x", times: "3" });
    expect(await parseInput(call)).toBeUndefined();
    expect(call.input).toEqual({ text: "x", times: 3 });
    const bad = await resolved({ txt: "x" });
    const refusal = await parseInput(bad);
    expect(refusal?.outcome).toBe("invalid_input");
    expect(String(refusal?.block.content)).toContain("text");
  });

  it("backfill: hooks and rules see a clone; the tool still gets the model's input", async () => {
    const call = await resolved({ text: "x" });
    await parseInput(call);
    await backfillInput(call);
    expect(call.observable).toEqual({ text: "seen:x" });
    expect(call.input).toEqual({ text: "x" });
  });

  it("validate: the tool's own refusal carries its error code as a label", async () => {
    const call = await resolved({ text: "bad" });
    await parseInput(call);
    const refusal = await validateInput(call);
    expect(refusal).toMatchObject({ outcome: "invalid_input", errorLabel: "validation:3" });
    expect(refusal?.block.content).toBe("<tool_use_error>text must not be 'bad'</tool_use_error>");
  });

  it("PreToolUse hooks: a rewrite is parsed and validated again; a deny ends the call as denied", async () => {
    const rewrite = await resolved({ text: "x" }, { hookRunner: hooks([], { preToolUse: async () => ({ ...noOutcome(), updatedInput: { text: "bad" } }) }) });
    await parseInput(rewrite);
    await backfillInput(rewrite);
    expect((await runPreToolUseHooks(rewrite))?.outcome).toBe("invalid_input");

    const log: string[] = [];
    const denied = await resolved({ text: "x" }, {
      hookRunner: hooks(log, { preToolUse: async () => ({ ...noOutcome(), permissionDecision: { behavior: "deny", reason: "not today" } }) }),
    });
    await parseInput(denied);
    await backfillInput(denied);
    const result = await runPreToolUseHooks(denied);
    expect(result?.outcome).toBe("denied");
    expect(result?.block.content).toBe("A PreToolUse hook blocked this Echo call: not today");
    expect(log).toEqual(["PermissionDenied:A PreToolUse hook blocked this Echo call: not today"]);
  });

  it("permission: an ask announces awaiting_permission with the decision, then canUseTool decides", async () => {
    const asking = echo({ checkPermissions: async () => ({ behavior: "ask", message: "Echo wants to shout." }) });
    const seen: ToolStatusUpdate[] = [];
    const call = await resolved({ text: "x" }, { tool: asking, canUse: rejectAll });
    call.context.toolStatus.subscribe((u) => seen.push(u));
    await parseInput(call);
    await backfillInput(call);
    const result = await resolvePermission(call);
    expect(result).toMatchObject({ outcome: "denied" });
    expect(result?.block.content).toBe("The user rejected this call.");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ status: "awaiting_permission", explanation: "Echo wants to shout.", decision: { behavior: "ask" } });
  });

  it("call, then post hooks, then map: progress streams, a throw becomes a tool_error that reaches PostToolUseFailure", async () => {
    const log: string[] = [];
    const ok = await resolved({ text: "hi" }, { hookRunner: hooks(log) });
    await parseInput(ok);
    await backfillInput(ok);
    const progress = [];
    for await (const p of callTool(ok)) progress.push(p);
    expect(progress).toEqual([{ type: "progress", toolUseID: "toolu_s", data: "halfway" }]);
    expect(await runPostToolUseHooks(ok)).toBeUndefined();
    expect(await mapResult(ok)).toMatchObject({ outcome: "success", output: "hi", block: { content: "hi" } });
    expect(log).toEqual(["PostToolUse"]);

    const broken = await resolved({ text: "throw" }, { hookRunner: hooks(log) });
    await parseInput(broken);
    for await (const _ of callTool(broken));
    const failure = await runPostToolUseHooks(broken);
    expect(failure).toMatchObject({ outcome: "tool_error" });
    expect(failure?.block.content).toBe("<tool_use_error>Error: echo broke</tool_use_error>");
    expect(log.at(-1)).toBe("PostToolUseFailure:false:echo broke");
  });
});

describe("status events", () => {
  async function statuses(tool: AnyTool, input: unknown, canUse: CanUseToolFn = approveAll, name = tool.name) {
    const context = testContext({ tools: [tool] });
    const seen: ToolStatusUpdate[] = [];
    const inProgressDuringCall: boolean[] = [];
    context.toolStatus.subscribe((u) => {
      seen.push(u);
      if (u.status === "running") inProgressDuringCall.push(context.getInProgressToolUseIDs().has(u.toolUseID));
    });
    const updates = [];
    for await (const u of runToolUse({ type: "tool_use", id: "t1", name, input }, assistantMessage(), canUse, context)) updates.push(u);
    return { seen, updates, context, inProgressDuringCall };
  }

  it("a call that runs: validating, running, done with its outcome and duration; in progress until done", async () => {
    const { seen, context, inProgressDuringCall } = await statuses(echo(), { text: "x" });
    expect(seen.map((s) => s.status)).toEqual(["validating", "running", "done"]);
    expect(seen[2]).toMatchObject({ toolUseID: "t1", toolName: "Echo", outcome: "success" });
    expect(seen[2].durationMs).toBeGreaterThanOrEqual(0);
    expect(inProgressDuringCall).toEqual([true]);
    expect(context.getInProgressToolUseIDs().size).toBe(0);
  });

  it("an asked call passes through awaiting_permission; refused, invalid and unknown calls go straight to done", async () => {
    const asking = echo({ checkPermissions: async () => ({ behavior: "passthrough", message: "" }) });
    expect((await statuses(asking, { text: "x" })).seen.map((s) => s.status)).toEqual(["validating", "awaiting_permission", "running", "done"]);
    const rejected = await statuses(asking, { text: "x" }, rejectAll);
    expect(rejected.seen.map((s) => [s.status, s.outcome])).toEqual([["validating", undefined], ["awaiting_permission", undefined], ["done", "denied"]]);
    expect((await statuses(echo(), { nope: 1 })).seen.map((s) => [s.status, s.outcome])).toEqual([["validating", undefined], ["done", "invalid_input"]]);
    expect((await statuses(echo(), {}, approveAll, "Nope")).seen.map((s) => [s.status, s.toolName, s.outcome])).toEqual([
      ["validating", "Nope", undefined],
      ["done", "Nope", "unknown_tool"],
    ]);
  });

  it("done comes before the result is handed out, and a listener that throws changes nothing", async () => {
    const context = testContext({ tools: [echo()] });
    const order: string[] = [];
    context.toolStatus.subscribe(() => {
      throw new Error("bad listener");
    });
    context.toolStatus.subscribe((u) => order.push(`status:${u.status}`));
    for await (const u of runToolUse({ type: "tool_use", id: "t1", name: "Echo", input: { text: "x" } }, assistantMessage(), approveAll, context)) {
      order.push(u.type);
    }
    expect(order).toEqual(["status:validating", "status:running", "progress", "status:done", "result"]);
  });

  it("a consumer that stops early still leaves the call done, not in progress forever", async () => {
    const context = testContext({ tools: [echo()] });
    const gen = runToolUse({ type: "tool_use", id: "t1", name: "Echo", input: { text: "x" } }, assistantMessage(), approveAll, context);
    expect((await gen.next()).value).toMatchObject({ type: "progress" });
    expect(context.getInProgressToolUseIDs().has("t1")).toBe(true);
    await gen.return(undefined);
    expect(context.getInProgressToolUseIDs().has("t1")).toBe(false);
    expect(context.toolStatus.get("t1")).toMatchObject({ status: "done", outcome: "cancelled" });
  });
});
