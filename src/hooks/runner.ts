import path from "node:path";
import { readPassEnv, withoutCredentials } from "../util/childEnv.js";
import { randomUUID } from "node:crypto";
import type { HookCallArgs, HookNotice, HookRunEvent, ModelAccess, HookRunner, PreToolUseHookOutcome, SessionHookArgs, SessionHookEvent, SessionHookOutcome } from "../core/Tool.js";
import type { PermissionDecision } from "../core/permissionTypes.js";
import { formatError } from "../core/errors.js";
import type { LoadedSettings } from "../settings/types.js";
import { validateHooksSettings } from "./config.js";
import { compileMatcher, type CompiledMatcher } from "./matcher.js";
import { execHookCommand, type HookExecResult } from "./execHook.js";
import { interpretHookResult, type AnyHookEvent, type HookVerdict, type ToolHookEvent } from "./output.js";
import { combinePermissionRequest, combinePostToolUse, combinePreToolUse, combineSessionHooks } from "./combine.js";

export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
/** Claude Code's default for prompt hooks: one model request. */
export const DEFAULT_PROMPT_HOOK_TIMEOUT_SECONDS = 30;

export interface HookRunnerOptions {
  /** Hooks are read from `files[].settings.hooks`, lowest precedence first; that is also their run order. */
  settings: Pick<LoadedSettings, "files">;
  /** The hook's working directory and `TOOLGATE_PROJECT_DIR`. */
  projectDir: string;
  /** Defaults to the calling context's sessionId. */
  sessionId?: string;
  /** Sent as `transcript_path` (given the calling context's session id); empty when there is no transcript. */
  transcriptPath?: string | ((sessionId: string) => string);
  /** Base environment of hook processes; defaults to the calling context's env. */
  env?: NodeJS.ProcessEnv;
  /** Kept per output stream of each hook; default 1 MiB. */
  maxOutputBytes?: number;
  /** Between SIGTERM and SIGKILL when a hook is killed; default 1 s. */
  killGraceMs?: number;
  /** Hooks that are functions of the program driving toolgate (the Agent SDK's callbacks); they run after the files' hooks. */
  callbacks?: readonly CallbackHook[];
  /** Hooks of plugins: run after the settings files' ones, each with its own variables (CLAUDE_PLUGIN_ROOT). */
  pluginHooks?: readonly PluginHookSource[];
}

/** One plugin's hooks file (or inline hooks), Claude Code's `hooks` shape. */
export interface PluginHookSource {
  file: string;
  hooks: unknown;
  /** Added to the hook process's environment. */
  env: Record<string, string>;
}

/**
 * A hook the controlling program runs: it gets the same input a command hook reads on stdin and answers with
 * what a command hook would print as JSON. A thrown error is a failed hook: no decision, unless `blockOnFailure`.
 */
export interface CallbackHook {
  event: AnyHookEvent;
  matcher?: string;
  /** Shown in notices, in place of a command. */
  label: string;
  timeoutSeconds?: number;
  /** A failure (an error answer, a timeout) blocks as exit code 2 would, instead of giving no decision. */
  blockOnFailure?: boolean;
  invoke(input: Record<string, unknown>, toolUseID: string | undefined, signal: AbortSignal): Promise<unknown>;
}

export interface CommandHookRunner extends HookRunner {
  /** Problems found in the configuration (also delivered once, with the first outcome this runner returns). */
  readonly configNotices: readonly HookNotice[];
}

interface ConfiguredHook {
  event: AnyHookEvent;
  matcher: CompiledMatcher;
  command: string;
  timeoutSeconds: number;
  /** The settings file it came from, so a message can say where to change it. */
  file: string;
  callback?: CallbackHook;
  /** Variables of this hook alone (a plugin's root). */
  env?: Record<string, string>;
  /** A prompt hook's prompt: the model judges the event instead of a command. */
  prompt?: string;
}

function loadHooks(files: ReadonlyArray<{ path: string; settings: { hooks?: unknown }; env?: Record<string, string> }>) {
  const hooks: ConfiguredHook[] = [];
  const notices: HookNotice[] = [];
  for (const file of files) {
    const { hooks: valid, problems } = validateHooksSettings(file.settings.hooks);
    for (const problem of problems) {
      notices.push({ hookEvent: problem.hookEvent ?? "hooks", command: "", level: "error", message: `${file.path}: ${problem.path}: ${problem.message}` });
    }
    for (const [event, groups] of Object.entries(valid)) {
      for (const group of groups ?? []) {
        const matcher = compileMatcher(group.matcher);
        for (const hook of group.hooks) {
          hooks.push({
            event: event as AnyHookEvent,
            matcher,
            // A prompt hook is named by its prompt in notices (and deduplicated by it).
            command: hook.type === "prompt" ? `prompt: ${hook.prompt.split("\n")[0].slice(0, 80)}` : hook.command,
            timeoutSeconds: hook.timeout ?? (hook.type === "prompt" ? DEFAULT_PROMPT_HOOK_TIMEOUT_SECONDS : DEFAULT_HOOK_TIMEOUT_SECONDS),
            file: file.path,
            ...(file.env ? { env: file.env } : {}),
            ...(hook.type === "prompt" ? { prompt: hook.prompt } : {}),
          });
        }
      }
    }
  }
  return { hooks, notices };
}

/** JSON for stdin that survives values JSON cannot encode (BigInt, cycles) in a tool's response. */
function stringifyPayload(payload: object): string {
  try {
    return JSON.stringify(payload);
  } catch {
    const seen = new WeakSet<object>();
    return JSON.stringify(payload, (_key, value: unknown) => {
      if (typeof value === "bigint") return value.toString();
      if (value !== null && typeof value === "object") {
        if (seen.has(value)) return "[Circular]";
        seen.add(value);
      }
      return value;
    });
  }
}

/**
 * Command hooks from settings files, Claude Code's protocol (SPEC section 5). Every matching hook of an
 * event runs in parallel; their verdicts are combined deny > ask > allow. Never throws: a hook that fails,
 * times out or prints garbage becomes a notice and no decision.
 */
export function createHookRunner(options: HookRunnerOptions): CommandHookRunner {
  const projectDir = path.resolve(options.projectDir);
  const plugins = (options.pluginHooks ?? []).map((p) => ({ path: p.file, settings: { hooks: p.hooks }, env: p.env }));
  const { hooks, notices: configNotices } = loadHooks([...options.settings.files, ...plugins]);
  for (const callback of options.callbacks ?? []) {
    const matcher = compileMatcher(callback.matcher);
    if (matcher.problem) {
      configNotices.push({ hookEvent: callback.event, command: callback.label, level: "error", message: `${callback.label}: ${matcher.problem}; this hook is ignored` });
      continue;
    }
    hooks.push({ event: callback.event, matcher, command: callback.label, timeoutSeconds: callback.timeoutSeconds ?? DEFAULT_HOOK_TIMEOUT_SECONDS, file: "the controlling program", callback });
  }
  let undeliveredConfigNotices = [...configNotices];
  const observers = new Set<(event: HookRunEvent) => void>();
  const tell = (event: HookRunEvent) => {
    for (const listener of observers) {
      try {
        listener(event);
      } catch {
        // An observer's fault must not change what the hook decided.
      }
    }
  };

  async function run(event: ToolHookEvent, args: HookCallArgs, extra: Record<string, unknown>): Promise<HookVerdict[]> {
    const { tool } = args;
    const toolNames = [tool.name, ...(tool.aliases ?? [])];
    return runMatching(event, args.context, (h) => h.matcher.matches(toolNames), tool.name, {
      tool_name: tool.name,
      tool_input: args.input,
      tool_use_id: args.toolUseID,
      ...extra,
    });
  }

  /** SessionStart's matcher matches its source, SubagentStop's the agent type; UserPromptSubmit and Stop hooks all run (as in Claude Code). */
  function runSession(event: SessionHookEvent, args: SessionHookArgs, matchOn: string | undefined, extra: Record<string, unknown>): Promise<HookVerdict[]> {
    return runMatching(event, args.context, (h) => matchOn === undefined || h.matcher.matches([matchOn]), matchOn, extra);
  }

  async function runMatching(
    event: AnyHookEvent,
    context: HookCallArgs["context"],
    matches: (hook: ConfiguredHook) => boolean,
    matchedOn: string | undefined,
    fields: Record<string, unknown>,
  ): Promise<HookVerdict[]> {
    const seen = new Set<string>();
    // The same command configured twice (say, in user and project settings) runs once; two plugins' differ by their root.
    const key = (h: ConfiguredHook) => {
      const base = h.prompt ?? h.command;
      return h.env ? `${base}\0${JSON.stringify(h.env)}` : base;
    };
    const matching = hooks.filter((h) => h.event === event && matches(h) && !seen.has(key(h)) && seen.add(key(h)));
    if (matching.length === 0) return [];

    const sessionId = options.sessionId ?? context.sessionId;
    const stdin = stringifyPayload({
      session_id: sessionId,
      transcript_path: (typeof options.transcriptPath === "function" ? options.transcriptPath(sessionId) : options.transcriptPath) ?? "",
      cwd: context.getCwd(),
      permission_mode: context.getAppState().toolPermissionContext.mode,
      hook_event_name: event,
      ...fields,
    });
    const env = { ...withoutCredentials(options.env ?? context.env, readPassEnv(context.options.settings)), TOOLGATE_PROJECT_DIR: projectDir, CLAUDE_PROJECT_DIR: projectDir };
    const signal = context.abortController.signal;
    return Promise.all(
      matching.map(async (hook) => {
        // Claude Code names a hook run by its event and what the matcher was tested against.
        const named = { hookId: randomUUID(), hookName: matchedOn ? `${event}:${matchedOn}` : event, hookEvent: event };
        if (observers.size) tell({ type: "started", ...named });
        const result = hook.prompt !== undefined ? await runPromptHook(hook.prompt, stdin, context.models, hook.timeoutSeconds, signal) : await runOne(hook, stdin, fields, env, signal);
        if (observers.size) tell({ type: "response", ...named, ...describeRun(result) });
        return { ...interpretHookResult(event, hook.command, result, hook.timeoutSeconds), file: hook.file };
      }),
    );
  }

  function runOne(hook: ConfiguredHook, stdin: string, fields: Record<string, unknown>, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<HookExecResult> {
    if (hook.callback) {
      return runCallback(hook.callback, JSON.parse(stdin) as Record<string, unknown>, typeof fields.tool_use_id === "string" ? fields.tool_use_id : undefined, hook.timeoutSeconds, signal);
    }
    return execHookCommand({
      command: hook.command,
      stdin,
      cwd: projectDir,
      env: hook.env ? { ...env, ...hook.env } : env,
      timeoutMs: hook.timeoutSeconds * 1000,
      // Hooks that start after a cancellation (PostToolUseFailure for an interrupt) still run.
      signal: signal.aborted ? undefined : signal,
      maxOutputBytes: options.maxOutputBytes,
      killGraceMs: options.killGraceMs,
    });
  }

  /**
   * The runner's own faults become a notice. Before the call that fails closed: a PreToolUse hook that
   * could not be consulted denies, since it may have been the one guarding the call.
   */
  async function guarded<T extends { notices: HookNotice[]; additionalContext: string[] }>(
    event: AnyHookEvent,
    produce: () => Promise<T>,
  ): Promise<T | PreToolUseHookOutcome> {
    const pending = undeliveredConfigNotices;
    undeliveredConfigNotices = [];
    try {
      const outcome = await produce();
      outcome.notices.unshift(...pending);
      return outcome;
    } catch (err) {
      const message = `toolgate failed while running ${event} hooks: ${formatError(err)}`;
      const notices = [...pending, { hookEvent: event, command: "", level: "error" as const, message }];
      // A prompt guard that could not be consulted refuses the prompt, as a PreToolUse hook denies the call.
      if (event === "UserPromptSubmit") return { notices, additionalContext: [], block: { reason: `${message}. The prompt was not sent.` } } as SessionHookOutcome as T;
      if (event !== "PreToolUse") return { notices, additionalContext: [] };
      return { notices, additionalContext: [], permissionDecision: { behavior: "deny", reason: `${message}. The call was not run.` } };
    }
  }

  return {
    configNotices,
    hasToolHooks: (event, tool) => hooks.some((h) => h.event === event && h.matcher.matches([tool.name, ...(tool.aliases ?? [])])),
    preToolUse: (args) => guarded("PreToolUse", async () => combinePreToolUse(await run("PreToolUse", args, {}), args.tool.name)),
    postToolUse: (args) =>
      guarded("PostToolUse", async () => combinePostToolUse(await run("PostToolUse", args, { tool_response: args.response }))),
    postToolUseFailure: (args) =>
      guarded("PostToolUseFailure", async () =>
        combinePostToolUse(await run("PostToolUseFailure", args, { error: args.error, is_interrupt: args.isInterrupt })),
      ),
    permissionRequest: (args) =>
      guarded("PermissionRequest", async () =>
        combinePermissionRequest(await run("PermissionRequest", args, permissionRequestFields(args.decision)), args.tool.name),
      ),
    permissionDenied: (args) =>
      guarded("PermissionDenied", async () => combinePostToolUse(await run("PermissionDenied", args, { reason: args.reason }))),
    userPromptSubmit: (args) =>
      guardedSession("UserPromptSubmit", async () => combineSessionHooks(await runSession("UserPromptSubmit", args, undefined, { prompt: args.prompt }))),
    sessionStart: (args) =>
      guardedSession("SessionStart", async () => combineSessionHooks(await runSession("SessionStart", args, args.source, { source: args.source }))),
    stop: (args) =>
      guardedSession("Stop", async () => combineSessionHooks(await runSession("Stop", args, undefined, { stop_hook_active: args.stopHookActive }))),
    // The matcher matches the agent type, as Claude Code's does.
    subagentStop: (args) =>
      guardedSession("SubagentStop", async () =>
        combineSessionHooks(await runSession("SubagentStop", args, args.agentType, { stop_hook_active: args.stopHookActive, agent_type: args.agentType, agent_id: args.agentId })),
      ),
    preCompact: (args) =>
      guardedSession("PreCompact", async () =>
        combineSessionHooks(await runSession("PreCompact", args, args.trigger, { trigger: args.trigger, custom_instructions: args.customInstructions })),
      ),
    // SessionEnd and Notification cannot block: an exit 2 is only a notice.
    sessionEnd: (args) => guardedSession("SessionEnd", async () => unblockable("SessionEnd", combineSessionHooks(await runSession("SessionEnd", args, args.reason, { reason: args.reason })))),
    notification: (args) =>
      guardedSession("Notification", async () =>
        unblockable("Notification", combineSessionHooks(await runSession("Notification", args, args.notificationType, { message: args.message, notification_type: args.notificationType }))),
      ),
    observe(listener) {
      observers.add(listener);
      return () => observers.delete(listener);
    },
  };

  /** Session hooks can only add context or block, so a runner fault gives no verdict (UserPromptSubmit blocks). */
  async function guardedSession(event: SessionHookEvent, produce: () => Promise<SessionHookOutcome>): Promise<SessionHookOutcome> {
    return (await guarded(event, produce)) as SessionHookOutcome;
  }
}

function unblockable(event: SessionHookEvent, outcome: SessionHookOutcome): SessionHookOutcome {
  if (!outcome.block) return outcome;
  const { block, ...rest } = outcome;
  rest.notices.push({ hookEvent: event, command: "", level: "warning", message: `${event} hooks cannot block; exit code 2 ignored: ${block.reason}` });
  return rest;
}

/** A hook run's result in the terms of stream-json's hook_response message. */
function describeRun(result: HookExecResult): Omit<Extract<HookRunEvent, { type: "response" }>, "type" | "hookId" | "hookName" | "hookEvent"> {
  if (result.kind === "spawnFailed") return { stdout: "", stderr: result.message, output: result.message, outcome: "error" };
  const output = [result.stdout, result.stderr].filter(Boolean).join("\n");
  const base = { stdout: result.stdout, stderr: result.stderr, output };
  if (result.kind === "exited") return { ...base, exitCode: result.code, outcome: result.code === 0 ? "success" : "error" };
  return { ...base, outcome: result.kind === "cancelled" ? "cancelled" : "error" };
}

const PROMPT_HOOK_SYSTEM = `You check one event of a coding agent for its user, as the user's instructions below say. The event is given as JSON. Answer with a single JSON object and nothing else: {"ok": true} to let it go on, or {"ok": false, "reason": "<why, in one or two sentences, for the agent>"} to stop it.`;

/**
 * A prompt hook: the session's small model judges the event. `{"ok": false}` blocks as exit code 2 would; a
 * model failure or an answer that is not that JSON is a failed hook (a notice, no decision), as a crashing command is.
 */
async function runPromptHook(prompt: string, input: string, models: ModelAccess | undefined, timeoutSeconds: number, outer: AbortSignal): Promise<HookExecResult> {
  const quiet = { stdout: "", stdoutTruncated: false, stderrTruncated: false };
  if (!models) return { kind: "spawnFailed", message: "this session has no model to ask (prompt hooks run only in agent sessions)" };
  const signal = AbortSignal.any([outer, AbortSignal.timeout(timeoutSeconds * 1000)]);
  const text = prompt.includes("$ARGUMENTS") ? prompt.replaceAll("$ARGUMENTS", input) : `${prompt}\n\nThe event:\n${input}`;
  let answer: string;
  try {
    answer = (await models.ask({ system: PROMPT_HOOK_SYSTEM, prompt: text, model: "small", maxTokens: 1024, signal })).text;
  } catch (err) {
    if (outer.aborted) return { kind: "cancelled", ...quiet, stderr: "" };
    if (signal.aborted) return { kind: "timedOut", ...quiet, stderr: "" };
    return { kind: "exited", code: 1, ...quiet, stderr: `the model failed: ${formatError(err)}` };
  }
  const json = /\{[\s\S]*\}/.exec(answer)?.[0];
  let verdict: { ok?: unknown; reason?: unknown } | undefined;
  try {
    verdict = json ? (JSON.parse(json) as typeof verdict) : undefined;
  } catch {
    verdict = undefined;
  }
  if (typeof verdict?.ok !== "boolean") return { kind: "exited", code: 1, ...quiet, stderr: `the model's answer is not {"ok": true|false, "reason"?}: ${answer.slice(0, 300)}` };
  if (verdict.ok) return { kind: "exited", code: 0, ...quiet, stderr: "" };
  const reason = typeof verdict.reason === "string" && verdict.reason.trim() ? verdict.reason.trim() : "The prompt hook's model said no, without a reason.";
  return { kind: "exited", code: 2, ...quiet, stderr: reason };
}

/** A callback's answer as a command hook's result: JSON on stdout, a failure as exit 1 (or 2 to block). */
async function runCallback(callback: CallbackHook, input: Record<string, unknown>, toolUseID: string | undefined, timeoutSeconds: number, outer: AbortSignal): Promise<HookExecResult> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  outer.addEventListener("abort", onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutSeconds * 1000)));
  const quiet = { stderr: "", stdoutTruncated: false, stderrTruncated: false };
  try {
    const answer = await Promise.race([callback.invoke(input, toolUseID, controller.signal), timedOut]);
    if (answer === "timeout") {
      controller.abort();
      return callback.blockOnFailure ? { kind: "exited", code: 2, stdout: "", ...quiet, stderr: `The hook ${callback.label} gave no answer within ${timeoutSeconds} s, and it blocks on failure.` } : { kind: "timedOut", stdout: "", ...quiet };
    }
    return { kind: "exited", code: 0, stdout: answer === undefined || answer === null ? "" : JSON.stringify(answer), ...quiet };
  } catch (err) {
    if (controller.signal.aborted && !callback.blockOnFailure) return { kind: "cancelled", stdout: "", ...quiet };
    return { kind: "exited", code: callback.blockOnFailure ? 2 : 1, stdout: "", ...quiet, stderr: `The hook ${callback.label} failed: ${formatError(err)}` };
  } finally {
    clearTimeout(timer);
    outer.removeEventListener("abort", onAbort);
  }
}

function permissionRequestFields(decision: PermissionDecision): Record<string, unknown> {
  return {
    message: decision.behavior === "allow" ? "" : decision.message,
    permission_suggestions: decision.behavior === "allow" ? [] : (decision.suggestions ?? []),
  };
}
