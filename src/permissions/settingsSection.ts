import { z } from "zod";
import { PERMISSION_MODES } from "../core/permissionTypes.js";
import type { SettingsSection } from "../settings/index.js";
import { parsePermissionRule } from "./ruleParser.js";

const ruleString = z.string().superRefine((rule, ctx) => {
  try {
    parsePermissionRule(rule);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: err instanceof Error ? err.message : String(err) });
  }
});

const ruleList = z.array(ruleString);

/** `permissions` in settings.json: Claude Code's shape, plus toolgate's `strict`. */
export const permissionsSettingsSection: SettingsSection = {
  key: "permissions",
  schema: z.looseObject({
    allow: ruleList.optional(),
    deny: ruleList.optional(),
    ask: ruleList.optional(),
    defaultMode: z.enum(PERMISSION_MODES).optional(),
    additionalDirectories: z.array(z.string().trim().min(1, "must not be empty")).optional(),
    strict: z.boolean().optional(),
  }),
};
