/** Shared by the tests of the session's long-lived sandbox: sessions in a temp project, tool calls, events. */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll } from "vitest";
import { runToolUse, type ToolUseUpdate } from "../../src/core/pipeline/index.js";
import type { CanUseToolFn } from "../../src/core/Tool.js";
import type { PermissionMode } from "../../src/core/permissionTypes.js";
import { createSession, type Session } from "../../src/session/index.js";
import { checkSandboxSupport } from "../../src/sandbox/index.js";
import { assistantMessage, tempDir } from "../helpers.js";

const support = checkSandboxSupport();
const bwrapRuns = support.available && spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"]).status === 0;
/** Why the sandbox tests cannot run here ("" when they can). */
export const sandboxSkipReason = !support.available ? support.reason : !bwrapRuns ? "bwrap is installed but cannot create namespaces here" : "";
/** Whether Bash runs through the long-lived sandbox in this run. */
export const persistentMode = process.env.TOOLGATE_SANDBOX_PERSISTENT !== "0";

const sessions: Session[] = [];
afterAll(async () => {
  for (const s of sessions.splice(0)) await s.close();
});

export interface SessionSetup {
  mode?: PermissionMode;
  /** Files written into the project, in order. */
  files?: Record<string, string>;
  /** A settings file the session loads on top of the others. */
  settings?: Record<string, unknown>;
  allowedTools?: string[];
  sandbox?: boolean;
  /** Added to the session's environment. */
  env?: NodeJS.ProcessEnv;
  /** How the project's and data home's temp dirs are named. */
  prefix?: string;
  /** Whether the project has a .git/hooks folder, as a repository the sandbox must keep read-only does (default true). */
  gitHooks?: boolean;
}

/** A session in a fresh temp project with its own data home and no managed settings; closed after the file's last test. */
export async function openSession(setup: SessionSetup = {}): Promise<{ session: Session; cwd: string }> {
  const prefix = setup.prefix ?? "tg-psbx-";
  const cwd = tempDir(prefix);
  if (setup.gitHooks !== false) fs.mkdirSync(path.join(cwd, ".git/hooks"), { recursive: true });
  for (const [name, content] of Object.entries(setup.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(cwd, name)), { recursive: true });
    fs.writeFileSync(path.join(cwd, name), content);
  }
  const home = tempDir(`${prefix}home-`);
  let settingsFile: string | undefined;
  if (setup.settings) {
    settingsFile = path.join(home, "extra-settings.json");
    fs.writeFileSync(settingsFile, JSON.stringify(setup.settings));
  }
  const session = await createSession({
    cwd,
    home,
    settingsFile,
    permissionMode: setup.mode,
    allowedTools: setup.allowedTools,
    sandbox: setup.sandbox,
    env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"), ...setup.env },
  });
  sessions.push(session);
  return { session, cwd };
}

/** Close a session opened by openSession before the file's end. */
export async function closeSession(session: Session): Promise<void> {
  sessions.splice(sessions.indexOf(session), 1);
  await session.close();
}

export function textOf(update: ToolUseUpdate | undefined): { text: string; isError: boolean } {
  if (!update || update.type !== "result") throw new Error("no result");
  const content = update.block.content;
  const text = typeof content === "string" ? content : (content ?? []).map((c) => ("text" in c ? c.text : "")).join("\n");
  return { text, isError: update.block.is_error === true };
}

let counter = 0;
export async function callTool(session: Session, name: string, input: Record<string, unknown>, canUseTool: CanUseToolFn = session.canUseTool) {
  const updates: ToolUseUpdate[] = [];
  const block = { type: "tool_use" as const, id: `toolu_s${++counter}`, name, input };
  for await (const u of runToolUse(block, assistantMessage(), canUseTool, session.context)) updates.push(u);
  return textOf(updates.find((u) => u.type === "result"));
}

export const bash = (session: Session, input: Record<string, unknown>, canUseTool?: CanUseToolFn) => callTool(session, "Bash", input, canUseTool);

/** The background task id a Bash result names. */
export const taskIdIn = (text: string) => /task (?:id )?(b[0-9a-f]{8})/.exec(text)?.[1];

/** Resolves when `file` appears in `dir` (an event, not a timer). */
export function appears(dir: string, file: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = fs.watch(dir, () => {
      if (fs.existsSync(path.join(dir, file))) {
        watcher.close();
        resolve();
      }
    });
    if (fs.existsSync(path.join(dir, file))) {
      watcher.close();
      resolve();
    }
  });
}
