/**
 * What a folder's own files may do before the person trusts it: only narrow. Project and local settings keep
 * their deny and ask rules, stricter modes, `sandbox.enabled: true` and options that change no power (limits,
 * timeouts, the edit dialect); everything else is set aside and listed, so the person can see what trusting
 * the folder would turn on. An allow-list, so a key toolgate learns later is ignored until it is placed here.
 */
import fs from "node:fs";
import path from "node:path";
import type { LoadedSettings, Settings, SettingsFile } from "../settings/types.js";
import { PROJECT_MCP_CONFIG_FILE } from "../mcp/client/config.js";

export interface IgnoredSetting {
  /** The file it is in. */
  file: string;
  /** `hooks`, `permissions.allow`, `MCP servers`, … */
  what: string;
  /** One line per entry: the rule, the hook command, the server and its command, the URL. */
  details: string[];
}

/** Sources a folder ships: its `.toolgate/settings.json` and `.toolgate/settings.local.json`. */
export const FOLDER_SOURCES: ReadonlySet<SettingsFile["source"]> = new Set(["projectSettings", "localSettings"]);

/** Top-level keys honoured as they are: they set limits and formats, never what may run or where. */
const NEUTRAL_KEYS = new Set(["models", "editTools", "grep", "glob", "toolSearch", "webFetch", "mcp", "outputStyle"]);
/** Modes no looser than the default: asking stays asking, or becomes denying / read-only. */
const NARROWING_MODES = new Set(["default", "plan", "dontAsk"]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const show = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

function hookDetails(hooks: unknown): string[] {
  if (!isObject(hooks)) return [show(hooks)];
  const out: string[] = [];
  for (const [event, matchers] of Object.entries(hooks)) {
    for (const matcher of Array.isArray(matchers) ? matchers : []) {
      const entry = matcher as { matcher?: unknown; hooks?: unknown };
      for (const hook of Array.isArray(entry.hooks) ? entry.hooks : []) {
        const command = (hook as { command?: unknown }).command;
        out.push(`${event}${entry.matcher ? ` (${show(entry.matcher)})` : ""}: ${show(command)}`);
      }
    }
  }
  return out.length ? out : [show(hooks)];
}

function lspDetails(lsp: unknown): string[] {
  if (!isObject(lsp)) return [show(lsp)];
  return Object.entries(lsp).map(([name, server]) => {
    const command = isObject(server) && Array.isArray(server.command) ? server.command.map(show).join(" ") : show(server);
    return `${name}: ${command}`;
  });
}

function providerDetails(provider: unknown): string[] {
  if (!isObject(provider)) return [show(provider)];
  return Object.entries(provider).map(([key, value]) => `${key}: ${show(value)}`);
}

/** Split one folder file into what applies now and what waits for trust. */
function restrictFile(file: SettingsFile): { settings: Settings; ignored: IgnoredSetting[] } {
  const kept: Settings = {};
  const ignored: IgnoredSetting[] = [];
  const set = (what: string, details: string[]) => ignored.push({ file: file.path, what, details });
  for (const [key, value] of Object.entries(file.settings)) {
    if (NEUTRAL_KEYS.has(key)) {
      kept[key] = value;
    } else if (key === "permissions" && isObject(value)) {
      const permissions: Record<string, unknown> = {};
      for (const [name, entry] of Object.entries(value)) {
        if (name === "deny" || name === "ask" || name === "strict") permissions[name] = entry;
        else if (name === "defaultMode" && NARROWING_MODES.has(String(entry))) permissions[name] = entry;
        else if (name === "allow") set("permissions.allow", Array.isArray(entry) ? entry.map(show) : [show(entry)]);
        else if (name === "additionalDirectories") set("permissions.additionalDirectories", Array.isArray(entry) ? entry.map(show) : [show(entry)]);
        else set(`permissions.${name}`, [show(entry)]);
      }
      kept.permissions = permissions;
    } else if (key === "sandbox" && isObject(value)) {
      const sandbox: Record<string, unknown> = {};
      for (const [name, entry] of Object.entries(value)) {
        if (name === "enabled" && entry === true) sandbox[name] = entry;
        else if (name === "autoAllowBashIfSandboxed" && entry === false) sandbox[name] = entry;
        else if (name === "enabled") set("sandbox.enabled", ["false: Bash would run outside the OS sandbox"]);
        else set(`sandbox.${name}`, [show(entry)]);
      }
      kept.sandbox = sandbox;
    } else if (key === "enabledPlugins" && isObject(value)) {
      // Turning a plugin off only narrows; turning one on (its hooks, its servers) waits for trust.
      const off = Object.fromEntries(Object.entries(value).filter(([, on]) => on === false));
      const on = Object.entries(value).filter(([, enabled]) => enabled !== false);
      if (Object.keys(off).length) kept.enabledPlugins = off;
      if (on.length) set("enabledPlugins", on.map(([id, enabled]) => `${id}: ${show(enabled)}`));
    } else if (key === "extraKnownMarketplaces" && isObject(value)) {
      // Where `name@marketplace` would come from: installing from one waits for trust (plugins.md).
      set("extraKnownMarketplaces", Object.entries(value).map(([name, entry]) => `${name}: ${show(isObject(entry) ? entry.source : entry)}`));
    } else if (key === "speculativeToolCalls" && value === false) {
      // Turning speculation off only narrows what runs.
      kept.speculativeToolCalls = false;
    } else if (key === "hooks") {
      set("hooks", hookDetails(value));
    } else if (key === "lsp") {
      set("lsp (language server commands)", lspDetails(value));
    } else if (key === "provider") {
      set("provider", providerDetails(value));
    } else {
      set(key, [show(value)]);
    }
  }
  return { settings: kept, ignored };
}

export interface RestrictedSettings {
  loaded: LoadedSettings;
  ignored: IgnoredSetting[];
}

/** The settings an untrusted folder gets: its own files narrowed, the user's, `--settings` and managed ones whole. */
export function restrictFolderSettings(loaded: LoadedSettings): RestrictedSettings {
  const ignored: IgnoredSetting[] = [];
  const files = loaded.files.map((file) => {
    if (!FOLDER_SOURCES.has(file.source)) return file;
    const restricted = restrictFile(file);
    ignored.push(...restricted.ignored);
    return { ...file, settings: restricted.settings };
  });
  return { loaded: { files, errors: loaded.errors }, ignored };
}

/** The servers the folder's `.mcp.json` would start, as the trust question shows them (nothing is expanded or run). */
export function folderMcpServers(cwd: string): IgnoredSetting | undefined {
  const file = path.join(cwd, PROJECT_MCP_CONFIG_FILE);
  let document: unknown;
  try {
    document = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return fs.existsSync(file) ? { file, what: "MCP servers", details: ["(the file does not parse)"] } : undefined;
  }
  const servers = isObject(document) && isObject(document.mcpServers) ? document.mcpServers : {};
  const details = Object.entries(servers).map(([name, server]) => {
    if (!isObject(server)) return name;
    if (typeof server.url === "string") return `${name}: ${server.url}`;
    const args = Array.isArray(server.args) ? server.args.map(show).join(" ") : "";
    return `${name}: ${show(server.command)}${args ? ` ${args}` : ""}`;
  });
  return details.length ? { file, what: "MCP servers", details } : undefined;
}

/** `hooks (2), permissions.allow (3), MCP servers (1)`: the short list for a one-line notice. */
export function summarizeIgnored(ignored: readonly IgnoredSetting[]): string {
  const counts = new Map<string, number>();
  for (const item of ignored) counts.set(item.what, (counts.get(item.what) ?? 0) + item.details.length);
  return [...counts].map(([what, n]) => `${what} (${n})`).join(", ");
}

/** The one line a run without a UI prints when it set something aside. */
export function untrustedNotice(folder: string, ignored: readonly IgnoredSetting[]): string {
  return `[toolgate] ${folder} is not a trusted folder, so what its own files turn on was ignored: ${summarizeIgnored(ignored)}. To use it, pass --trust (this run) or run toolgate trust add ${JSON.stringify(folder)}; toolgate doctor lists each entry.`;
}
