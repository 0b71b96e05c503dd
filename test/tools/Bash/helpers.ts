import fs from "node:fs";
import path from "node:path";
import type { PermissionBehavior, PermissionMode, PermissionRule, ToolPermissionContext } from "../../../src/core/permissionTypes.js";
import type { ToolUseBlock } from "../../../src/core/messages.js";
import type { ToolResultUpdate } from "../../../src/core/pipeline/index.js";
import { runToolUse } from "../../../src/core/pipeline/index.js";
import { createEmptyPermissionContext } from "../../../src/core/context.js";
import { parsePermissionRule } from "../../../src/permissions/index.js";
import type { CanUseToolFn, ToolUseContext } from "../../../src/core/Tool.js";
import { assistantMessage } from "../../helpers.js";

export interface RuleSet {
  allow?: string[];
  deny?: string[];
  ask?: string[];
}

export function rules(set: RuleSet): PermissionRule[] {
  const out: PermissionRule[] = [];
  for (const behavior of ["allow", "deny", "ask"] as PermissionBehavior[]) {
    for (const text of set[behavior as keyof RuleSet] ?? []) {
      out.push({ source: "projectSettings", ruleBehavior: behavior, ruleValue: parsePermissionRule(text) });
    }
  }
  return out;
}

export function permissionContext(cwd: string, set: RuleSet = {}, mode: PermissionMode = "default"): ToolPermissionContext {
  return { ...createEmptyPermissionContext(cwd, mode), rules: rules(set) };
}

let counter = 0;

/** One tool_use through the whole pipeline; returns the result update and the progress seen. */
export async function runTool(
  context: ToolUseContext,
  name: string,
  input: unknown,
  canUseTool: CanUseToolFn,
): Promise<{ result: ToolResultUpdate; progress: unknown[]; text: string }> {
  const block: ToolUseBlock = { type: "tool_use", id: `toolu_${++counter}`, name, input };
  const progress: unknown[] = [];
  let result: ToolResultUpdate | undefined;
  for await (const update of runToolUse(block, assistantMessage(), canUseTool, context)) {
    if (update.type === "progress") progress.push(update.data);
    else result = update;
  }
  if (!result) throw new Error("no result");
  const content = result.block.content;
  const text = typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
  return { result, progress, text };
}

/** Whether a process still runs (zombies count as gone). */
export function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

export async function waitFor(predicate: () => boolean, timeoutMs = 10_000, stepMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return predicate();
}

/** Read pids a command wrote, one per line, once the file has `count` of them. */
export async function readPids(file: string, count: number): Promise<number[]> {
  await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, "utf8").trim().split("\n").length >= count);
  return fs.readFileSync(file, "utf8").trim().split("\n").map(Number);
}

export function write(dir: string, rel: string, content = ""): string {
  const file = path.join(dir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}
