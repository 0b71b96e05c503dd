/**
 * The process-wide sandbox runtime (`@anthropic-ai/sandbox-runtime` is a singleton): started by the first
 * session that wants it, stopped when the last one closes. Network filtering is per command: the runtime's
 * proxy asks us about every host, and a host passes only when every command running in the sandbox at that
 * moment may reach it, so concurrent sessions with different lists never widen each other's.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { SandboxRuntimeConfig } from "@anthropic-ai/sandbox-runtime";
import { rgPath } from "@vscode/ripgrep";
import { isHostAllowed, type FilesystemPolicy, type NetworkPolicy } from "./policy.js";

// The runtime module (~40 files plus node-forge, ~100 ms to load) is imported when a command first needs the
// sandbox, not when a session starts: a session that never runs Bash never loads it.
type Runtime = typeof import("@anthropic-ai/sandbox-runtime");
let runtime: Promise<Runtime> | undefined;
let SandboxManager: Runtime["SandboxManager"];
function loadRuntime(): Promise<Runtime> {
  return (runtime ??= import("@anthropic-ai/sandbox-runtime").then((module) => {
    SandboxManager = module.SandboxManager;
    return module;
  }));
}

export type SandboxAvailability = { available: true } | { available: false; reason: string };

/** What to install so the sandbox can run here. */
export function sandboxInstallHint(platform: NodeJS.Platform = process.platform): string {
  if (platform === "linux") return "install bubblewrap and socat (Debian/Ubuntu: sudo apt-get install bubblewrap socat; Fedora: sudo dnf install bubblewrap socat)";
  if (platform === "darwin") return "macOS ships sandbox-exec; check that /usr/bin/sandbox-exec exists";
  return `the sandbox does not support ${platform}; run with --no-sandbox or set sandbox.enabled to false`;
}

const active = new Map<string, NetworkPolicy>();
let started: Promise<SandboxAvailability> | undefined;
let stopping: Promise<void> = Promise.resolve();
let users = 0;

const BASE_CONFIG: SandboxRuntimeConfig = {
  network: { allowedDomains: [], deniedDomains: [] },
  filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
  ripgrep: { command: rgPath },
};

async function askHost({ host }: { host: string; port?: number }): Promise<boolean> {
  if (active.size === 0) return false;
  return [...active.values()].every((policy) => isHostAllowed(host, policy));
}

/** bwrap may be installed yet unusable (no user namespaces): run `true` in it once. */
async function probe(): Promise<string | undefined> {
  const id = "toolgate-probe";
  try {
    const wrapped = await SandboxManager.wrapWithSandbox("true", "/bin/bash", undefined, undefined, { commandId: id });
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn("/bin/bash", ["-c", wrapped], { stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (d: Buffer) => (output += d));
      child.stderr.on("data", (d: Buffer) => (output += d));
      child.on("error", (err) => resolve({ code: -1, output: err.message }));
      child.on("close", (code) => resolve({ code, output }));
    });
    return result.code === 0 ? undefined : `a test command failed inside the sandbox: ${result.output.trim().slice(0, 300) || `exit code ${result.code}`}`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    SandboxManager.cleanupAfterCommand();
  }
}

/** The runtime's own check, loaded synchronously: for the cases the quick check below cannot settle. */
function runtimeSupportCheck(): SandboxAvailability {
  const { SandboxManager: manager } = createRequire(import.meta.url)("@anthropic-ai/sandbox-runtime") as Runtime;
  if (!manager.isSupportedPlatform()) return { available: false, reason: `the sandbox does not support ${process.platform}` };
  const deps = manager.checkDependencies({ command: rgPath });
  return deps.errors.length ? { available: false, reason: deps.errors.join(", ") } : { available: true };
}

function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Like `which`, without starting a process: a path is checked as it is, a bare name on every PATH entry. */
function onPath(command: string): boolean {
  if (command.includes("/")) return isExecutableFile(command);
  return (process.env.PATH ?? "").split(path.delimiter).some((dir) => dir !== "" && isExecutableFile(path.join(dir, command)));
}

/** WSL 1 has no user namespaces, so no bubblewrap; WSL 2 is a real Linux kernel. */
function isWsl1(): boolean {
  try {
    const version = fs.readFileSync("/proc/version", "utf8");
    const numbered = /WSL(\d+)/i.exec(version);
    return numbered ? numbered[1] === "1" : version.toLowerCase().includes("microsoft");
  } catch {
    return false;
  }
}

const CAP_SETFCAP = 31n;

/** Whether this root process may map uid 0 into a user namespace (CAP_SETFCAP in its bounding set). */
function hasSetfcap(): boolean {
  try {
    const line = /^CapBnd:\s*([0-9a-f]+)$/im.exec(fs.readFileSync("/proc/self/status", "utf8"));
    return line !== null && ((BigInt(`0x${line[1]}`) >> CAP_SETFCAP) & 1n) === 1n;
  } catch {
    return false;
  }
}

/**
 * The quick check (platform, bwrap, socat, rg): what can be known without starting anything. It answers
 * what the runtime's checkDependencies answers, without loading the runtime or running `which` three times;
 * only root without CAP_SETFCAP (where bwrap itself must be probed) and Windows ask the runtime.
 */
export function checkSandboxSupport(): SandboxAvailability {
  if (process.platform === "darwin") return { available: true };
  if (process.platform === "win32") return runtimeSupportCheck();
  if (process.platform !== "linux" || isWsl1()) return { available: false, reason: `the sandbox does not support ${process.platform}` };
  const bwrap = onPath("bwrap");
  if (bwrap && process.geteuid?.() === 0 && !hasSetfcap()) return runtimeSupportCheck();
  const errors: string[] = [];
  if (!onPath(rgPath)) errors.push(`ripgrep (${rgPath}) not found`);
  if (!bwrap) errors.push("bubblewrap (bwrap) not installed");
  if (!onPath("socat")) errors.push("socat not installed");
  return errors.length ? { available: false, reason: errors.join(", ") } : { available: true };
}

async function start(): Promise<SandboxAvailability> {
  await stopping;
  const support = checkSandboxSupport();
  if (!support.available) return support;
  try {
    await loadRuntime();
    // the log monitor reports which paths a command was refused, so the result can name them
    await SandboxManager.initialize(structuredClone(BASE_CONFIG), askHost, true);
  } catch (err) {
    await SandboxManager.reset().catch(() => undefined);
    return { available: false, reason: err instanceof Error ? err.message : String(err) };
  }
  const failed = await probe();
  if (failed) {
    await SandboxManager.reset().catch(() => undefined);
    return { available: false, reason: failed };
  }
  return { available: true };
}

/** Start the runtime (once per process) and say whether it can be used; pair with releaseSandboxRuntime. */
export function acquireSandboxRuntime(): Promise<SandboxAvailability> {
  users++;
  started ??= start();
  return started;
}

export async function releaseSandboxRuntime(): Promise<void> {
  users = Math.max(0, users - 1);
  if (users > 0 || !started) return;
  const was = started;
  started = undefined;
  stopping = was.then(async (availability) => {
    if (availability.available) await SandboxManager.reset().catch(() => undefined);
  });
  await stopping;
}

export interface WrappedCommand {
  /** The shell command that runs `script` inside the sandbox. */
  command: string;
  /** Call once the command has ended: cleans up and returns the refusals the runtime saw. */
  finish(): string[];
  /**
   * Let the runtime clean up as if the command had ended, while it runs on (the violations stay readable): for a
   * sandbox with no mount points in the project, so it does not hold back the removal of other sandboxes'.
   */
  release(): void;
}

/** Wrap a bash script with the given policy; its network policy applies while it runs. */
export async function wrapInSandbox(
  script: string,
  options: { filesystem: FilesystemPolicy; network: NetworkPolicy; commandId: string; signal?: AbortSignal },
): Promise<WrappedCommand> {
  await loadRuntime();
  active.set(options.commandId, options.network);
  let command: string;
  try {
    command = await SandboxManager.wrapWithSandbox(
      script,
      "/bin/bash",
      { filesystem: { ...options.filesystem }, network: { allowedDomains: [], deniedDomains: [] } },
      options.signal,
      { commandId: options.commandId },
    );
  } catch (err) {
    active.delete(options.commandId);
    throw err;
  }
  let finished = false;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    SandboxManager.cleanupAfterCommand();
  };
  return {
    command,
    release,
    finish() {
      if (finished) return [];
      finished = true;
      active.delete(options.commandId);
      release();
      return SandboxManager.getSandboxViolationStore()
        .getViolationsForCommand(options.commandId)
        .map((v) => v.line);
    },
  };
}

/** Hold (or, with undefined, release) a network policy for the proxy's checks: while a long-lived sandbox has anything running. */
export function setActiveNetworkPolicy(id: string, policy: NetworkPolicy | undefined): void {
  if (policy) active.set(id, policy);
  else active.delete(id);
}

/** The refusals the runtime saw for `commandId` since `sinceMs` (a long-lived sandbox's commands share its id). */
export function violationsSince(commandId: string, sinceMs: number): string[] {
  if (!SandboxManager) return [];
  return SandboxManager.getSandboxViolationStore()
    .getViolationsForCommand(commandId)
    .filter((v) => v.timestamp.getTime() >= sinceMs)
    .map((v) => v.line);
}
