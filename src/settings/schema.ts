import { z } from "zod";
import { PERMISSION_MODES } from "../core/permissionTypes.js";
import { parsePermissionRule } from "../permissions/ruleParser.js";
import type { Settings } from "./types.js";

const ruleString = z.string().superRefine((rule, ctx) => {
  try {
    parsePermissionRule(rule);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: err instanceof Error ? err.message : String(err) });
  }
});

const ruleList = z.array(ruleString);

// Objects stay loose: Claude Code settings carry keys toolgate does not use (env, model, statusLine, …).
const permissionsSchema = z.looseObject({
  allow: ruleList.optional(),
  deny: ruleList.optional(),
  ask: ruleList.optional(),
  defaultMode: z.enum(PERMISSION_MODES).optional(),
  additionalDirectories: z.array(z.string().trim().min(1, "must not be empty")).optional(),
});

const commandHookSchema = z.looseObject({
  type: z.literal("command"),
  command: z.string().trim().min(1, "must not be empty"),
  timeout: z.number().positive().finite().optional(),
});

/**
 * Command hooks are checked in full; other hook types (Claude Code's "prompt", …) keep their shape and
 * are reported as unsupported by src/hooks, which also judges event names and matcher regexes.
 */
const hookSchema = z.looseObject({ type: z.string() }).superRefine((hook, ctx) => {
  if (hook.type !== "command") return;
  const parsed = commandHookSchema.safeParse(hook);
  if (parsed.success) return;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
});

const hooksSchema = z.record(
  z.string(),
  z.array(
    z.looseObject({
      matcher: z.string().optional(),
      hooks: z.array(hookSchema),
    }),
  ),
);

const positiveMs = z.number().positive().finite();

export const settingsSchema = z.looseObject({
  permissions: permissionsSchema.optional(),
  hooks: hooksSchema.optional(),
  glob: z.looseObject({ includeHidden: z.boolean().optional(), respectGitignore: z.boolean().optional() }).optional(),
  grep: z.looseObject({ timeoutMs: positiveMs.optional() }).optional(),
  mcp: z.looseObject({ connectTimeoutMs: positiveMs.optional(), callTimeoutMs: positiveMs.optional() }).optional(),
});

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) out += typeof key === "number" ? `[${key}]` : out ? `.${String(key)}` : String(key);
  return out || "(top level)";
}

export type SettingsValidation = { ok: true; settings: Settings } | { ok: false; problems: string[] };

/** Validate a parsed settings value; problems read like `permissions.allow[2]: invalid permission rule …`. */
export function validateSettings(value: unknown): SettingsValidation {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, problems: ["the file must contain a JSON object"] };
  }
  const parsed = settingsSchema.safeParse(value);
  if (parsed.success) return { ok: true, settings: parsed.data as Settings };
  return { ok: false, problems: parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`) };
}
