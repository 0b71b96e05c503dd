import { z } from "zod";

const positiveMs = z.number().positive().finite();

/** `mcp` in settings.json: the client's timeouts in milliseconds. */
export const mcpSettingsSection = {
  key: "mcp",
  schema: z.looseObject({ connectTimeoutMs: positiveMs.optional(), callTimeoutMs: positiveMs.optional() }),
};
