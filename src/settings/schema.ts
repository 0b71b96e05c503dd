import { z } from "zod";
import type { Settings } from "./types.js";

/** One top-level key of settings.json, declared by the part of toolgate that reads it (permissions, hooks, a tool). */
export interface SettingsSection {
  key: string;
  schema: z.ZodType;
}

const schemas = new WeakMap<readonly SettingsSection[], z.ZodType>();
const NO_SECTIONS: readonly SettingsSection[] = [];

/**
 * The settings schema for a set of sections. Objects stay loose: Claude Code settings carry keys toolgate
 * does not use (env, model, statusLine, …), and a key no section declares is kept as it is.
 */
export function buildSettingsSchema(sections: readonly SettingsSection[]): z.ZodType {
  let schema = schemas.get(sections);
  if (!schema) {
    schema = z.looseObject(Object.fromEntries(sections.map((section) => [section.key, section.schema.optional()])));
    schemas.set(sections, schema);
  }
  return schema;
}

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

/**
 * Validate a parsed settings value against the sections given; problems read like
 * `permissions.allow[2]: invalid permission rule …`. Keys no section declares are kept unchecked.
 */
export function validateSettings(value: unknown, sections: readonly SettingsSection[] = NO_SECTIONS): SettingsValidation {
  const settingsSchema = buildSettingsSchema(sections);
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
