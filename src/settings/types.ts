import type { PermissionMode } from "../core/permissionTypes.js";

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
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

export interface HookCommandConfig {
  type: "command";
  command: string;
  /** Seconds; default 60. */
  timeout?: number;
}

export interface HookMatcherConfig {
  /** Empty or `*` = every tool; `A|B` = exact names; otherwise a regular expression. */
  matcher?: string;
  hooks: HookCommandConfig[];
}

export type HooksSettings = Partial<Record<HookEventName, HookMatcherConfig[]>>;

export interface PermissionsSettings {
  allow?: string[];
  deny?: string[];
  ask?: string[];
  defaultMode?: PermissionMode;
  additionalDirectories?: string[];
  /** toolgate's own: a deny or ask rule naming no tool is an error instead of a warning. */
  strict?: boolean;
}

/** Same JSON shape as Claude Code's settings.json for `permissions` and `hooks`; the rest is toolgate's. */
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

export interface Settings {
  permissions?: PermissionsSettings;
  hooks?: HooksSettings;
  /** Glob tool: search hidden files (default true) and apply .gitignore (default false). */
  glob?: { includeHidden?: boolean; respectGitignore?: boolean };
  /** Grep tool: kill ripgrep after this many milliseconds (default 20 000). */
  grep?: { timeoutMs?: number };
  /** MCP client: timeouts in milliseconds. */
  mcp?: { connectTimeoutMs?: number; callTimeoutMs?: number };
  /** ToolSearch: hand loaded tools back as tool_reference blocks, as schema text, or both (default). */
  toolSearch?: { resultFormat?: "references" | "schemas" | "both" };
  /** Bash (and opted-in stdio MCP servers) in an OS sandbox; the shape of Claude Code's `sandbox` settings. */
  sandbox?: SandboxSettings;
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
