import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { z } from "zod";
import { buildTool } from "../../src/core/buildTool.js";
import { createToolUseContext } from "../../src/core/context.js";
import type { AnyObject, CanUseToolFn, ToolUseContext, Tools } from "../../src/core/Tool.js";
import type {
  PermissionBehavior,
  PermissionMode,
  PermissionRule,
  PermissionRuleSource,
  ToolPermissionContext,
  WorkingDirectory,
} from "../../src/core/permissionTypes.js";
import { runToolUse, type ToolResultUpdate } from "../../src/core/pipeline/index.js";
import { parsePermissionRule } from "../../src/permissions/ruleParser.js";
import { checkReadPermissionForPath, checkWritePermissionForPath, hasPermissionsToUseTool } from "../../src/permissions/index.js";

import { tempDir } from "../helpers.js";

export { tempDir };

export interface TestDirs {
  cwd: string;
  outside: string;
  home: string;
}

/** Before each test: fresh cwd, outside and home directories (named `<prefix>cwd-…` and so on), with HOME pointing at that home until the test ends. */
export function eachTestDirs(prefix: string, use: (dirs: TestDirs) => void): void {
  const realHome = process.env.HOME;
  beforeEach(() => {
    const dirs = { cwd: tempDir(`${prefix}cwd-`), outside: tempDir(`${prefix}out-`), home: tempDir(`${prefix}home-`) };
    process.env.HOME = dirs.home;
    use(dirs);
  });
  afterEach(() => {
    process.env.HOME = realHome;
  });
}

/** Writes `file`, making its parent directories. */
export function write(file: string, content = "x"): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

export function rule(
  behavior: PermissionBehavior,
  text: string,
  source: PermissionRuleSource = "localSettings",
  extra: { file?: string; root?: string } = {},
): PermissionRule {
  return { source, ruleBehavior: behavior, ruleValue: parsePermissionRule(text), ...extra };
}

export function permissionContext(
  cwd: string,
  rules: PermissionRule[] = [],
  mode: PermissionMode = "default",
  additional: string[] = [],
): ToolPermissionContext {
  const dirs: WorkingDirectory[] = additional.map((p) => ({ path: p, source: "cliArg" }));
  return { mode, cwd, additionalWorkingDirectories: dirs, rules, shouldAvoidPermissionPrompts: false };
}

/** A file-tool-like test tool: reads or writes `file_path`, judged by the engine's path checks. */
export function fileTool(name: string, kind: "read" | "write") {
  return buildTool<{ file_path: string }, string>({
    name,
    inputSchema: z.strictObject({ file_path: z.string() }),
    maxResultSizeChars: 10_000,
    description: () => `${kind} a file`,
    prompt: () => `${kind} a file`,
    isReadOnly: () => kind === "read",
    isConcurrencySafe: () => kind === "read",
    backfillObservableInput(input) {
      if (!path.isAbsolute(input.file_path)) input.file_path = path.resolve(process.cwd(), input.file_path);
    },
    async checkPermissions(input, context) {
      const ctx = context.getAppState().toolPermissionContext;
      const target = path.resolve(ctx.cwd, input.file_path);
      return kind === "read" ? checkReadPermissionForPath(target, ctx) : checkWritePermissionForPath(target, ctx);
    },
    async call(input) {
      if (kind === "write") fs.writeFileSync(input.file_path, "written");
      return { data: kind === "read" ? fs.readFileSync(input.file_path, "utf8") : "ok" };
    },
    mapToolResultToToolResultBlockParam: (output: string, id: string) => ({ type: "tool_result", tool_use_id: id, content: output }),
  });
}

/** A tool with no checkPermissions of its own (buildTool's default allow). */
export function plainTool(name: string, options: { readOnly?: boolean; matcher?: (input: AnyObject) => (content: string) => boolean } = {}) {
  return buildTool({
    name,
    inputSchema: z.looseObject({}),
    maxResultSizeChars: 10_000,
    description: () => name,
    prompt: () => name,
    isReadOnly: () => options.readOnly ?? false,
    ...(options.matcher ? { preparePermissionMatcher: async (input: AnyObject) => options.matcher!(input) } : {}),
    async call() {
      return { data: `${name} ran` };
    },
    mapToolResultToToolResultBlockParam: (output: string, id: string) => ({ type: "tool_result", tool_use_id: id, content: output }),
  });
}

export function sessionContext(tools: Tools, ctx: ToolPermissionContext, home: string): ToolUseContext {
  return createToolUseContext({
    tools,
    cwd: ctx.cwd,
    home,
    permissionContext: ctx,
    permissionDecider: hasPermissionsToUseTool,
  });
}

/** Approve what asks, recording that it asked. */
export function recordingCanUseTool(asked: string[], answer: "allow" | "deny" = "deny"): CanUseToolFn {
  return async (tool, input, _ctx, _msg, _id, decision) => {
    if (decision.behavior === "ask") asked.push(`${tool.name}:${JSON.stringify(input)}`);
    if (decision.behavior !== "ask") return decision;
    return answer === "allow" ? { behavior: "allow" } : { behavior: "deny", message: `asked and refused: ${decision.message}` };
  };
}

export async function runOne(
  context: ToolUseContext,
  name: string,
  input: unknown,
  canUseTool: CanUseToolFn,
): Promise<ToolResultUpdate> {
  const toolUse = { type: "tool_use" as const, id: `tu_${Math.random().toString(36).slice(2)}`, name, input };
  let result: ToolResultUpdate | undefined;
  for await (const update of runToolUse(toolUse, { role: "assistant", content: [toolUse] }, canUseTool, context)) {
    if (update.type === "result") result = update;
  }
  if (!result) throw new Error("no result");
  return result;
}

export function resultText(update: ToolResultUpdate): string {
  const content = update.block.content;
  return typeof content === "string" ? content : content.map((b) => ("text" in b ? b.text : "")).join("\n");
}
