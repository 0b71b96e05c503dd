import { z } from "zod";

/** One language server: how to start it and which files it checks. */
export interface LspServerSettings {
  /** argv; a bare program name is looked up in the project's node_modules/.bin, then on PATH. */
  command: string[];
  /** File name endings it handles, with the dot: `.ts`. */
  extensions: string[];
  /** Files or folders that mark a project root (`tsconfig.json`); the nearest ancestor holding one is the server's root. Default: the session's directory. */
  rootPatterns?: string[];
  initializationOptions?: Record<string, unknown>;
  env?: Record<string, string>;
  /** How long an edit waits for the server's diagnostics (ms, default 2000). */
  waitMs?: number;
  /** How long the server may take to start before it counts as failed (ms, default 20000). */
  startTimeoutMs?: number;
  /** Restarts after a crash or a start that timed out (default 2). */
  maxRestarts?: number;
}

export const DEFAULT_WAIT_MS = 2_000;
export const DEFAULT_START_TIMEOUT_MS = 20_000;
export const DEFAULT_MAX_RESTARTS = 2;

const nonEmpty = z.string().trim().min(1, "must not be empty");

const serverSchema = z.looseObject({
  command: z.array(nonEmpty).min(1, "needs the program to run"),
  extensions: z.array(z.string().regex(/^\.[^/\\]+$/, "must start with a dot, like .ts")).min(1, "needs at least one extension"),
  rootPatterns: z.array(nonEmpty).optional(),
  initializationOptions: z.record(z.string(), z.unknown()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  waitMs: z.number().int().positive().max(60_000).optional(),
  startTimeoutMs: z.number().int().positive().max(600_000).optional(),
  maxRestarts: z.number().int().min(0).max(20).optional(),
});

/**
 * `lsp` in settings.json: language name → server. A server entry that does not fit is reported on the entry
 * itself, so loading drops that one server (not a field of it, which would leave it half-configured).
 */
export const lspSettingsSection = {
  key: "lsp",
  schema: z.record(nonEmpty, z.unknown()).superRefine((servers, ctx) => {
    for (const [name, value] of Object.entries(servers)) {
      const parsed = serverSchema.safeParse(value);
      if (parsed.success) continue;
      const why = parsed.error.issues.map((i) => `${i.path.length ? `${i.path.join(".")}: ` : ""}${i.message}`).join("; ");
      ctx.addIssue({ code: "custom", path: [name], message: `server ${name} is not usable (${why})` });
    }
  }),
};

/**
 * The configured servers from merged settings: `{}` when the section is absent. A server entry that does not
 * fit was already dropped (and reported) when the settings were loaded; a leftover misfit is skipped here.
 */
export function readLspSettings(settings: Readonly<Record<string, unknown>>): Record<string, LspServerSettings> {
  const section = settings.lsp;
  if (!section || typeof section !== "object" || Array.isArray(section)) return {};
  const out: Record<string, LspServerSettings> = {};
  for (const [name, value] of Object.entries(section)) {
    const parsed = serverSchema.safeParse(value);
    if (parsed.success) out[name] = parsed.data as LspServerSettings;
  }
  return out;
}
