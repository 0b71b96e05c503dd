/** Shared by the Glob and Grep tests: real trees in temp dirs and calls through the real pipeline. */
import fs from "node:fs";
import path from "node:path";
import type { AnyTool, CanUseToolFn, ToolUseContext } from "../../../src/core/Tool.js";
import type { ToolPermissionContext } from "../../../src/core/permissionTypes.js";
import type { Settings } from "../../../src/settings/types.js";
import { runToolUse, type ProgressUpdate, type ToolResultUpdate } from "../../../src/core/pipeline/index.js";
import { createToolUseContext } from "../../../src/core/context.js";
import { hasPermissionsToUseTool, parsePermissionRule } from "../../../src/permissions/index.js";
import { GlobTool } from "../../../src/tools/Glob/index.js";
import { GrepTool } from "../../../src/tools/Grep/index.js";
import { approveAll, assistantMessage, tempDir } from "../../helpers.js";

export { tempDir };

/** Write files (string or bytes) under root, creating directories; returns absolute paths by key. */
export function writeTree(root: string, files: Record<string, string | Buffer>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    out[relative] = file;
  }
  return out;
}

/** Set a file's mtime to `secondsAgo` before a fixed instant, so orderings never depend on the clock. */
export function setAge(file: string, secondsAgo: number): void {
  const when = new Date(Date.UTC(2025, 0, 1) - secondsAgo * 1000);
  fs.utimesSync(file, when, when);
}

export interface SearchSessionOptions {
  cwd: string;
  deny?: string[];
  allow?: string[];
  settings?: Settings;
  nonInteractive?: boolean;
  abortController?: AbortController;
}

/** A session with the real permission engine and the two search tools. */
export function searchSession(options: SearchSessionOptions): ToolUseContext {
  const rules = [
    ...(options.deny ?? []).map((text) => ({ source: "session" as const, ruleBehavior: "deny" as const, ruleValue: parsePermissionRule(text) })),
    ...(options.allow ?? []).map((text) => ({ source: "session" as const, ruleBehavior: "allow" as const, ruleValue: parsePermissionRule(text) })),
  ];
  const permissionContext: ToolPermissionContext = {
    mode: "default",
    cwd: options.cwd,
    additionalWorkingDirectories: [],
    rules,
    shouldAvoidPermissionPrompts: options.nonInteractive ?? false,
  };
  return createToolUseContext({
    tools: [GlobTool, GrepTool] as AnyTool[],
    cwd: options.cwd,
    home: tempDir("toolgate-home-"),
    settings: options.settings,
    permissionContext,
    permissionDecider: hasPermissionsToUseTool,
    isNonInteractiveSession: options.nonInteractive,
    abortController: options.abortController,
  });
}

export interface Run {
  result: ToolResultUpdate;
  progress: ProgressUpdate[];
  text: string;
}

let nextId = 0;

/** One tool_use through runToolUse, collecting progress and the single result. */
export async function run(
  context: ToolUseContext,
  name: "Glob" | "Grep",
  input: unknown,
  options: { canUseTool?: CanUseToolFn; onProgress?: (update: ProgressUpdate) => void } = {},
): Promise<Run> {
  const toolUse = { type: "tool_use" as const, id: `toolu_search_${nextId++}`, name, input };
  const progress: ProgressUpdate[] = [];
  const results: ToolResultUpdate[] = [];
  for await (const update of runToolUse(toolUse, assistantMessage(), options.canUseTool ?? approveAll, context)) {
    if (update.type === "progress") {
      progress.push(update);
      options.onProgress?.(update);
    } else results.push(update);
  }
  if (results.length !== 1) throw new Error(`expected one result, got ${results.length}`);
  const content = results[0].block.content;
  const text = typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
  return { result: results[0], progress, text };
}

/** The lines of a result before its notes (the blank line that separates them). */
export function bodyLines(text: string): string[] {
  const cut = text.indexOf("\n\n");
  return (cut < 0 ? text : text.slice(0, cut)).split("\n");
}

/** Pids of rg processes whose working directory is `dir` (Linux /proc), to prove a search was killed. */
export function ripgrepProcessesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const exe = fs.readlinkSync(`/proc/${entry}/exe`);
      if (path.basename(exe) === "rg" && fs.readlinkSync(`/proc/${entry}/cwd`) === dir) pids.push(Number(entry));
    } catch {
      // the process ended while we looked, or is not ours to inspect
    }
  }
  return pids;
}

/** Wait until no rg runs in `dir`, up to `ms`; returns the pids still running then. */
export async function waitForRipgrepExit(dir: string, ms = 5_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const pids = ripgrepProcessesIn(dir);
    if (pids.length === 0 || Date.now() > deadline) return pids;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
