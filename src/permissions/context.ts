import path from "node:path";
import { expandPath } from "../core/paths.js";
import type {
  PermissionBehavior,
  PermissionMode,
  PermissionRule,
  ToolPermissionContext,
  WorkingDirectory,
} from "../core/permissionTypes.js";
import type { LoadedSettings, SettingsFileSource } from "../settings/types.js";
import { parsePermissionRule, splitRuleList } from "./ruleParser.js";

export interface BuildPermissionContextOptions {
  loaded: LoadedSettings;
  cwd: string;
  /** `--permission-mode`; without it the settings' defaultMode, else "default". */
  mode?: PermissionMode;
  /** `--allowedTools` (source "cliArg"); entries may hold several rules separated by commas or spaces. */
  allowedTools?: readonly string[];
  /** `--disallowedTools` (source "cliArg"). */
  disallowedTools?: readonly string[];
  /** `--add-dir`, relative to cwd. */
  addDirs?: readonly string[];
  nonInteractive: boolean;
}

const BEHAVIORS: readonly PermissionBehavior[] = ["allow", "deny", "ask"];

/**
 * The mode from the highest settings source that sets `permissions.defaultMode`. A project's shared
 * `.toolgate/settings.json` cannot switch prompts off: its `bypassPermissions` is not honoured.
 */
export function resolveDefaultMode(loaded: LoadedSettings): { mode: PermissionMode; source?: SettingsFileSource; file?: string } {
  for (const file of [...loaded.files].reverse()) {
    const mode = file.settings.permissions?.defaultMode;
    if (!mode) continue;
    if (mode === "bypassPermissions" && file.source === "projectSettings") continue;
    return { mode, source: file.source, file: file.path };
  }
  return { mode: "default" };
}

/** Every rule of every loaded file, each with its source, file and pattern root. */
export function rulesFromSettings(loaded: LoadedSettings): PermissionRule[] {
  const rules: PermissionRule[] = [];
  for (const file of loaded.files) {
    for (const behavior of BEHAVIORS) {
      for (const text of file.settings.permissions?.[behavior] ?? []) {
        rules.push({ source: file.source, ruleBehavior: behavior, ruleValue: parsePermissionRule(text), file: file.path, root: file.root });
      }
    }
  }
  return rules;
}

/** CLI rules; throws PermissionRuleParseError for an invalid one (the CLI reports it and stops). */
export function rulesFromCli(allowedTools: readonly string[] = [], disallowedTools: readonly string[] = [], cwd: string): PermissionRule[] {
  const make = (behavior: PermissionBehavior, values: readonly string[]) =>
    splitRuleList(values).map((text): PermissionRule => ({ source: "cliArg", ruleBehavior: behavior, ruleValue: parsePermissionRule(text), root: cwd }));
  return [...make("allow", allowedTools), ...make("deny", disallowedTools)];
}

/** The ToolPermissionContext of a session: rules from every settings file and the CLI, mode, working directories. */
export function buildPermissionContext(options: BuildPermissionContextOptions): ToolPermissionContext {
  const cwd = path.resolve(options.cwd);
  const directories: WorkingDirectory[] = [];
  const addDirectory = (dir: WorkingDirectory) => {
    if (dir.path === cwd || directories.some((d) => d.path === dir.path)) return;
    directories.push(dir);
  };
  for (const file of options.loaded.files) {
    for (const dir of file.settings.permissions?.additionalDirectories ?? []) {
      addDirectory({ path: expandPath(dir, file.root), source: file.source, file: file.path });
    }
  }
  for (const dir of options.addDirs ?? []) addDirectory({ path: expandPath(dir, cwd), source: "cliArg" });
  return {
    mode: options.mode ?? resolveDefaultMode(options.loaded).mode,
    cwd,
    additionalWorkingDirectories: directories,
    rules: [...rulesFromSettings(options.loaded), ...rulesFromCli(options.allowedTools, options.disallowedTools, cwd)],
    shouldAvoidPermissionPrompts: options.nonInteractive,
  };
}
