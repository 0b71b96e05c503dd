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
  strict: z.boolean().optional(),
});

/** One command hook; src/hooks checks hooks with it too, for settings that did not come through validateSettings. */
export const commandHookSchema = z.looseObject({
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
  toolSearch: z.looseObject({ resultFormat: z.enum(["references", "schemas", "both"]).optional() }).optional(),
  sandbox: z
    .looseObject({
      enabled: z.boolean().optional(),
      autoAllowBashIfSandboxed: z.boolean().optional(),
      excludedCommands: z.array(z.string().trim().min(1, "must not be empty")).optional(),
      allowUnsandboxedCommands: z.boolean().optional(),
      network: z
        .looseObject({
          allowedDomains: z.array(z.string().trim().min(1, "must not be empty")).optional(),
          allowUnixSockets: z.array(z.string()).optional(),
          allowLocalBinding: z.boolean().optional(),
        })
        .optional(),
    })
    .optional(),
});

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) out += typeof key === "number" ? `[${key}]` : out ? `.${String(key)}` : String(key);
  return out || "(top level)";
}

/**
 * Valid settings, plus the entries that had to be dropped. `ok: false` when the value is not an object
 * at all (or, as a safety net, when an issue cannot be pruned); otherwise each invalid entry is removed
 * on its own (a bad rule, a bad hook, a bad option) so one typo never takes the file's deny rules down with it.
 */
export type SettingsValidation = { ok: true; settings: Settings; problems: string[] } | { ok: false; problems: string[] };

const MAX_PRUNE_ROUNDS = 50;

/** Remove what an issue points at: the innermost array entry on its path, else the key itself. */
function pruneAt(root: Record<string, unknown>, path: readonly PropertyKey[]): boolean {
  let cut = path.length;
  for (let i = path.length - 1; i >= 0; i--) {
    if (typeof path[i] === "number") {
      cut = i + 1;
      break;
    }
  }
  const target = path.slice(0, cut);
  if (target.length === 0) return false;
  let node: unknown = root;
  for (const key of target.slice(0, -1)) {
    if (node === null || typeof node !== "object") return false;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  const last = target[target.length - 1];
  if (Array.isArray(node) && typeof last === "number") {
    if (last >= node.length) return false;
    node.splice(last, 1);
    return true;
  }
  if (node === null || typeof node !== "object" || !(last in node)) return false;
  delete (node as Record<PropertyKey, unknown>)[last];
  return true;
}

/** Validate a parsed settings value; problems read like `permissions.allow[2]: invalid permission rule …`. */
export function validateSettings(value: unknown): SettingsValidation {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, problems: ["the file must contain a JSON object"] };
  }
  const candidate = structuredClone(value) as Record<string, unknown>;
  const problems: string[] = [];
  for (let round = 0; round < MAX_PRUNE_ROUNDS; round++) {
    const parsed = settingsSchema.safeParse(candidate);
    if (parsed.success) return { ok: true, settings: parsed.data as Settings, problems };
    // Prune deepest paths first so array indices of earlier issues stay valid within a round.
    const issues = [...parsed.error.issues].sort((a, b) => String(b.path.join("\0")).localeCompare(String(a.path.join("\0")), undefined, { numeric: true }));
    let pruned = false;
    for (const issue of issues) {
      problems.push(`${formatPath(issue.path)}: ${issue.message} (entry ignored)`);
      if (pruneAt(candidate, issue.path)) pruned = true;
    }
    if (!pruned) break;
  }
  return { ok: false, problems };
}
