/**
 * `${VAR}` and `${VAR:-default}` in .mcp.json strings, the same syntax Claude Code accepts.
 * A variable that is unset and has no default is reported, not silently replaced by "".
 */

export interface Expansion {
  value: string;
  /** Variables referenced without a default that are not set. */
  missing: string[];
}

const REFERENCE = /\$\{([^}:]+)(?::-([^}]*))?\}/g;

export function expandEnvVars(text: string, env: NodeJS.ProcessEnv): Expansion {
  const missing: string[] = [];
  const value = text.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
    const key = name.trim();
    const current = env[key];
    // As in the shell, `:-` also replaces a variable that is set but empty.
    if (fallback !== undefined) return current ? current : fallback;
    if (current !== undefined) return current;
    missing.push(key);
    return whole;
  });
  return { value, missing };
}
