import fs from "node:fs";
import path from "node:path";
import { getToolgateHome } from "../util/home.js";
import { parseJsonWithLocation } from "./json.js";
import { validateSettings, type SettingsSection } from "./schema.js";
import type { LoadedSettings, Settings, SettingsFile, SettingsFileSource, SettingsLoadError } from "./types.js";

export const DEFAULT_MANAGED_SETTINGS_PATH = "/etc/toolgate/managed-settings.json";

export interface LoadSettingsOptions {
  /** The project directory: `.toolgate/settings.json` and `.toolgate/settings.local.json` live under it. */
  cwd: string;
  /** toolgate's data home (TOOLGATE_HOME or ~/.toolgate); user settings are `<home>/settings.json`. */
  home?: string;
  /** `--settings FILE`, relative to cwd. Unlike the other sources, a missing file is an error. */
  settingsFile?: string;
  /** Defaults to TOOLGATE_MANAGED_SETTINGS, else /etc/toolgate/managed-settings.json. */
  managedSettingsPath?: string;
  env?: NodeJS.ProcessEnv;
  /** The sections to check each file against (the owners declare them); keys of no section are kept unchecked. */
  sections?: readonly SettingsSection[];
  /** `--setting-sources`: which of the user, project and local files to read (default all three). */
  settingSources?: readonly SettingSourceName[];
  /** `--managed-settings JSON` (or managed settings the Agent SDK sends): read after the managed file, so they win. */
  managedSettingsText?: string;
}

export type SettingSourceName = "user" | "project" | "local";
export const SETTING_SOURCE_NAMES: readonly SettingSourceName[] = ["user", "project", "local"];

/** `--settings '{"permissions":…}'`: JSON text rather than a file name. */
export function isInlineSettings(value: string): boolean {
  return value.trimStart().startsWith("{");
}

export interface SettingsFileLocation {
  source: SettingsFileSource;
  path: string;
  root: string;
  /** The file was named explicitly, so its absence is an error. */
  required: boolean;
  /** Settings given as JSON text on the command line: `path` is only a label. */
  text?: string;
}

/**
 * The directory `/x` patterns in a file are relative to: the project a `.toolgate/` folder belongs to
 * (`<cwd>` for project and local settings, `~` for `~/.toolgate/settings.json`), else the file's directory.
 */
export function settingsRootFor(file: string): string {
  const dir = path.dirname(file);
  return path.basename(dir) === ".toolgate" ? path.dirname(dir) : dir;
}

export function userSettingsPath(home: string): string {
  return path.join(home, "settings.json");
}

export function projectSettingsPath(cwd: string): string {
  return path.join(cwd, ".toolgate", "settings.json");
}

export function localSettingsPath(cwd: string): string {
  return path.join(cwd, ".toolgate", "settings.local.json");
}

/** Every settings file toolgate would read, lowest precedence first. */
export function settingsFileLocations(options: LoadSettingsOptions): SettingsFileLocation[] {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd);
  const home = path.resolve(options.home ?? getToolgateHome(env));
  const managed = path.resolve(options.managedSettingsPath ?? (env.TOOLGATE_MANAGED_SETTINGS || DEFAULT_MANAGED_SETTINGS_PATH));
  const wanted = new Set(options.settingSources ?? SETTING_SOURCE_NAMES);
  const locations: SettingsFileLocation[] = [
    ...(wanted.has("user") ? [{ source: "userSettings" as const, path: userSettingsPath(home), root: settingsRootFor(userSettingsPath(home)), required: false }] : []),
    ...(wanted.has("project") ? [{ source: "projectSettings" as const, path: projectSettingsPath(cwd), root: cwd, required: false }] : []),
    ...(wanted.has("local") ? [{ source: "localSettings" as const, path: localSettingsPath(cwd), root: cwd, required: false }] : []),
  ];
  if (options.settingsFile && isInlineSettings(options.settingsFile)) {
    locations.push({ source: "flagSettings", path: "--settings (JSON text)", root: cwd, required: true, text: options.settingsFile });
  } else if (options.settingsFile) {
    const file = path.resolve(cwd, options.settingsFile);
    locations.push({ source: "flagSettings", path: file, root: settingsRootFor(file), required: true });
  }
  locations.push({ source: "policySettings", path: managed, root: settingsRootFor(managed), required: false });
  if (options.managedSettingsText !== undefined) locations.push({ source: "policySettings", path: "--managed-settings (JSON text)", root: cwd, required: true, text: options.managedSettingsText });
  return locations;
}

export type ReadSettingsResult =
  | { status: "missing" }
  | { status: "ok"; settings: Settings; raw: Record<string, unknown>; text: string; problems: string[] }
  | { status: "error"; message: string };

/**
 * Read and validate one settings file. An empty file is `{}`; a file that is not a JSON object is an error
 * and contributes nothing; invalid entries of a valid file are dropped one by one and listed in `problems`.
 */
export function readSettingsFile(file: string, sections?: readonly SettingsSection[]): ReadSettingsResult {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTDIR: a parent is a file (TOOLGATE_HOME=/etc/hosts), so the file cannot exist either.
    if (code === "ENOENT" || code === "ENOTDIR") return { status: "missing" };
    if (code === "EISDIR") return { status: "error", message: "is a directory, not a settings file" };
    return { status: "error", message: `cannot be read (${code ?? (err as Error).message})` };
  }
  return parseSettingsText(text, sections);
}

/** Validate settings given as text (a file's content, or JSON from the command line); see readSettingsFile. */
export function parseSettingsText(text: string, sections?: readonly SettingsSection[]): ReadSettingsResult {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") return { status: "ok", settings: {}, raw: {}, text, problems: [] };
  const parsed = parseJsonWithLocation(text);
  if (!parsed.ok) return { status: "error", message: `invalid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.message}` };
  const validation = validateSettings(parsed.value, sections);
  if (!validation.ok) return { status: "error", message: `invalid settings: ${validation.problems.join("; ")}` };
  return { status: "ok", settings: validation.settings, raw: parsed.value as Record<string, unknown>, text, problems: validation.problems };
}

/**
 * Load every settings source, lowest precedence first: user, project, local, `--settings`, managed.
 * A file that exists but cannot be read or is not a JSON object is reported in `errors` (scope "file") and
 * contributes nothing, so sessions refuse to run tools until it is fixed (see createSession); each invalid
 * entry of a file that parses is reported there too (scope "entry") and dropped on its own. Which entries
 * are valid, the `sections` say; `loadSettings` (src/session/settings.ts) passes every section toolgate has.
 */
export function loadSettingsFiles(options: LoadSettingsOptions): LoadedSettings {
  const files: SettingsFile[] = [];
  const errors: SettingsLoadError[] = [];
  for (const location of settingsFileLocations(options)) {
    const result = location.text !== undefined ? parseSettingsText(location.text, options.sections) : readSettingsFile(location.path, options.sections);
    if (result.status === "missing") {
      if (location.required) errors.push({ source: location.source, path: location.path, message: "the settings file does not exist" });
      continue;
    }
    if (result.status === "error") {
      errors.push({ source: location.source, path: location.path, message: result.message });
      continue;
    }
    for (const problem of result.problems) errors.push({ source: location.source, path: location.path, message: problem, scope: "entry" });
    files.push({ source: location.source, path: location.path, root: location.root, settings: result.settings });
  }
  return { files, errors };
}

/** `/p/.toolgate/settings.json: invalid JSON at line 3, column 8: …`; what follows from it is the caller's to say. */
export function formatSettingsLoadError(error: SettingsLoadError): string {
  return `${error.path}: ${error.message}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function mergeValues(lower: unknown, higher: unknown): unknown {
  if (Array.isArray(lower) && Array.isArray(higher)) {
    const out = [...lower];
    for (const item of higher) if (!out.some((existing) => JSON.stringify(existing) === JSON.stringify(item))) out.push(item);
    return out;
  }
  if (isPlainObject(lower) && isPlainObject(higher)) {
    const out: Record<string, unknown> = { ...lower };
    for (const [key, value] of Object.entries(higher)) out[key] = key in out ? mergeValues(out[key], value) : value;
    return out;
  }
  return higher;
}

/**
 * One Settings value from every loaded file: later sources win per key, objects merge key by key and
 * arrays concatenate without duplicates (so hooks of every source run). Permission rules are read from
 * `loaded.files` by buildPermissionContext instead, so each keeps its source and file.
 */
export function mergeSettings(loaded: LoadedSettings): Settings {
  let merged: Record<string, unknown> = {};
  for (const file of loaded.files) merged = mergeValues(merged, file.settings) as Record<string, unknown>;
  return merged as Settings;
}
