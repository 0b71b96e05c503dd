/**
 * A session's sandbox: whether it is on, why not, its private temp dir, and how to wrap a command.
 * Policy (what a command may touch) is in policy.ts, the process-wide runtime in runtime.ts, the
 * model-facing refusal notes in messages.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ToolPermissionContext } from "../core/permissionTypes.js";
import type { SandboxSettings } from "./settingsSection.js";
import { filesystemPolicy, networkPolicy, type FilesystemPolicy, type NetworkPolicy, type WriteScope } from "./policy.js";
import {
  acquireSandboxRuntime,
  checkSandboxSupport,
  releaseSandboxRuntime,
  sandboxInstallHint,
  setActiveNetworkPolicy,
  violationsSince,
  wrapInSandbox,
  type WrappedCommand,
} from "./runtime.js";
import { startSandboxHost, supervisorPath, type SandboxHost, type SandboxSpawnOptions, type SandboxedProcess } from "./persistent.js";
import { withTreeMarker } from "../util/processTree.js";

export { writeScopeFor, filesystemPolicy, networkPolicy, matchesHostPattern, SANDBOX_AUTO_ALLOW_REASON, type WriteScope, type FilesystemPolicy, type NetworkPolicy } from "./policy.js";
export { describeSandboxRefusals } from "./messages.js";
export { SandboxDiedError, type SandboxedProcess, type SandboxExit, type SandboxSpawnOptions } from "./persistent.js";
export { sandboxInstallHint, checkSandboxSupport, acquireSandboxRuntime, releaseSandboxRuntime, wrapInSandbox } from "./runtime.js";

/**
 * The runtime starts its in-sandbox proxy relays (socat on 3128 and 1080) in the background right before the
 * command; on a loaded machine the command can win the race and find no proxy. Wait until both listen (at most
 * ~2 s). The check uses shell builtins only: the sandbox has its own network namespace, so /proc/net/tcp lists
 * just the relays. (Probing with connects forked two subshells per round and made the relays open proxy
 * connections.) Only a round that finds them not yet listening starts a `sleep`.
 */
const WAIT_FOR_PROXY = [
  "_tg_n=0",
  "until { _tg_h=0; _tg_s=0; for _tg_f in /proc/net/tcp /proc/net/tcp6; do while read -r _tg_i _tg_l _tg_r _tg_st _tg_x; do " +
    "[[ $_tg_st == 0A ]] && case $_tg_l in *:0C38) _tg_h=1 ;; *:0438) _tg_s=1 ;; esac; done < $_tg_f; done 2>/dev/null; (( _tg_h && _tg_s )); } " +
    "|| (( (_tg_n += 1) > 400 )); do sleep 0.005; done",
  "unset _tg_n _tg_h _tg_s _tg_f _tg_i _tg_l _tg_r _tg_st _tg_x",
].join("; ");

export { sandboxSettingsSection, readSandboxSettings, type SandboxSettings } from "./settingsSection.js";

declare module "../core/Tool.js" {
  interface ToolUseContext {
    /** The session's OS sandbox for Bash (set by the session); absent means commands run unsandboxed. */
    sandbox?: Sandbox;
  }
}

/** `disabled`: off by settings or flag. `unavailable`: wanted but cannot run here. */
export type SandboxStatus = "active" | "disabled" | "unavailable";

export interface SandboxCommand extends WrappedCommand {
  filesystem: FilesystemPolicy;
  /** The private temp dir ($TMPDIR inside the sandbox). */
  tempDir: string;
}

export interface Sandbox {
  readonly status: SandboxStatus;
  /** Why it is not active, with the install command when something is missing. */
  readonly reason?: string;
  /** Asked for explicitly (`--sandbox`, `sandbox.enabled: true`): unavailable then fails Bash calls instead of falling back. */
  readonly explicit: boolean;
  readonly settings: SandboxSettings;
  /** The private temp dir, when active. */
  readonly tempDir?: string;
  /**
   * Start a process in the session's long-lived sandbox for this policy (started on first need, restarted
   * when the policy changes or after it died). Undefined where each command gets its own sandbox (macOS).
   */
  spawn?(request: SandboxSpawnRequest): Promise<SessionSandboxProcess>;
  /** Wrap a bash script for this session's policy (one sandbox for this command alone). */
  wrap(script: string, options: { permissionContext: ToolPermissionContext; scope: WriteScope; commandId: string; signal?: AbortSignal }): Promise<SandboxCommand>;
  /** Host pids (bwrap) of the long-lived sandboxes running now, for diagnostics and tests. */
  livePids?(): number[];
  close(): Promise<void>;
}

export interface SandboxSpawnRequest extends SandboxSpawnOptions {
  permissionContext: ToolPermissionContext;
  scope: WriteScope;
  /**
   * A process that lives across calls (the REPL): it gets a sandbox of its own that no other call shares and that
   * closes when the process has ended, with empty directories as the mount points of missing safety paths.
   */
  longLived?: boolean;
}

export interface SessionSandboxProcess extends SandboxedProcess {
  filesystem: FilesystemPolicy;
  tempDir: string;
  /** The refusals the runtime saw in this sandbox since the process started. */
  violations(): string[];
  /** Whether the sandbox's mounts are all still in place (false: it has ended itself, and this process with it). */
  check(): Promise<boolean>;
  /** The sandbox's supervisor pid on the host side (bwrap), for diagnostics and tests. */
  sandboxPid: number | undefined;
}

/** One long-lived sandbox of a session, for one policy. */
interface PooledSandbox {
  key: string;
  scope: WriteScope;
  commandId: string;
  network: NetworkPolicy;
  /** Set once bwrap is started (after the runtime built its arguments). */
  host?: SandboxHost;
  /** Settles when the supervisor is ready (or failed to start). */
  ready: Promise<SandboxHost>;
  /** Its policy is no longer what new commands get: closed once nothing runs in it. */
  stale: boolean;
  /** The supervisor exited or failed to start. */
  gone: boolean;
  /** Calls holding it: counted from the moment a call picks it, before it has started, so it is never closed under them. */
  running: number;
  /** Started for one long-lived process, shared with no other call. */
  longLived: boolean;
}

const quoteShell = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export interface SandboxOptions {
  settings?: SandboxSettings;
  /** `--sandbox` (true) / `--no-sandbox` (false); undefined: settings, then on where supported. */
  enabled?: boolean;
}

/** Whether Bash and the REPL run in the session's long-lived sandbox where it has one (on unless TOOLGATE_SANDBOX_PERSISTENT=0). */
export function persistentSandboxWanted(): boolean {
  return process.env.TOOLGATE_SANDBOX_PERSISTENT !== "0";
}

/** The line said once at start when the sandbox is wanted but cannot run. */
export function sandboxUnavailableMessage(sandbox: Pick<Sandbox, "reason" | "explicit">): string {
  const consequence = sandbox.explicit
    ? "Bash commands will fail until it can run (or pass --no-sandbox)"
    : "Bash commands run without it, judged by the permission rules alone";
  return `The sandbox is unavailable (${sandbox.reason}); ${consequence}. To enable it, ${sandboxInstallHint()}.`;
}

function disabledSandbox(settings: SandboxSettings, status: SandboxStatus, reason: string, explicit: boolean): Sandbox {
  return {
    status,
    reason,
    explicit,
    settings,
    async wrap() {
      throw new Error(status === "unavailable" ? sandboxUnavailableMessage({ reason, explicit }) : "The sandbox is disabled.");
    },
    async close() {},
  };
}

/**
 * The session's sandbox. The quick check decides at once (so the start-up message is said once, at start);
 * the runtime itself starts with the first command. Should it then fail
 * (bwrap present but unusable), that command and every later one fail with the reason: a command the
 * verdict allowed because the sandbox would contain it never runs without it.
 */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const settings = options.settings ?? {};
  const wanted = options.enabled ?? settings.enabled ?? true;
  const explicit = options.enabled === true || (options.enabled === undefined && settings.enabled === true);
  if (!wanted) return disabledSandbox(settings, "disabled", options.enabled === false ? "--no-sandbox" : "sandbox.enabled is false", false);
  const support = checkSandboxSupport();
  if (!support.available) return disabledSandbox(settings, "unavailable", support.reason, explicit);

  let failure: string | undefined;
  // started by the first command, so sessions that only report (explain, tools) never start it
  let ready: Promise<void> | undefined;
  const start = () =>
    (ready ??= acquireSandboxRuntime().then((availability) => {
      if (!availability.available) failure = availability.reason;
    }));
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-sandbox-"));
  let closed = false;
  const pool = new Map<string, PooledSandbox>();
  let sandboxCount = 0;
  const sessionTag = path.basename(tempDir);

  const retire = (pooled: PooledSandbox) => {
    if (pool.get(pooled.key) === pooled) pool.delete(pooled.key);
    setActiveNetworkPolicy(pooled.commandId, undefined);
  };
  const closePooled = (pooled: PooledSandbox) =>
    pooled.ready.then(
      (host) => host.close(),
      () => undefined,
    );
  const closeIfUnwanted = (pooled: PooledSandbox) => {
    if (pooled.stale && pooled.running === 0) {
      retire(pooled);
      void closePooled(pooled);
    }
  };

  /**
   * The sandbox for this policy, started when there is none (one that died is replaced). Synchronous, so that
   * calls made at the same moment share one sandbox: the entry is in the pool before anything is awaited.
   */
  function sandboxFor(filesystem: FilesystemPolicy, network: NetworkPolicy, scope: WriteScope, longLived: boolean): PooledSandbox {
    // never found for a long-lived process: its key is the number of the sandbox made for it below
    const key = longLived ? `long-lived-${sandboxCount + 1}` : JSON.stringify({ filesystem, network });
    const existing = pool.get(key);
    if (existing && !existing.gone) {
      existing.stale = false;
      return existing;
    }
    if (existing) retire(existing);
    const commandId = `${sessionTag}:sandbox-${++sandboxCount}`;
    const pooled: PooledSandbox = { key, scope, commandId, network, stale: false, gone: false, running: 0, longLived, ready: undefined as never };
    pooled.ready = (async () => {
      const supervisor = `${WAIT_FOR_PROXY}; export TMPDIR=${quoteShell(tempDir)}; exec ${quoteShell(process.execPath)} ${quoteShell(supervisorPath())}`;
      const wrapped = await wrapInSandbox(supervisor, { filesystem, network, commandId });
      // held while something runs in it, not while it idles
      if (pooled.running === 0) setActiveNetworkPolicy(commandId, undefined);
      const host = startSandboxHost({
        command: wrapped.command,
        env: withTreeMarker({ ...process.env }),
        cwd: tempDir,
        onGone: () => {
          pooled.gone = true;
          retire(pooled);
          wrapped.finish();
        },
      });
      pooled.host = host;
      if (closed) void host.close();
      await host.ready;
      // bwrap has read its arguments; a read-only sandbox made no mount points in the project to keep
      if (scope === "none") wrapped.release();
      return host;
    })();
    pooled.ready.catch(() => {
      pooled.gone = true;
      retire(pooled);
    });
    // another sandbox with this scope has an outdated policy (rules, working directories or safety paths changed)
    for (const other of pool.values()) {
      if (!longLived && !other.longLived && other.scope === scope) {
        other.stale = true;
        closeIfUnwanted(other);
      }
    }
    pool.set(key, pooled);
    return pooled;
  }
  const run = (pooled: PooledSandbox, host: SandboxHost, release: () => Promise<void>, request: { script: string; cwd: string; env: NodeJS.ProcessEnv; stdin?: "pipe" | "ignore"; filesystem: FilesystemPolicy }): SessionSandboxProcess => {
    const since = Date.now();
    const proc = host.spawn({ script: request.script, cwd: request.cwd, env: host.adaptEnv({ ...request.env, TMPDIR: tempDir }), stdin: request.stdin });
    // the process has ended once its sandbox, if it closes with it, is gone too (and its mount points with it)
    const ended = proc.ended.then(release);
    return Object.assign(proc, {
      ended,
      filesystem: request.filesystem,
      tempDir,
      violations: () => violationsSince(pooled.commandId, since),
      check: () => host.check(),
      sandboxPid: host.hostPid,
    });
  };
  return {
    get status(): SandboxStatus {
      return failure === undefined ? "active" : "unavailable";
    },
    get reason() {
      return failure;
    },
    // a sandbox that failed after the verdicts assumed it must not fall back to running commands bare
    explicit: true,
    settings,
    tempDir,
    async wrap(script, { permissionContext, scope, commandId, signal }) {
      if (closed) throw new Error("The session's sandbox is closed.");
      await start();
      if (failure !== undefined) throw new Error(sandboxUnavailableMessage({ reason: failure, explicit: true }));
      const filesystem = filesystemPolicy({ permissionContext, scope, tempDir });
      // the runtime's own default ($TMPDIR=/tmp/claude) is shared and may not exist: use the session's
      const withTemp = `${WAIT_FOR_PROXY}; export TMPDIR='${tempDir.replace(/'/g, `'\\''`)}'; ${script}`;
      const wrapped = await wrapInSandbox(withTemp, { filesystem, network: networkPolicy(permissionContext, settings), commandId, signal });
      return { ...wrapped, filesystem, tempDir };
    },
    // macOS: sandbox-exec profiles are per process, so each command keeps its own sandbox there
    spawn: process.platform !== "linux" ? undefined : async ({ permissionContext, scope, script, cwd, env, stdin, longLived = false }) => {
      if (closed) throw new Error("The session's sandbox is closed.");
      await start();
      if (failure !== undefined) throw new Error(sandboxUnavailableMessage({ reason: failure, explicit: true }));
      const filesystem = filesystemPolicy({ permissionContext, scope, tempDir, directoryPlaceholders: longLived });
      const network = networkPolicy(permissionContext, settings);
      // a sandbox found to have lost a mount has ended itself; the call gets a new one (once)
      for (let attempt = 0; ; attempt++) {
        const pooled = sandboxFor(filesystem, network, scope, longLived);
        pooled.running++;
        setActiveNetworkPolicy(pooled.commandId, pooled.network);
        const release = async () => {
          pooled.running--;
          if (pooled.running > 0) return;
          setActiveNetworkPolicy(pooled.commandId, undefined);
          // A write scope's sandbox lives only while something runs in it: bwrap's mount points for missing
          // safety paths (an empty .mcp.json, .bashrc, .toolgate/) are in the project for as long as it lives.
          // A long-lived process's sandbox is never reused.
          if (pooled.scope !== "none" || pooled.longLived) pooled.stale = true;
          if (pooled.stale) {
            retire(pooled);
            await closePooled(pooled);
          }
        };
        let host: SandboxHost;
        try {
          host = await pooled.ready;
          if (!(await host.check())) throw new Error("The session's sandbox ended itself: a protected path lost its mount (deleted or replaced from outside the sandbox).");
        } catch (err) {
          void release();
          if (attempt === 0 && pooled.gone) continue;
          throw err;
        }
        return run(pooled, host, release, { script, cwd, env, stdin, filesystem });
      }
    },
    livePids: () => [...pool.values()].map((pooled) => pooled.host?.hostPid).filter((pid): pid is number => pid !== undefined && pid > 0),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...pool.values()].map(closePooled));
      pool.clear();
      fs.rmSync(tempDir, { recursive: true, force: true });
      if (!ready) return;
      await ready;
      await releaseSandboxRuntime();
    },
  };
}
