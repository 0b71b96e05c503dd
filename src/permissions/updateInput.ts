/**
 * Permission updates that arrive from outside (a controlling client's `updatedPermissions`, the permission
 * prompt tool's answer): checked one by one, never trusted as typed. Each rule is read back through the rule
 * parser, so what is saved is a rule toolgate itself would write.
 */
import { z } from "zod";
import { PERMISSION_MODES, type PermissionRuleValue, type PermissionUpdate } from "../core/permissionTypes.js";
import { formatPermissionRule, parsePermissionRule } from "./ruleParser.js";

const destination = z.enum(["session", "localSettings", "projectSettings", "userSettings"]);
const ruleValue = z.union([z.string(), z.object({ toolName: z.string().min(1), ruleContent: z.string().optional() })]);
const update = z.discriminatedUnion("type", [
  z.object({ type: z.literal("addRules"), behavior: z.enum(["allow", "deny", "ask"]), rules: z.array(ruleValue).min(1), destination }),
  z.object({ type: z.literal("addDirectories"), directories: z.array(z.string().min(1)).min(1), destination }),
  z.object({ type: z.literal("setMode"), mode: z.enum(PERMISSION_MODES), destination: z.literal("session") }),
]);

export interface ParsedPermissionUpdates {
  updates: PermissionUpdate[];
  /** One line per update left out, saying why. */
  problems: string[];
}

/**
 * The usable updates in `value` (an array, or absent). A mode change to bypassPermissions is refused: turning
 * the checks off is the user's decision at start-up (`--permission-mode`), never an answer's side effect.
 */
export function parsePermissionUpdates(value: unknown): ParsedPermissionUpdates {
  if (value === undefined || value === null) return { updates: [], problems: [] };
  if (!Array.isArray(value)) return { updates: [], problems: ["updatedPermissions must be an array of permission updates"] };
  const updates: PermissionUpdate[] = [];
  const problems: string[] = [];
  value.forEach((entry, index) => {
    const parsed = update.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      problems.push(`updatedPermissions[${index}] was ignored: ${issue?.path.length ? `${issue.path.join(".")}: ` : ""}${issue?.message ?? "not a permission update"}`);
      return;
    }
    const u = parsed.data;
    if (u.type === "setMode") {
      if (u.mode === "bypassPermissions") problems.push(`updatedPermissions[${index}] was ignored: an answer cannot switch to bypassPermissions (start toolgate with --permission-mode bypassPermissions for that)`);
      else updates.push(u);
      return;
    }
    if (u.type === "addDirectories") {
      updates.push(u);
      return;
    }
    const rules: PermissionRuleValue[] = [];
    for (const rule of u.rules) {
      try {
        rules.push(parsePermissionRule(typeof rule === "string" ? rule : formatPermissionRule(rule)));
      } catch (err) {
        problems.push(`updatedPermissions[${index}] was ignored: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
    }
    updates.push({ type: "addRules", behavior: u.behavior, rules, destination: u.destination });
  });
  return { updates, problems };
}
