import { z } from "zod";

/** `cleanupPeriodDays` in settings.json: sessions of a project untouched for longer are deleted at the next start (default 30). */
export const cleanupSettingsSection = {
  key: "cleanupPeriodDays",
  schema: z.number().int().min(1),
};

export const DEFAULT_CLEANUP_PERIOD_DAYS = 30;

export function readCleanupPeriodDays(settings: Readonly<Record<string, unknown>>): number {
  const parsed = cleanupSettingsSection.schema.safeParse(settings.cleanupPeriodDays);
  return parsed.success ? parsed.data : DEFAULT_CLEANUP_PERIOD_DAYS;
}
