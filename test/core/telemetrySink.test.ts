/** The pipeline's telemetry reports: one decision and one result per call, and a failing sink changes nothing. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../../src/core/buildTool.js";
import { runToolUse, type ToolResultUpdate } from "../../src/core/pipeline/index.js";
import type { CanUseToolFn, TelemetrySink, ToolDecisionReport, ToolResultReport } from "../../src/core/Tool.js";
import type { PermissionResult } from "../../src/core/permissionTypes.js";
import { approveAll, assistantMessage, rejectAll, testContext } from "../helpers.js";

function tool(verdict: PermissionResult) {
  return buildTool({
    name: "Probe",
    maxResultSizeChars: 100_000,
    inputSchema: () => z.strictObject({ target: z.string() }),
    description: () => "probe",
    prompt: () => "probe",
    async checkPermissions() {
      return verdict;
    },
    async call(args: { target: string }) {
      if (args.target === "boom") throw Object.assign(new Error(`cannot open /secret/${args.target}`), { code: "ENOENT" });
      return { data: "ok" };
    },
    mapToolResultToToolResultBlockParam: (output: unknown, id: string) => ({ type: "tool_result" as const, tool_use_id: id, content: String(output) }),
  } as Parameters<typeof buildTool>[0]);
}

function recordingSink() {
  const decisions: ToolDecisionReport[] = [];
  const results: ToolResultReport[] = [];
  const sink: TelemetrySink = {
    toolDecision: (r) => decisions.push(r),
    toolResult: (r) => results.push(r),
    modelRequest: () => undefined,
    userPrompt: () => undefined,
    linesChanged: () => undefined,
  };
  return { sink, decisions, results };
}

async function run(verdict: PermissionResult, target: string, canUseTool: CanUseToolFn, telemetry: TelemetrySink, name = "Probe") {
  const probe = tool(verdict);
  const context = { ...testContext({ tools: [probe] }), telemetry };
  let result: ToolResultUpdate | undefined;
  for await (const update of runToolUse({ type: "tool_use", id: "t1", name, input: { target } }, assistantMessage(), canUseTool, context)) {
    if (update.type === "result") result = update;
  }
  return result!;
}

describe("telemetry reports from the pipeline", () => {
  it("an allowed call: one accept decision, then one result with its duration", async () => {
    const r = recordingSink();
    const result = await run({ behavior: "allow", decisionReason: { type: "mode", mode: "acceptEdits" } }, "x", approveAll, r.sink);
    expect(result.outcome).toBe("success");
    expect(r.decisions.map((d) => [d.toolName, d.verdict.behavior, d.asked])).toEqual([["Probe", "allow", false]]);
    expect(r.results.map((x) => [x.toolName, x.outcome])).toEqual([["Probe", "success"]]);
    expect(typeof r.results[0].durationMs).toBe("number");
  });

  it("an ask the user refuses is reported as asked and denied; a failing call carries only the safe label", async () => {
    const r = recordingSink();
    const denied = await run({ behavior: "ask", message: "may I?" }, "x", rejectAll, r.sink);
    expect(denied.outcome).toBe("denied");
    expect(r.decisions.map((d) => [d.verdict.behavior, d.asked])).toEqual([["deny", true]]);
    expect(r.results.map((x) => x.outcome)).toEqual(["denied"]);

    const failed = await run({ behavior: "allow" }, "boom", approveAll, r.sink);
    expect(failed.outcome).toBe("tool_error");
    expect(r.results.at(-1)).toMatchObject({ outcome: "tool_error", errorLabel: "Error:ENOENT" });
  });

  it("a call to an unknown tool gets a result report and no decision", async () => {
    const r = recordingSink();
    const result = await run({ behavior: "allow" }, "x", approveAll, r.sink, "NoSuchTool");
    expect(result.outcome).toBe("unknown_tool");
    expect(r.decisions).toEqual([]);
    expect(r.results).toHaveLength(1);
    expect(r.results[0].tool).toBeUndefined();
  });

  it("a sink that throws changes no outcome", async () => {
    const throwing: TelemetrySink = {
      toolDecision: () => {
        throw new Error("collector down");
      },
      toolResult: () => {
        throw new Error("collector down");
      },
      modelRequest: () => undefined,
      userPrompt: () => undefined,
      linesChanged: () => undefined,
    };
    expect((await run({ behavior: "allow" }, "x", approveAll, throwing)).outcome).toBe("success");
    expect((await run({ behavior: "ask", message: "?" }, "x", rejectAll, throwing)).outcome).toBe("denied");
    expect((await run({ behavior: "deny", message: "no" }, "x", approveAll, throwing)).outcome).toBe("denied");
  });
});
