/** Settings sources that are files, lowest precedence first. */
export const SETTINGS_FILE_SOURCES = ["userSettings", "projectSettings", "localSettings", "flagSettings", "policySettings"] as const;
export type SettingsFileSource = (typeof SETTINGS_FILE_SOURCES)[number];

export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "PermissionDenied",
  "UserPromptSubmit",
  "SessionStart",
  "Stop",
  "SubagentStop",
  "PreCompact",
  "SessionEnd",
  "Notification",
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

export interface HookCommandConfig {
  type: "command";
  command: string;
  /** Seconds; default 60. */
  timeout?: number;
}

/** Claude Code's prompt hook: one model request judges the event and answers `{"ok": boolean, "reason"?}`. */
export interface HookPromptConfig {
  type: "prompt";
  /** `$ARGUMENTS` is replaced by the hook input JSON; without it the input is appended. */
  prompt: string;
  /** Seconds; default 30. */
  timeout?: number;
}

export type HookConfig = HookCommandConfig | HookPromptConfig;

export interface HookMatcherConfig {
  /** Empty or `*` = every tool; `A|B` = exact names; otherwise a regular expression. */
  matcher?: string;
  hooks: HookConfig[];
}

export type HooksSettings = Partial<Record<HookEventName, HookMatcherConfig[]>>;

export interface PermissionsSettings {
  allow?: string[];
  deny?: string[];
  ask?: string[];
  /** One of the permission modes (checked by the permissions section). */
  defaultMode?: "default" | "acceptEdits" | "plan" | "bypassPermissions" | "dontAsk" | "auto";
  additionalDirectories?: string[];
  /** toolgate's own: a deny or ask rule naming no tool is an error instead of a warning. */
  strict?: boolean;
}

/**
 * Same JSON shape as Claude Code's settings.json for `permissions` and `hooks`. Every other key belongs to
 * the part of toolgate that declares it (a tool's options, `mcp`, `sandbox`) and is read through its schema.
 */
export interface Settings {
  permissions?: PermissionsSettings;
  hooks?: HooksSettings;
  [key: string]: unknown;
}

export interface SettingsFile {
  source: SettingsFileSource;
  /** Absolute path of the file. */
  path: string;
  /** Directory that `/x` permission patterns in this file are relative to. */
  root: string;
  settings: Settings;
}

export interface SettingsLoadError {
  source: SettingsFileSource;
  path: string;
  message: string;
  /** "file" (default): the file contributes nothing. "entry": one invalid entry was dropped, the rest applies. */
  scope?: "file" | "entry";
}

export interface LoadedSettings {
  /** Files that loaded, lowest precedence first. */
  files: SettingsFile[];
  /** Files that could not be used at all, and invalid entries dropped from files that could. */
  errors: SettingsLoadError[];
}
