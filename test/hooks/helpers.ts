import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { buildTool } from "../../src/core/buildTool.js";
import { createToolUseContext } from "../../src/core/context.js";
import { runToolUse, type ToolResultUpdate } from "../../src/core/pipeline/index.js";
import type { AnyObject, AnyTool, CanUseToolFn, PermissionDecider, ToolUseContext, HookRunner } from "../../src/core/Tool.js";
import type { PermissionDecision, ToolPermissionContext } from "../../src/core/permissionTypes.js";
import type { HooksSettings, LoadedSettings } from "../../src/settings/types.js";
import { createHookRunner, type HookRunnerOptions } from "../../src/hooks/index.js";

const tempDirs: string[] = [];

export function makeTempDir(prefix = "toolgate-hooks-"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  tempDirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** Write an executable hook script and return its absolute path. */
export function writeScript(dir: string, name: string, body: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, body, { mode: 0o755 });
  return file;
}

/** `bash <file>` or `node <file>` for a script written into dir. */
export function bashHook(dir: string, name: string, body: string): string {
  return `bash ${JSON.stringify(writeScript(dir, name, `#!/usr/bin/env bash\n${body}\n`))}`;
}

export function nodeHook(dir: string, name: string, body: string): string {
  return `node ${JSON.stringify(writeScript(dir, name, body))}`;
}

export function loadedSettings(...hooksPerFile: unknown[]): LoadedSettings {
  return {
    files: hooksPerFile.map((hooks, i) => ({
      source: "projectSettings" as const,
      path: `/settings/${i}.json`,
      root: "/settings",
      settings: { hooks: hooks as HooksSettings },
    })),
    errors: [],
  };
}

export function hooksFor(event: string, command: string, extra: { matcher?: string; timeout?: number } = {}): unknown {
  const { matcher = "*", timeout } = extra;
  return { [event]: [{ matcher, hooks: [timeout === undefined ? { type: "command", command } : { type: "command", command, timeout }] }] };
}

export function runnerFor(projectDir: string, hooks: unknown, options: Partial<HookRunnerOptions> = {}) {
  return createHookRunner({ settings: loadedSettings(hooks), projectDir, transcriptPath: "", ...options });
}

/** A tool whose calls are recorded, so a test can tell whether call() ran and with what. */
export function makeEchoTool(options: { name?: string; aliases?: string[]; fail?: string; permission?: "allow" | "passthrough" } = {}) {
  const calls: AnyObject[] = [];
  const tool = buildTool({
    name: options.name ?? "Echo",
    aliases: options.aliases,
    maxResultSizeChars: 10_000,
    inputSchema: z.strictObject({ text: z.string(), count: z.number().optional() }),
    description: async () => "Echo the text.",
    prompt: async () => "Echo the text.",
    async checkPermissions(input) {
      return options.permission === "passthrough"
        ? { behavior: "passthrough", message: "Echo needs approval." }
        : { behavior: "allow", updatedInput: input };
    },
    async validateInput(input) {
      return input.text === "forbidden" ? { result: false, message: "text may not be 'forbidden'", errorCode: 7 } : { result: true };
    },
    async call(input) {
      calls.push(input);
      if (options.fail) throw new Error(options.fail);
      return { data: { echoed: input.text, count: input.count } };
    },
    mapToolResultToToolResultBlockParam(output, toolUseID) {
      return { type: "tool_result", tool_use_id: toolUseID, content: `echo: ${output.echoed}` };
    },
  });
  return { tool, calls };
}

export function makeContext(
  dir: string,
  tools: AnyTool[],
  extra: { hookRunner?: HookRunner; permissionDecider?: PermissionDecider; permissionContext?: ToolPermissionContext } = {},
): ToolUseContext {
  return createToolUseContext({ tools, cwd: dir, home: path.join(dir, ".home"), sessionId: "session-1", ...extra });
}

export interface RecordingCanUseTool {
  fn: CanUseToolFn;
  asked: PermissionDecision[];
}

/** The interactive prompt stand-in: records what it was asked and answers with `answer`. */
export function recordingCanUseTool(answer: "allow" | "deny"): RecordingCanUseTool {
  const asked: PermissionDecision[] = [];
  const fn: CanUseToolFn = async (_tool, _input, _ctx, _msg, _id, decision) => {
    asked.push(decision);
    return answer === "allow" ? { behavior: "allow" } : { behavior: "deny", message: "The user said no." };
  };
  return { fn, asked };
}

export async function runOne(
  context: ToolUseContext,
  name: string,
  input: unknown,
  canUseTool: CanUseToolFn = recordingCanUseTool("allow").fn,
  id = "toolu_1",
): Promise<ToolResultUpdate> {
  let result: ToolResultUpdate | undefined;
  for await (const update of runToolUse({ type: "tool_use", id, name, input }, { role: "assistant", content: [] }, canUseTool, context)) {
    if (update.type === "result") result = update;
  }
  if (!result) throw new Error("no result");
  return result;
}

export function resultText(result: ToolResultUpdate): string {
  const content = result.block.content;
  return typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
}

/** True while a process exists and is not a zombie (PID 1 here may never reap orphans). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!fs.existsSync("/proc/self/stat")) return true;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Poll until `check` holds or the deadline passes; returns the last value of `check`. */
export async function waitFor(check: () => boolean, deadlineMs = 5_000): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}
