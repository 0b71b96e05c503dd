import path from "node:path";
import { expandPath } from "../core/paths.js";
import { getToolgateHome } from "../core/context.js";
import type { AppState } from "../core/Tool.js";
import type {
  PermissionRule,
  PermissionRuleSource,
  PermissionUpdate,
  PermissionUpdateDestination,
  ToolPermissionContext,
} from "../core/permissionTypes.js";
import { localSettingsPath, projectSettingsPath, settingsRootFor, userSettingsPath } from "../settings/load.js";
import { SettingsWriteError, updateSettingsFile } from "../settings/write.js";
import { formatPermissionRule } from "./ruleParser.js";

/** Apply an update to a permission context (pure); rules and directories get `source` and `file`. */
export function applyPermissionUpdateToContext(
  ctx: ToolPermissionContext,
  update: PermissionUpdate,
  origin: { source: PermissionRuleSource; file?: string; root?: string } = { source: "session" },
): ToolPermissionContext {
  switch (update.type) {
    case "setMode":
      return { ...ctx, mode: update.mode };
    case "addRules": {
      const added: PermissionRule[] = [];
      for (const value of update.rules) {
        const text = formatPermissionRule(value);
        const exists = [...ctx.rules, ...added].some(
          (r) => r.source === origin.source && r.ruleBehavior === update.behavior && formatPermissionRule(r.ruleValue) === text,
        );
        if (exists) continue;
        const rule: PermissionRule = { source: origin.source, ruleBehavior: update.behavior, ruleValue: { ...value } };
        if (origin.file) rule.file = origin.file;
        rule.root = origin.root ?? ctx.cwd;
        added.push(rule);
      }
      return added.length ? { ...ctx, rules: [...ctx.rules, ...added] } : ctx;
    }
    case "addDirectories": {
      const dirs = [...ctx.additionalWorkingDirectories];
      for (const dir of update.directories) {
        // As settings loading resolves additionalDirectories: `~` expanded, relative to the file's root.
        const abs = expandPath(dir, origin.root ?? ctx.cwd);
        if (abs === ctx.cwd || dirs.some((d) => d.path === abs)) continue;
        dirs.push(origin.file ? { path: abs, source: origin.source, file: origin.file } : { path: abs, source: origin.source });
      }
      return { ...ctx, additionalWorkingDirectories: dirs };
    }
  }
}

export interface PermissionUpdateTarget {
  /** The project directory; defaults to the permission context's cwd. */
  cwd?: string;
  /** toolgate's data home for user settings; defaults to TOOLGATE_HOME or ~/.toolgate. */
  home?: string;
  /** The session (a ToolUseContext works); without it only the file is written. */
  getAppState?: () => AppState;
  setAppState?: (update: (prev: AppState) => AppState) => void;
}

export interface PermissionUpdateOutcome {
  destination: PermissionUpdateDestination;
  /** The settings file written, for file destinations. */
  file?: string;
}

export function settingsFileForDestination(destination: Exclude<PermissionUpdateDestination, "session">, cwd: string, home: string): string {
  if (destination === "localSettings") return localSettingsPath(cwd);
  if (destination === "projectSettings") return projectSettingsPath(cwd);
  return userSettingsPath(home);
}

function pushUnique(list: unknown, values: string[]): string[] {
  const out = Array.isArray(list) ? [...(list as string[])] : [];
  for (const value of values) if (!out.includes(value)) out.push(value);
  return out;
}

/**
 * Remember a permission update. `session` changes the session's ToolPermissionContext only; the file
 * destinations also write the JSON settings file atomically, keeping every other key, creating it when
 * missing and refusing (SettingsWriteError) to rewrite a file that is malformed now. The session's
 * context gets the rule too, with the file's source, so it applies at once.
 */
export function applyPermissionUpdate(update: PermissionUpdate, target: PermissionUpdateTarget): PermissionUpdateOutcome {
  const ctx = target.getAppState?.().toolPermissionContext;
  const cwd = path.resolve(target.cwd ?? ctx?.cwd ?? process.cwd());
  const setContext = (origin: { source: PermissionRuleSource; file?: string; root?: string }) => {
    target.setAppState?.((prev) => ({ ...prev, toolPermissionContext: applyPermissionUpdateToContext(prev.toolPermissionContext, update, origin) }));
  };
  if (update.destination === "session") {
    setContext({ source: "session", root: cwd });
    return { destination: "session" };
  }
  const destination = update.destination;
  const type: string = update.type;
  if (type === "setMode") {
    throw new SettingsWriteError(destination, "a mode change can only be remembered for the session (set permissions.defaultMode by hand)");
  }
  const file = settingsFileForDestination(destination, cwd, path.resolve(target.home ?? getToolgateHome()));
  updateSettingsFile(file, (raw) => {
    const permissions = (raw.permissions && typeof raw.permissions === "object" ? raw.permissions : {}) as Record<string, unknown>;
    if (update.type === "addRules") {
      permissions[update.behavior] = pushUnique(permissions[update.behavior], update.rules.map(formatPermissionRule));
    } else {
      permissions.additionalDirectories = pushUnique(permissions.additionalDirectories, update.directories);
    }
    raw.permissions = permissions;
  });
  setContext({ source: destination, file, root: settingsRootFor(file) });
  return { destination, file };
}
