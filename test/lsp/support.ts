import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runToolUse, type ToolUseUpdate } from "../../src/core/pipeline/index.js";
import { createSession, type Session } from "../../src/session/index.js";
import type { PermissionMode } from "../../src/core/permissionTypes.js";
import { assistantMessage, tempDir } from "../helpers.js";
import { isRunning } from "../tools/Bash/helpers.js";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const BIN = path.join(REPO, "node_modules", ".bin");
export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures");

/** A project directory with these files. */
export function project(files: Record<string, string>): string {
  const dir = tempDir("toolgate-lsp-");
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

export const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", noEmit: true }, include: ["**/*.ts"] });

/** A session in `cwd` with these settings (beside the project, so the project stays as the test made it). */
export async function openSession(cwd: string, settings: Record<string, unknown>, options: { mode?: PermissionMode; env?: NodeJS.ProcessEnv; trust?: boolean } = {}): Promise<Session> {
  const home = tempDir("toolgate-lsp-home-");
  const settingsFile = path.join(home, "flag-settings.json");
  fs.writeFileSync(settingsFile, JSON.stringify(settings));
  return createSession({
    cwd,
    home,
    settingsFile,
    permissionMode: options.mode ?? "acceptEdits",
    sandbox: false,
    trust: options.trust,
    env: { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH ?? ""}`, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"), ...options.env },
  });
}

let counter = 0;
/** Run one tool call through the whole pipeline; the result's text and whether it is an error. */
export async function call(session: Session, name: string, input: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const updates: ToolUseUpdate[] = [];
  const block = { type: "tool_use" as const, id: `toolu_lsp_${++counter}`, name, input };
  for await (const u of runToolUse(block, assistantMessage(`msg_lsp_${counter}`), session.canUseTool, session.context)) updates.push(u);
  const result = updates.find((u) => u.type === "result");
  if (!result || result.type !== "result") throw new Error("no result");
  const content = result.block.content;
  const text = typeof content === "string" ? content : (content ?? []).map((c) => ("text" in c ? c.text : "")).join("\n");
  return { text, isError: result.block.is_error === true };
}

export { isRunning };

/** Pids of live processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (fs.readFileSync(`/proc/${e}/cmdline`, "utf8").includes(marker) && isRunning(Number(e))) out.push(Number(e));
    } catch {
      // gone
    }
  }
  return out;
}
