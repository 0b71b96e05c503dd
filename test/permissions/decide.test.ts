import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { HookPermissionDecision, ToolUseContext } from "../../src/core/Tool.js";
import type { PermissionMode, PermissionResult, PermissionRule } from "../../src/core/permissionTypes.js";
import { buildTool } from "../../src/core/buildTool.js";
import { z } from "zod";
import {
  createNonInteractiveCanUseTool,
  formatDecisionExplanation,
  hasPermissionsToUseTool,
  matchCommandPattern,
  getContentRulesForTool,
  matchDomainRule,
} from "../../src/permissions/index.js";
import { fileTool, permissionContext, plainTool, recordingCanUseTool, resultText, rule, runOne, sessionContext, tempDir } from "./helpers.js";

let cwd: string;
let home: string;
beforeEach(() => {
  cwd = tempDir("tg-dec-");
  home = tempDir("tg-home-");
  fs.writeFileSync(path.join(cwd, "a.txt"), "hello");
});

const readTool = fileTool("TestRead", "read");
const writeTool = fileTool("TestWrite", "write");

/** A Bash-like tool that matches its own content rules inside checkPermissions, as the real Bash tool does. */
const shellTool = buildTool({
  name: "Shell",
  inputSchema: z.strictObject({ command: z.string() }),
  maxResultSizeChars: 10_000,
  description: () => "shell",
  prompt: () => "shell",
  async checkPermissions(input, context): Promise<PermissionResult<{ command: string }>> {
    const ctx = context.getAppState().toolPermissionContext;
    for (const behavior of ["deny", "ask", "allow"] as const) {
      const hit = getContentRulesForTool(ctx, "Shell", behavior).find((r) => matchCommandPattern(r.ruleValue.ruleContent!, input.command));
      if (hit) {
        const decisionReason = { type: "rule" as const, rule: hit, matched: input.command };
        if (behavior === "allow") return { behavior, updatedInput: input, decisionReason };
        return { behavior, message: `${behavior} by rule`, decisionReason };
      }
    }
    return {
      behavior: "passthrough",
      message: `Shell command ${input.command} needs approval.`,
      suggestions: [{ type: "addRules", behavior: "allow", rules: [{ toolName: "Shell", ruleContent: input.command }], destination: "localSettings" }],
    };
  },
  async call(input) {
    return { data: `ran ${input.command}` };
  },
  mapToolResultToToolResultBlockParam: (output: string, id: string) => ({ type: "tool_result", tool_use_id: id, content: output }),
});

const fetchTool = plainTool("Fetch", { readOnly: true, matcher: (input) => (content) => matchDomainRule(content, String(input.url)) });
const tools = [readTool, writeTool, shellTool, fetchTool, plainTool("Plain")];

function ctxWith(rules: PermissionRule[], mode: PermissionMode = "default"): ToolUseContext {
  return sessionContext(tools, permissionContext(cwd, rules, mode), home);
}

async function decide(context: ToolUseContext, name: string, input: Record<string, unknown>, hookDecision?: HookPermissionDecision) {
  const tool = tools.find((t) => t.name === name)!;
  return hasPermissionsToUseTool(tool, input, context, { toolUseID: "t1", hookDecision });
}

describe("hasPermissionsToUseTool: decision order", () => {
  it("whole-tool deny wins over everything, even bypass", async () => {
    const d = await decide(ctxWith([rule("deny", "TestRead", "userSettings"), rule("allow", "TestRead", "session")], "bypassPermissions"), "TestRead", { file_path: path.join(cwd, "a.txt") });
    expect(d.behavior).toBe("deny");
    expect(d.decisionReason).toMatchObject({ type: "rule", rule: { source: "userSettings" } });
  });

  it("whole-tool ask asks even in bypass", async () => {
    const d = await decide(ctxWith([rule("ask", "Plain")], "bypassPermissions"), "Plain", {});
    expect(d.behavior).toBe("ask");
  });

  it("a content deny beats a whole-tool ask (deny > ask)", async () => {
    const ctx = ctxWith([rule("ask", "Shell", "policySettings"), rule("deny", "Shell(rm:*)", "userSettings")]);
    expect((await decide(ctx, "Shell", { command: "rm -rf /" })).behavior).toBe("deny");
    expect((await decide(ctx, "Shell", { command: "ls" })).behavior).toBe("ask");
  });

  it("the tool's deny is final, and a content ask rule asks in bypass", async () => {
    const ctx = ctxWith([rule("deny", "Shell(rm:*)"), rule("ask", "Shell(git push:*)"), rule("allow", "Shell")], "bypassPermissions");
    expect((await decide(ctx, "Shell", { command: "rm -rf x" })).behavior).toBe("deny");
    expect((await decide(ctx, "Shell", { command: "git push origin" })).behavior).toBe("ask");
    expect((await decide(ctx, "Shell", { command: "make" })).behavior).toBe("allow");
  });

  it("safety checks ask in bypass", async () => {
    const d = await decide(ctxWith([rule("allow", "TestWrite")], "bypassPermissions"), "TestWrite", { file_path: path.join(cwd, ".git/config") });
    expect(d).toMatchObject({ behavior: "ask", decisionReason: { type: "safetyCheck" } });
  });

  it("bypass allows what would ask", async () => {
    const d = await decide(ctxWith([], "bypassPermissions"), "TestWrite", { file_path: path.join(cwd, "new.txt") });
    expect(d).toMatchObject({ behavior: "allow", decisionReason: { type: "mode", mode: "bypassPermissions" } });
  });

  it("whole-tool allow rule allows what the tool passes through; otherwise ask with suggestions", async () => {
    expect((await decide(ctxWith([rule("allow", "Shell")]), "Shell", { command: "make" })).behavior).toBe("allow");
    const ask = await decide(ctxWith([]), "Shell", { command: "make" });
    expect(ask.behavior).toBe("ask");
    if (ask.behavior !== "ask") throw new Error();
    expect(ask.suggestions?.[0]).toMatchObject({ rules: [{ toolName: "Shell", ruleContent: "make" }] });
  });

  it("buildTool's default allow stands unless a rule objects", async () => {
    expect((await decide(ctxWith([]), "Plain", {})).behavior).toBe("allow");
    expect((await decide(ctxWith([rule("deny", "Plain")]), "Plain", {})).behavior).toBe("deny");
  });

  it("deny from the lowest source beats allow from the highest", async () => {
    const ctx = ctxWith([rule("deny", "Shell(curl:*)", "userSettings"), rule("allow", "Shell(curl:*)", "session"), rule("allow", "Shell", "cliArg")]);
    expect((await decide(ctx, "Shell", { command: "curl x" })).behavior).toBe("deny");
  });

  it("dontAsk turns ask into deny with how to allow it", async () => {
    const d = await decide(ctxWith([], "dontAsk"), "Shell", { command: "npm test" });
    expect(d.behavior).toBe("deny");
    if (d.behavior !== "deny") throw new Error();
    expect(d.message).toContain("dontAsk");
    expect(d.message).toContain('add "Shell(npm test)" to permissions.allow in .toolgate/settings.local.json or pass --allowedTools "Shell(npm test)"');
    expect((await decide(ctxWith([rule("allow", "Shell(npm test)")], "dontAsk"), "Shell", { command: "npm test" })).behavior).toBe("allow");
  });

  it("plan mode runs read-only tools and denies the rest", async () => {
    const ctx = ctxWith([rule("allow", "TestWrite")], "plan");
    expect((await decide(ctx, "TestRead", { file_path: path.join(cwd, "a.txt") })).behavior).toBe("allow");
    const d = await decide(ctx, "TestWrite", { file_path: path.join(cwd, "a.txt") });
    expect(d).toMatchObject({ behavior: "deny", decisionReason: { type: "mode", mode: "plan" } });
  });

  it("plan mode lets TodoWrite keep the task list (it writes no file)", async () => {
    const { TodoWriteTool } = await import("../../src/tools/TodoWrite/index.js");
    const context = sessionContext([TodoWriteTool], permissionContext(cwd, [], "plan"), home);
    const todos = [{ content: "Plan the change", status: "in_progress", activeForm: "Planning the change" }];
    expect((await hasPermissionsToUseTool(TodoWriteTool, { todos }, context, { toolUseID: "t1" })).behavior).toBe("allow");
  });

  it("mcp__server and mcp__server__* cover every tool of the server", async () => {
    const mcpTool = { ...plainTool("mcp__github__create_issue"), isMcp: true, mcpInfo: { serverName: "github", toolName: "create_issue" } };
    const context = sessionContext([mcpTool], permissionContext(cwd, [rule("deny", "mcp__github")]), home);
    expect((await hasPermissionsToUseTool(mcpTool, {}, context, { toolUseID: "x" })).behavior).toBe("deny");
    const context2 = sessionContext([mcpTool], permissionContext(cwd, [rule("ask", "mcp__github__*")], "bypassPermissions"), home);
    expect((await hasPermissionsToUseTool(mcpTool, {}, context2, { toolUseID: "x" })).behavior).toBe("ask");
    const context3 = sessionContext([mcpTool], permissionContext(cwd, [rule("deny", "mcp__gitlab")]), home);
    expect((await hasPermissionsToUseTool(mcpTool, {}, context3, { toolUseID: "x" })).behavior).toBe("allow");
  });
});

describe("generic content rules (preparePermissionMatcher)", () => {
  it("evaluates deny, ask and allow content rules with the tool's predicate", async () => {
    const rules = [rule("deny", "Fetch(domain:evil.com)"), rule("ask", "Fetch(domain:*.corp.net)"), rule("allow", "Fetch(domain:docs.dev)")];
    const ctx = ctxWith(rules, "bypassPermissions");
    expect((await decide(ctx, "Fetch", { url: "https://evil.com/x" })).behavior).toBe("deny");
    expect((await decide(ctx, "Fetch", { url: "https://wiki.corp.net/x" })).behavior).toBe("ask");
    const d = await decide(ctxWith(rules), "Fetch", { url: "https://docs.dev/" });
    expect(d).toMatchObject({ behavior: "allow", decisionReason: { type: "rule", rule: { ruleValue: { ruleContent: "domain:docs.dev" } } } });
  });
});

describe("PreToolUse hook decisions", () => {
  it("hook allow skips the default ask but never beats a deny or ask rule or a safety check", async () => {
    const allow: HookPermissionDecision = { behavior: "allow", reason: "ok by hook", command: "check.sh" };
    const plainCtx = ctxWith([]);
    expect(await decide(plainCtx, "Shell", { command: "make" }, allow)).toMatchObject({ behavior: "allow", decisionReason: { type: "hook", command: "check.sh" } });
    const rulesCtx = ctxWith([rule("deny", "Shell(rm:*)"), rule("ask", "Shell(git push:*)"), rule("ask", "TestRead")]);
    expect((await decide(rulesCtx, "Shell", { command: "rm x" }, allow)).behavior).toBe("deny");
    expect((await decide(rulesCtx, "Shell", { command: "git push" }, allow)).behavior).toBe("ask");
    expect((await decide(rulesCtx, "TestRead", { file_path: path.join(cwd, "a.txt") }, allow)).behavior).toBe("ask");
    expect((await decide(plainCtx, "TestWrite", { file_path: path.join(cwd, ".git/x") }, allow)).behavior).toBe("ask");
  });

  it("hook ask forces ask, even in bypass, but not over a deny", async () => {
    const ask: HookPermissionDecision = { behavior: "ask", reason: "double-check" };
    expect((await decide(ctxWith([], "bypassPermissions"), "Plain", {}, ask)).behavior).toBe("ask");
    expect((await decide(ctxWith([rule("deny", "Shell(rm:*)")]), "Shell", { command: "rm x" }, ask)).behavior).toBe("deny");
  });
});

describe("through the real pipeline", () => {
  it("reads inside cwd run, writes ask in default mode and run in acceptEdits", async () => {
    const asked: string[] = [];
    const context = ctxWith([]);
    const read = await runOne(context, "TestRead", { file_path: path.join(cwd, "a.txt") }, recordingCanUseTool(asked));
    expect(read.outcome).toBe("success");
    expect(resultText(read)).toBe("hello");
    const write = await runOne(context, "TestWrite", { file_path: path.join(cwd, "b.txt") }, recordingCanUseTool(asked));
    expect(write.outcome).toBe("denied");
    expect(asked).toHaveLength(1);
    expect(fs.existsSync(path.join(cwd, "b.txt"))).toBe(false);
    const accept = ctxWith([], "acceptEdits");
    const written = await runOne(accept, "TestWrite", { file_path: path.join(cwd, "b.txt") }, recordingCanUseTool(asked));
    expect(written.outcome).toBe("success");
    expect(fs.readFileSync(path.join(cwd, "b.txt"), "utf8")).toBe("written");
  });

  it("the non-interactive canUseTool denies what would ask, saying which rule would allow it", async () => {
    const result = await runOne(ctxWith([]), "Shell", { command: "npm test" }, createNonInteractiveCanUseTool());
    expect(result.outcome).toBe("denied");
    const text = resultText(result);
    expect(text).toContain("non-interactive");
    expect(text).toContain('add "Shell(npm test)" to permissions.allow in .toolgate/settings.local.json or pass --allowedTools "Shell(npm test)"');
  });

  it("a denied read never reaches the tool and the message names the rule", async () => {
    const file = path.join(cwd, ".toolgate/settings.json");
    const result = await runOne(
      ctxWith([rule("deny", "Read(a.txt)", "projectSettings", { file, root: cwd })], "bypassPermissions"),
      "TestRead",
      { file_path: path.join(cwd, "a.txt") },
      recordingCanUseTool([], "allow"),
    );
    expect(result.outcome).toBe("denied");
    expect(resultText(result)).toContain(`"Read(a.txt)" from project settings (${file})`);
  });
});

describe("formatDecisionExplanation", () => {
  it("names the rule, its source and file and the matched part", async () => {
    const file = "/p/.toolgate/settings.local.json";
    const d = await decide(ctxWith([rule("deny", "Shell(rm:*)", "localSettings", { file })]), "Shell", { command: "rm -rf x" });
    const text = formatDecisionExplanation(d);
    expect(text).toContain("deny");
    expect(text).toContain(`deny rule "Shell(rm:*)" from local project settings (${file}) matched "rm -rf x"`);
  });

  it("lists suggestions for an ask", async () => {
    const d = await decide(ctxWith([]), "TestWrite", { file_path: path.join(cwd, "src/x.ts") });
    const text = formatDecisionExplanation(d);
    expect(text).toContain("inside the working directory");
    expect(text).toContain('allow "Edit(./src/**)" — .toolgate/settings.local.json');
    expect(text).toContain("switch to acceptEdits mode — this session only");
  });
});
