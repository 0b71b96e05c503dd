import { z } from "zod";
import type { SettingsSection } from "../settings/index.js";

/** One command hook; the hook loader checks hooks with it too, for settings that did not come through a settings file. */
export const commandHookSchema = z.looseObject({
  type: z.literal("command"),
  command: z.string().trim().min(1, "must not be empty"),
  timeout: z.number().positive().finite().optional(),
});

/**
 * Command hooks are checked in full; other hook types keep their shape and are judged by the loader
 * ("prompt" hooks run, the rest are reported as unsupported), which also judges event names and matcher regexes.
 */
const hookSchema = z.looseObject({ type: z.string() }).superRefine((hook, ctx) => {
  if (hook.type !== "command") return;
  const parsed = commandHookSchema.safeParse(hook);
  if (parsed.success) return;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
});

/** `hooks` in settings.json, in Claude Code's shape. */
export const hooksSettingsSection: SettingsSection = {
  key: "hooks",
  schema: z.record(
    z.string(),
    z.array(
      z.looseObject({
        matcher: z.string().optional(),
        hooks: z.array(hookSchema),
      }),
    ),
  ),
};
