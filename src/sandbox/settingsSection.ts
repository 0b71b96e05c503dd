import { z } from "zod";

/** `sandbox` in settings.json, in the shape of Claude Code's. */
export interface SandboxSettings {
  /** Default: on wherever the platform supports it. */
  enabled?: boolean;
  /** A Bash command no rule covers runs without asking, contained by the sandbox (default true). */
  autoAllowBashIfSandboxed?: boolean;
  /** Commands (Bash rule syntax: `docker:*`) that run outside the sandbox under the normal rules. */
  excludedCommands?: string[];
  /** Honour a Bash call's `dangerouslyDisableSandbox: true` (it then always asks). Default false. */
  allowUnsandboxedCommands?: boolean;
  network?: { allowedDomains?: string[]; allowUnixSockets?: string[]; allowLocalBinding?: boolean };
}

const nonEmpty = z.string().trim().min(1, "must not be empty");

export const sandboxSettingsSection = {
  key: "sandbox",
  schema: z.looseObject({
    enabled: z.boolean().optional(),
    autoAllowBashIfSandboxed: z.boolean().optional(),
    excludedCommands: z.array(nonEmpty).optional(),
    allowUnsandboxedCommands: z.boolean().optional(),
    network: z
      .looseObject({
        allowedDomains: z.array(nonEmpty).optional(),
        allowUnixSockets: z.array(z.string()).optional(),
        allowLocalBinding: z.boolean().optional(),
      })
      .optional(),
  }),
};

/** The merged settings' `sandbox` section, or `{}` when it is absent or (already reported at load) does not fit. */
export function readSandboxSettings(settings: Readonly<Record<string, unknown>>): SandboxSettings {
  const parsed = sandboxSettingsSection.schema.safeParse(settings.sandbox ?? {});
  return parsed.success ? (parsed.data as SandboxSettings) : {};
}
