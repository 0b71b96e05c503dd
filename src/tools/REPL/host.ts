/**
 * A session's REPL: at most one Python process, started on the first call in the session's sandbox (the same
 * write scope and network policy as a Bash command the rules allow), kept between calls, restarted with a
 * notice when it was killed, died, or the sandbox policy it was started with no longer holds.
 */
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import type { ToolUseContext } from "../../core/Tool.js";
import { filesystemPolicy, networkPolicy, persistentSandboxWanted, sandboxUnavailableMessage, writeScopeFor, type SandboxCommand } from "../../sandbox/index.js";
import { contentRulesView } from "../../permissions/rules.js";
import { readPassEnv, withoutCredentials } from "../../util/childEnv.js";
import { childChannel, sandboxChannel, type ReplChannel } from "./channel.js";
import { REPL_DRIVER } from "./driver.js";
import { ReplProcess } from "./process.js";

declare module "../../core/Tool.js" {
  interface ToolUseContext {
    /** The session's Python REPL (set by the session when python3 is on PATH). */
    repl?: ReplHost;
  }
}

/** python3 on the PATH of `env`, as an absolute path; undefined when there is none. */
export function findPython3(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, "python3");
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export const NO_PYTHON_MESSAGE =
  "No Python 3 interpreter was found: python3 is not on the PATH of this session. Install Python 3 (e.g. sudo apt-get install python3) or put it on PATH, then start a new session; meanwhile use Bash.";

export const STATE_LOST = "Variables, imports and definitions from earlier calls are gone.";

const singleQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The running process, or why one cannot start. */
export type Acquired = { process: ReplProcess; notes: string[]; sandboxed: boolean } | { error: string; notes: string[] };

interface Running {
  process: ReplProcess;
  /** The sandbox policy it was started with (JSON), to notice when it changes. */
  policyKey: string;
  wrapped?: SandboxCommand;
  sandboxed: boolean;
}

export interface ReplHost {
  readonly python: string;
  /** The process for this call, started or restarted as needed. */
  acquire(context: ToolUseContext): Promise<Acquired>;
  /** Say on the next call that the state was lost (the process was killed or died). */
  forget(reason: string): Promise<void>;
  /** The running process's pid: its wrapper's on the host, or python's inside the session's long-lived sandbox (tests, diagnostics). */
  readonly pid: number | undefined;
  close(): Promise<void>;
}

export function createReplHost(python: string): ReplHost {
  let running: Running | undefined;
  let pendingNotice: string | undefined;
  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();

  const stop = async () => {
    const current = running;
    running = undefined;
    if (!current) return;
    await current.process.kill();
    current.wrapped?.finish();
  };

  const start = async (context: ToolUseContext): Promise<Acquired> => {
    const notes: string[] = [];
    // its sandbox checks its mounts before the code runs, as before every Bash command: one that lost a mount
    // has ended itself and the process with it
    if (running?.process.alive && !(await running.process.check())) await running.process.exited;
    // ended between calls (a thread called os._exit, the OOM killer, its sandbox): say so once, as after a kill
    if (running && !running.process.alive && !pendingNotice) {
      const detail = running.process.exit?.detail;
      pendingNotice = detail
        ? `This is a new Python process: the previous one was stopped with its sandbox between calls (${detail}). ${STATE_LOST}`
        : `This is a new Python process: the previous one ended between calls. ${STATE_LOST}`;
    }
    if (pendingNotice) {
      notes.push(pendingNotice);
      pendingNotice = undefined;
    }
    const sandbox = context.sandbox;
    const permissionContext = context.getAppState().toolPermissionContext;
    const pythonCommand = `exec ${singleQuote(python)} -u -c ${singleQuote(REPL_DRIVER)}`;
    const env = { ...withoutCredentials(context.env, readPassEnv(context.options.settings)), PYTHONUNBUFFERED: "1", PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8" };
    const cwd = context.getCwd();
    let channel: ReplChannel | undefined;
    let policyKey = "unsandboxed";
    let wrapped: SandboxCommand | undefined;
    const sandboxed = sandbox?.status === "active";
    if (sandbox && sandbox.status === "unavailable" && sandbox.explicit) return { error: sandboxUnavailableMessage(sandbox), notes };
    if (sandboxed) {
      const scope = writeScopeFor(context.permissionDecision, permissionContext.mode);
      const filesystem = filesystemPolicy({ permissionContext, scope, tempDir: sandbox.tempDir as string });
      // denyWrite also lists safety paths as they exist on disk (the sandbox itself creates some while a
      // process runs), so the Edit deny rules stand for it
      policyKey = JSON.stringify({
        scope,
        allowWrite: filesystem.allowWrite,
        denyRead: filesystem.denyRead,
        editDeny: contentRulesView(permissionContext, "Edit", "deny").map((rule) => rule.ruleValue.ruleContent),
        network: networkPolicy(permissionContext, sandbox.settings),
      });
      if (running?.process.alive && running.policyKey === policyKey) return { process: running.process, notes, sandboxed: running.sandboxed };
      if (running?.process.alive) notes.push(`The sandbox policy changed since the Python process started (write scope, directories or allowed hosts), so it was restarted. ${STATE_LOST}`);
      await stop();
      try {
        if (sandbox.spawn && persistentSandboxWanted()) {
          // a sandbox of its own, with the supervisor's lost-mount check; it lives as long as the process does
          const proc = await sandbox.spawn({ permissionContext, scope, script: pythonCommand, cwd, env, stdin: "pipe", longLived: true });
          channel = sandboxChannel(proc);
        } else {
          const command = await sandbox.wrap(pythonCommand, { permissionContext, scope, commandId: `${context.sessionId}:repl:${randomUUID()}` });
          channel = childChannel({ script: command.command, cwd, env });
          wrapped = command;
        }
      } catch (err) {
        return { error: err instanceof Error ? err.message : String(err), notes };
      }
    } else {
      if (running?.process.alive) return { process: running.process, notes, sandboxed: false };
      await stop();
    }
    const process = new ReplProcess(channel ?? childChannel({ script: pythonCommand, cwd, env }));
    running = { process, policyKey, wrapped, sandboxed };
    try {
      await process.ready;
    } catch (err) {
      await stop();
      return { error: err instanceof Error ? err.message : String(err), notes };
    }
    return { process, notes, sandboxed };
  };

  return {
    python,
    get pid() {
      return running?.process.alive ? running.process.pid : undefined;
    },
    acquire(context) {
      if (closed) return Promise.resolve({ error: "The session has ended; its REPL is closed.", notes: [] });
      // one start at a time: two calls must not each start a process
      const next = queue.then(() => start(context));
      queue = next.catch(() => undefined);
      return next;
    },
    async forget(reason) {
      pendingNotice = reason;
      await stop();
    },
    async close() {
      closed = true;
      await stop();
    },
  };
}
