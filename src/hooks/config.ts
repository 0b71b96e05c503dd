import { z } from "zod";
import { commandHookSchema } from "./settingsSection.js";
import { HOOK_EVENTS, type HookConfig, type HookEventName, type HookMatcherConfig, type HooksSettings } from "../settings/types.js";
import { compileMatcher } from "./matcher.js";

/** One ignored part of a `hooks` value: where it is (`hooks.PreToolUse[0].hooks[1]`) and what is wrong with it. */
export interface HookConfigProblem {
  path: string;
  message: string;
  /** The event the problem belongs to, when the path gets that far. */
  hookEvent?: string;
}

export interface HooksValidation {
  /** Only the entries that are usable; everything reported in `problems` is left out. */
  hooks: HooksSettings;
  problems: HookConfigProblem[];
}

// Objects are not strict: Claude Code settings carry fields toolgate does not use (statusMessage, once, …).
const matcherGroupSchema = z.object({
  matcher: z.string().optional(),
  hooks: z.array(z.unknown()),
});

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message)).join("; ");
}

/** Events whose answer a prompt hook can give (allow or block); elsewhere a model's verdict would change nothing. */
export const PROMPT_HOOK_EVENTS: readonly string[] = ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "UserPromptSubmit", "Stop", "SubagentStop"];

const promptHookSchema = z.looseObject({
  type: z.literal("prompt"),
  prompt: z.string().trim().min(1, "must not be empty"),
  timeout: z.number().positive().finite().optional(),
});

function validateCommand(raw: unknown, path: string, event: string, problems: HookConfigProblem[]): HookConfig | undefined {
  if (isPlainObject(raw) && raw.type === "prompt") {
    if (!PROMPT_HOOK_EVENTS.includes(event)) {
      problems.push({ path, hookEvent: event, message: `prompt hooks are not supported for ${event} (only for ${PROMPT_HOOK_EVENTS.join(", ")}); ignored` });
      return undefined;
    }
    const parsed = promptHookSchema.safeParse(raw);
    if (!parsed.success) {
      problems.push({ path, hookEvent: event, message: `${describeIssues(parsed.error)}; this hook is ignored` });
      return undefined;
    }
    const { prompt, timeout } = parsed.data;
    return timeout === undefined ? { type: "prompt", prompt } : { type: "prompt", prompt, timeout };
  }
  if (isPlainObject(raw) && typeof raw.type === "string" && raw.type !== "command") {
    problems.push({ path, hookEvent: event, message: `hook type "${raw.type}" is not supported (only "command" and "prompt" hooks run); ignored` });
    return undefined;
  }
  const parsed = commandHookSchema.safeParse(raw);
  if (!parsed.success) {
    problems.push({ path, hookEvent: event, message: `${describeIssues(parsed.error)}; this hook is ignored` });
    return undefined;
  }
  const { type, command, timeout } = parsed.data;
  return timeout === undefined ? { type, command } : { type, command, timeout };
}

function validateGroup(raw: unknown, path: string, event: string, problems: HookConfigProblem[]): HookMatcherConfig | undefined {
  const parsed = matcherGroupSchema.safeParse(raw);
  if (!parsed.success) {
    problems.push({ path, hookEvent: event, message: `${describeIssues(parsed.error)}; this matcher entry is ignored` });
    return undefined;
  }
  const { matcher } = parsed.data;
  const compiled = compileMatcher(matcher);
  if (compiled.problem) {
    // Dropping it here is the same as "matches nothing", and keeps consumers from reporting it twice.
    problems.push({ path: `${path}.matcher`, hookEvent: event, message: `${compiled.problem}; this matcher entry matches no tool and is ignored` });
    return undefined;
  }
  const hooks = parsed.data.hooks
    .map((hook, index) => validateCommand(hook, `${path}.hooks[${index}]`, event, problems))
    .filter((hook): hook is HookConfig => hook !== undefined);
  if (hooks.length === 0) return undefined;
  return matcher === undefined ? { hooks } : { matcher, hooks };
}

/**
 * Check a settings `hooks` value (Claude Code's shape). Never throws: every malformed part is reported
 * and left out, the rest is kept, so one typo does not disable the other hooks of the file.
 */
export function validateHooksSettings(value: unknown): HooksValidation {
  const problems: HookConfigProblem[] = [];
  const hooks: HooksSettings = {};
  if (value === undefined || value === null) return { hooks, problems };
  if (!isPlainObject(value)) {
    problems.push({ path: "hooks", message: "must be an object mapping event names to arrays of matchers; all hooks of this file are ignored" });
    return { hooks, problems };
  }
  for (const [event, groups] of Object.entries(value)) {
    const path = `hooks.${event}`;
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      problems.push({ path, hookEvent: event, message: `unknown hook event "${event}" (known: ${HOOK_EVENTS.join(", ")}); ignored` });
      continue;
    }
    if (!Array.isArray(groups)) {
      problems.push({ path, hookEvent: event, message: `must be an array of {matcher, hooks} entries; ignored` });
      continue;
    }
    const valid = groups
      .map((group, index) => validateGroup(group, `${path}[${index}]`, event, problems))
      .filter((group): group is HookMatcherConfig => group !== undefined);
    if (valid.length > 0) hooks[event as HookEventName] = valid;
  }
  return { hooks, problems };
}
