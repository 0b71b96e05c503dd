/**
 * Bash and the session's OS sandbox: which verdict a command gets when the sandbox contains it, and how one
 * call runs (sandboxed with a write scope, outside it, or refused because the sandbox it needs is missing).
 */
import type { PermissionDecision, PermissionResult } from "../../core/permissionTypes.js";
import type { ToolUseContext } from "../../core/Tool.js";
import { isForcedAsk, matchCommandPattern } from "../../permissions/index.js";
import {
  SANDBOX_AUTO_ALLOW_REASON,
  describeSandboxRefusals,
  persistentSandboxWanted,
  sandboxUnavailableMessage,
  writeScopeFor,
  type Sandbox,
  type SessionSandboxProcess,
  type WriteScope,
} from "../../sandbox/index.js";
import { analyzeCommand } from "../../shell/analyze.js";
import { suggestRuleContent } from "./permissions/suggestions.js";
import { cwdFilePath, shellScript } from "./shell.js";

export interface SandboxInput {
  command: string;
  dangerouslyDisableSandbox?: boolean;
}

/** Commands listed in sandbox.excludedCommands (Bash rule syntax); every part must be listed. */
export function isExcludedCommand(command: string, sandbox: Sandbox): boolean {
  const patterns = sandbox.settings.excludedCommands ?? [];
  if (!patterns.length) return false;
  const analysis = analyzeCommand(command);
  if (analysis.complexity.length || !analysis.parts.length) return false;
  return analysis.parts.every((part) => part.allowViews.some((view) => patterns.some((p) => matchCommandPattern(p, view))));
}

/** Whether this call asks to leave the sandbox and may (allowUnsandboxedCommands). */
function wantsOut(input: SandboxInput, sandbox: Sandbox): boolean {
  return input.dangerouslyDisableSandbox === true && sandbox.settings.allowUnsandboxedCommands === true;
}

/** Whether this call runs inside the sandbox. */
export function runsSandboxed(input: SandboxInput, sandbox: Sandbox | undefined): sandbox is Sandbox {
  return sandbox?.status === "active" && !wantsOut(input, sandbox) && !isExcludedCommand(input.command, sandbox);
}

/**
 * The rule verdict adjusted for the sandbox. Leaving the sandbox always asks. A command no rule covers
 * (not denied, no ask rule, no safety check, and simple enough to judge part by part) is allowed when
 * autoAllowBashIfSandboxed is on, because the sandbox gives it a read-only file system and no network.
 */
export function sandboxVerdict(result: PermissionResult, input: SandboxInput, sandbox: Sandbox | undefined): PermissionResult {
  if (sandbox?.status !== "active" || result.behavior === "deny") return result;
  if (wantsOut(input, sandbox)) {
    return {
      behavior: "ask",
      message: `This command asks to run outside the sandbox (dangerouslyDisableSandbox), with the file system and network access of toolgate itself. It always needs approval.`,
      decisionReason: { type: "safetyCheck", reason: "runs outside the sandbox (dangerouslyDisableSandbox)" },
    };
  }
  if (result.behavior === "allow" || isForcedAsk(result) || sandbox.settings.autoAllowBashIfSandboxed === false) return result;
  if (isExcludedCommand(input.command, sandbox) || analyzeCommand(input.command).complexity.length) return result;
  return { behavior: "allow", decisionReason: { type: "other", reason: SANDBOX_AUTO_ALLOW_REASON } };
}

/** What the sandbox lets a command the engine allowed write, in words (for explain). */
export function describeSandboxScope(scope: WriteScope): string {
  return scope === "none"
    ? "sandboxed, read-only: nothing writable but a private temp dir, no network beyond the allowed domains"
    : "sandboxed: may write inside the working directories (not .git/hooks, .git/config, .toolgate/, .mcp.json, shell rc files, Edit- or Read-denied paths), no network beyond the allowed domains";
}

/** How one Bash call runs. */
export type BashLaunch =
  | { kind: "unsandboxed"; notes: string[] }
  | { kind: "refused"; message: string }
  | {
      /** In the session's long-lived sandbox. */
      kind: "persistent";
      scope: WriteScope;
      cwdFile?: string;
      notes: string[];
      start(script: string, env: NodeJS.ProcessEnv): Promise<SessionSandboxProcess>;
      /** After the command: the sandbox's refusals as notes for the model. */
      finish(violations: string[], output: string, cwd: string): string[];
    }
  | {
      kind: "sandboxed";
      scope: WriteScope;
      launch: { script: string; cwdFile?: string };
      notes: string[];
      /** After the command: the sandbox's refusals as notes for the model. */
      finish(output: string, cwd: string): string[];
    };

export async function prepareBashLaunch(
  input: SandboxInput,
  context: ToolUseContext,
  options: { captureCwd: boolean; commandId: string; cwd: string },
): Promise<BashLaunch> {
  const sandbox = context.sandbox;
  const notes: string[] = [];
  if (!sandbox) return { kind: "unsandboxed", notes };
  if (sandbox.status === "unavailable" && sandbox.explicit) return { kind: "refused", message: sandboxUnavailableMessage(sandbox) };
  if (!runsSandboxed(input, sandbox)) return { kind: "unsandboxed", notes };
  if (input.dangerouslyDisableSandbox) {
    notes.push("dangerouslyDisableSandbox was ignored: the settings do not allow unsandboxed commands (sandbox.allowUnsandboxedCommands).");
  }
  const permissionContext = context.getAppState().toolPermissionContext;
  const scope = writeScopeFor(context.permissionDecision, permissionContext.mode);
  const tempDir = sandbox.tempDir as string;
  const cwdFile = options.captureCwd ? cwdFilePath(tempDir) : undefined;
  const refusals = (violations: string[], filesystem: SessionSandboxProcess["filesystem"], output: string, cwd: string) =>
    describeSandboxRefusals({
      violations,
      output,
      scope,
      filesystem,
      cwd,
      suggestedRules: [...new Set(analyzeCommand(input.command).parts.map((p) => suggestRuleContent(p)).filter((r): r is string => !!r))],
      workingDirectories: [permissionContext.cwd, ...permissionContext.additionalWorkingDirectories.map((d) => d.path)],
    });
  // The default where the sandbox offers it (Linux); TOOLGATE_SANDBOX_PERSISTENT=0 gives each command its own.
  if (sandbox.spawn && persistentSandboxWanted()) {
    const spawn = sandbox.spawn;
    let filesystem: SessionSandboxProcess["filesystem"] | undefined;
    return {
      kind: "persistent",
      scope,
      cwdFile,
      notes,
      start: async (script, env) => {
        const proc = await spawn({ permissionContext, scope, script, cwd: options.cwd, env });
        filesystem = proc.filesystem;
        return proc;
      },
      finish: (violations, output, cwd) => (filesystem ? refusals(violations, filesystem, output, cwd) : []),
    };
  }
  const script = shellScript(input.command, cwdFile);
  const wrapped = await sandbox.wrap(script, { permissionContext, scope, commandId: options.commandId, signal: context.abortController.signal });
  const suggestedRules = [...new Set(analyzeCommand(input.command).parts.map((p) => suggestRuleContent(p)).filter((r): r is string => !!r))];
  return {
    kind: "sandboxed",
    scope,
    launch: { script: wrapped.command, cwdFile },
    notes,
    finish: (output, cwd) =>
      describeSandboxRefusals({
        violations: wrapped.finish(),
        output,
        scope,
        filesystem: wrapped.filesystem,
        cwd,
        suggestedRules,
        workingDirectories: [permissionContext.cwd, ...permissionContext.additionalWorkingDirectories.map((d) => d.path)],
      }),
  };
}

/** The `sandbox:` line of `toolgate permissions explain Bash …`: where the command would run and what it could write. */
export function describeBashSandbox(input: SandboxInput, decision: PermissionDecision, context: ToolUseContext): string | undefined {
  const sandbox = context.sandbox;
  if (!sandbox) return undefined;
  if (sandbox.status === "disabled") return `sandbox: off (${sandbox.reason}); the rules alone decide`;
  if (sandbox.status === "unavailable") {
    return sandbox.explicit ? `sandbox: unavailable (${sandbox.reason}); Bash calls fail` : `sandbox: unavailable (${sandbox.reason}); the rules alone decide`;
  }
  if (!runsSandboxed(input, sandbox)) {
    return `sandbox: runs outside the sandbox (${isExcludedCommand(input.command, sandbox) ? "sandbox.excludedCommands" : "dangerouslyDisableSandbox"})`;
  }
  const mode = context.getAppState().toolPermissionContext.mode;
  if (decision.behavior === "allow") return `sandbox: ${describeSandboxScope(writeScopeFor(decision, mode))}`;
  return `sandbox: if approved, ${describeSandboxScope(writeScopeFor({ behavior: "allow" }, mode))}`;
}
