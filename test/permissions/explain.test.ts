import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { beforeEach, describe, expect, it } from "vitest";
import { buildTool } from "../../src/core/buildTool.js";
import { createToolUseContext } from "../../src/core/context.js";
import type { PermissionResult } from "../../src/core/permissionTypes.js";
import { getContentRulesForTool, explainPermission, matchCommandPattern, hasPermissionsToUseTool, parseExplainInput } from "../../src/permissions/index.js";
import { getBuiltinTools } from "../../src/tools/index.js";
import { fileTool, permissionContext, rule, tempDir } from "./helpers.js";

const bash = buildTool({
  name: "Bash",
  inputSchema: z.strictObject({ command: z.string() }),
  maxResultSizeChars: 1000,
  description: () => "bash",
  prompt: () => "bash",
  async checkPermissions(input, context): Promise<PermissionResult<{ command: string }>> {
    const ctx = context.getAppState().toolPermissionContext;
    const parts = input.command.split("&&").map((p) => p.trim());
    const results = parts.map((command) => {
      for (const behavior of ["deny", "ask", "allow"] as const) {
        const hit = getContentRulesForTool(ctx, "Bash", behavior).find((r) => matchCommandPattern(r.ruleValue.ruleContent!, command));
        if (hit) return { command, result: { behavior, message: `${behavior}`, decisionReason: { type: "rule" as const, rule: hit, matched: command } } as PermissionResult };
      }
      return { command, result: { behavior: "passthrough", message: `${command} needs approval` } as PermissionResult };
    });
    const denied = results.find((r) => r.result.behavior === "deny");
    if (denied) return { behavior: "deny", message: `${denied.command} is denied`, decisionReason: { type: "subcommands", parts: results, decidingPart: denied.command } };
    const deciding = results.find((r) => r.result.behavior !== "allow");
    if (!deciding) return { behavior: "allow", updatedInput: input, decisionReason: { type: "subcommands", parts: results } };
    return {
      behavior: "passthrough",
      message: `${deciding.command} needs approval`,
      decisionReason: { type: "subcommands", parts: results, decidingPart: deciding.command },
      suggestions: [{ type: "addRules", behavior: "allow", rules: [{ toolName: "Bash", ruleContent: deciding.command }], destination: "localSettings" }],
    };
  },
  async call() {
    return { data: "" };
  },
  mapToolResultToToolResultBlockParam: (_o: string, id: string) => ({ type: "tool_result", tool_use_id: id, content: "" }),
});

let cwd: string;
beforeEach(() => {
  cwd = tempDir("tg-explain-");
  fs.writeFileSync(path.join(cwd, "a.txt"), "x");
});

function ctx(rules = [rule("allow", "Bash(git status)", "localSettings", { file: "/p/.toolgate/settings.local.json" })]) {
  const extra = tempDir("tg-extra-");
  return createToolUseContext({
    tools: [bash],
    cwd,
    home: tempDir("tg-h-"),
    permissionContext: permissionContext(cwd, rules, "default", [extra]),
    permissionDecider: hasPermissionsToUseTool,
  });
}

describe("explainPermission", () => {
  it("accepts a bare command for Bash and lists parts, mode, working directories and suggestions", async () => {
    const { decision, text } = await explainPermission(bash, "git status && npm test", ctx());
    expect(decision.behavior).toBe("ask");
    expect(text).toContain("decision: ask");
    expect(text).toContain('"git status": allow — allow rule "Bash(git status)" from local project settings (/p/.toolgate/settings.local.json)');
    expect(text).toContain('"npm test": passthrough (deciding)');
    expect(text).toContain("mode: default");
    expect(text).toContain(`${cwd} (cwd)`);
    expect(text).toContain("(command line)");
    expect(text).toContain('allow "Bash(npm test)" — .toolgate/settings.local.json');
    expect(text).toContain('--allowedTools "Bash(npm test)"');
  });

  it("names the deciding rule, its source, file and the matched part", async () => {
    const file = "/home/u/.toolgate/settings.json";
    const { decision, text } = await explainPermission(bash, '{"command": "rm -rf build"}', ctx([rule("deny", "Bash(rm:*)", "userSettings", { file })]));
    expect(decision.behavior).toBe("deny");
    expect(text).toContain(`rule: Bash(rm:*) (deny)\nsource: user settings — ${file}\nmatched: rm -rf build`);
    expect(text).toContain(`"rm -rf build": deny (deciding) — deny rule "Bash(rm:*)" from user settings (${file}) matched "rm -rf build"`);
  });

  it("explains path decisions for file tools and reports invalid input", async () => {
    const read = fileTool("Read", "read");
    const context = createToolUseContext({ tools: [read], cwd, home: tempDir("tg-h-"), permissionContext: permissionContext(cwd, [rule("deny", "Read(*.txt)", "projectSettings", { file: "/p/s.json", root: cwd })]) });
    const denied = await explainPermission(read, { file_path: path.join(cwd, "a.txt") }, context);
    expect(denied.text).toContain("rule: Read(*.txt) (deny)");
    expect(denied.text).toContain("source: project settings — /p/s.json");
    expect(denied.text).toContain("matched: a.txt");
    const bare = await explainPermission(read, path.join(cwd, "a.txt"), context);
    expect(bare.decision.behavior).toBe("deny");
    expect(bare.text).toContain(`input: {"file_path":"${path.join(cwd, "a.txt")}"}`);
    const invalid = await explainPermission(read, { path: "x" }, context);
    expect(invalid.decision.behavior).toBe("deny");
    expect(invalid.text).toContain("file_path");
  });

  it("text starting with { must be a JSON object: bad JSON is an input error, never a path that is then allowed", async () => {
    const read = fileTool("Read", "read");
    const context = createToolUseContext({ tools: [read], cwd, home: tempDir("tg-h-"), permissionContext: permissionContext(cwd, []) });
    const parsed = parseExplainInput(read, "{bad json");
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toMatch(/starts with "\{" but is not valid JSON/);
    expect(!parsed.ok && parsed.message).toContain(`'{"file_path":"…"}'`);
    const explained = await explainPermission(read, "{bad json", context);
    expect(explained.decision.behavior).toBe("deny");
    expect(explained.text).not.toContain("decision: allow");
  });
});

describe("parseExplainInput: a bare string goes to the tool's single required text field", () => {
  const builtin = (name: string) => getBuiltinTools().find((t) => t.name === name)!;

  it.each([
    ["Bash", "git status", { command: "git status" }],
    ["Read", "secrets/x", { file_path: "secrets/x" }],
    ["Glob", "src/**/*.ts", { pattern: "src/**/*.ts" }],
    ["Grep", "TODO", { pattern: "TODO" }],
    ["TaskOutput", "b1", { task_id: "b1" }],
  ])("%s %s", (tool, text, input) => {
    expect(parseExplainInput(builtin(tool), text)).toEqual({ ok: true, input });
  });

  it("a tool with several required fields refuses the bare string and shows the JSON form, never a command", () => {
    const edit = parseExplainInput(builtin("Edit"), "secrets/x");
    expect(edit.ok).toBe(false);
    expect(!edit.ok && edit.message).toBe(
      `Edit has the required fields file_path, old_string, new_string, so a bare string does not say which one it is. Pass the input as a JSON object, e.g. '{"file_path":"secrets/x","old_string":"…","new_string":"…"}'`,
    );
    expect(JSON.stringify(edit)).not.toContain('"command"');
    const write = parseExplainInput(builtin("Write"), "it's.txt");
    expect(!write.ok && write.message).toContain(`'{"file_path":"it'\\''s.txt","content":"…"}'`);
  });

  it("JSON objects are taken as they are, also for Bash", () => {
    expect(parseExplainInput(builtin("Edit"), ' {"file_path":"a","old_string":"x","new_string":"y"}')).toEqual({ ok: true, input: { file_path: "a", old_string: "x", new_string: "y" } });
    expect(parseExplainInput(builtin("Bash"), "{ ls; }").ok).toBe(false);
  });
});
