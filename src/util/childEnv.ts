/**
 * The model API credentials toolgate itself holds are not handed to the processes it starts (Bash commands,
 * hooks, MCP servers, language servers): a command the model wrote, or a server a project ships, would
 * otherwise read the key from its environment. A variable stays when the user names it in `passEnv`
 * (settings), and an MCP or LSP entry may set one explicitly in its own `env`.
 */
import { z } from "zod";
import type { SettingsSection } from "../settings/index.js";

const SECRET_NAMES = new Set(["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"]);

/** Whether a variable is one of the credentials kept from child processes. */
export function isCredentialVariable(name: string): boolean {
  return SECRET_NAMES.has(name) || /_AUTH_TOKEN$/.test(name);
}

/** `env` without the credentials, except those in `pass`. */
export function withoutCredentials(env: NodeJS.ProcessEnv, pass: readonly string[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (isCredentialVariable(name) && !pass.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

/** `passEnv` in settings.json: credential variables Bash commands and hooks may see, e.g. `["OPENAI_API_KEY"]`. */
export const passEnvSettingsSection: SettingsSection = {
  key: "passEnv",
  schema: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name")),
};

/** The merged settings' `passEnv`, or none. */
export function readPassEnv(settings: Readonly<Record<string, unknown>> | undefined): string[] {
  const parsed = passEnvSettingsSection.schema.safeParse(settings?.passEnv ?? []);
  return parsed.success ? (parsed.data as string[]) : [];
}
