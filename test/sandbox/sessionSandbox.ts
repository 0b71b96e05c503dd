/** Shared by the tests of the session's long-lived sandbox: sessions in a temp project, tool calls, events. */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll } from "vitest";
import { runToolUse, type ToolUseUpdate } from "../../src/core/pipeline/index.js";
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

export async function openSession(options: { mode?: PermissionMode; files?: Record<string, string>; settings?: Record<string, unknown> } = {}): Promise<{ session: Session; cwd: string }> {
  const cwd = tempDir("tg-psbx-");
  fs.mkdirSync(path.join(cwd, ".git/hooks"), { recursive: true });
  for (const [name, content] of Object.entries(options.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(cwd, name)), { recursive: true });
    fs.writeFileSync(path.join(cwd, name), content);
  }
  const home = tempDir("tg-psbx-home-");
  let settingsFile: string | undefined;
  if (options.settings) {
    settingsFile = path.join(home, "extra-settings.json");
    fs.writeFileSync(settingsFile, JSON.stringify(options.settings));
  }
  const session = await createSession({
    cwd,
    home,
    settingsFile,
    permissionMode: options.mode,
    env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
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
export async function callTool(session: Session, name: string, input: Record<string, unknown>) {
  const updates: ToolUseUpdate[] = [];
  const block = { type: "tool_use" as const, id: `toolu_s${++counter}`, name, input };
  for await (const u of runToolUse(block, assistantMessage(), session.canUseTool, session.context)) updates.push(u);
  return textOf(updates.find((u) => u.type === "result"));
}

export const bash = (session: Session, input: Record<string, unknown>) => callTool(session, "Bash", input);

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
