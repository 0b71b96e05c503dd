/**
 * The process-wide sandbox runtime (`@anthropic-ai/sandbox-runtime` is a singleton): started by the first
 * session that wants it, stopped when the last one closes. Network filtering is per command: the runtime's
 * proxy asks us about every host, and a host passes only when every command running in the sandbox at that
 * moment may reach it, so concurrent sessions with different lists never widen each other's.
 */
import { spawn } from "node:child_process";
import { SandboxManager, type SandboxRuntimeConfig } from "@anthropic-ai/sandbox-runtime";
import { rgPath } from "@vscode/ripgrep";
import { isHostAllowed, type FilesystemPolicy, type NetworkPolicy } from "./policy.js";

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

/** The quick check (platform, bwrap, socat): what can be known without starting anything. */
export function checkSandboxSupport(): SandboxAvailability {
  if (!SandboxManager.isSupportedPlatform()) return { available: false, reason: `the sandbox does not support ${process.platform}` };
  const deps = SandboxManager.checkDependencies({ command: rgPath });
  return deps.errors.length ? { available: false, reason: deps.errors.join(", ") } : { available: true };
}

async function start(): Promise<SandboxAvailability> {
  await stopping;
  const support = checkSandboxSupport();
  if (!support.available) return support;
  try {
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
}

/** Wrap a bash script with the given policy; its network policy applies while it runs. */
export async function wrapInSandbox(
  script: string,
  options: { filesystem: FilesystemPolicy; network: NetworkPolicy; commandId: string; signal?: AbortSignal },
): Promise<WrappedCommand> {
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
  return {
    command,
    finish() {
      if (finished) return [];
      finished = true;
      active.delete(options.commandId);
      SandboxManager.cleanupAfterCommand();
      return SandboxManager.getSandboxViolationStore()
        .getViolationsForCommand(options.commandId)
        .map((v) => v.line);
    },
  };
}
