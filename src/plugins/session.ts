/**
 * The plugins a session uses: the installed ones `enabledPlugins` turns on (later settings files win an id), then
 * every `--plugin-dir`. A plugin inside a folder the person has not trusted is that folder's own files: its
 * commands, agents and skills load (they are prompts), its hooks and MCP servers wait for trust.
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { SettingsSection } from "../settings/index.js";
import type { SettingsFile } from "../settings/types.js";
import type { IgnoredSetting } from "../trust/restrict.js";
import { isInsideFolder } from "./manifest.js";
import { readInstalledPlugins } from "./install.js";
import { loadPlugin, type LoadedPlugin } from "./load.js";

/** `enabledPlugins: {"name@marketplace": true}`: which installed plugins are on (Claude Code's key). */
export const enabledPluginsSettingsSection: SettingsSection = {
  key: "enabledPlugins",
  schema: z.record(z.string(), z.boolean()),
};

/** A plugin folder named on the command line. */
export interface PluginDir {
  dir: string;
  /** false for `--plugin-dir-no-mcp`. */
  mcp: boolean;
}

export interface SessionPlugins {
  plugins: LoadedPlugin[];
  /** Plugins that could not be loaded, enabled ids that are not installed, bad parts of a plugin. */
  warnings: string[];
  /** Hooks and servers of plugins inside the untrusted project folder, set aside. */
  untrusted: IgnoredSetting[];
}

export interface SessionPluginOptions {
  home: string;
  /** Settings files in precedence order (already narrowed for an untrusted folder). */
  files: readonly SettingsFile[];
  pluginDirs?: readonly PluginDir[];
  /** The project folder's real path, and whether it is trusted. */
  folder: string;
  trusted: boolean;
  env?: NodeJS.ProcessEnv;
}

/** `enabledPlugins` over every settings file: a later file's value for an id replaces an earlier one's. */
export function enabledPluginIds(files: readonly SettingsFile[]): Map<string, { enabled: boolean; file: string }> {
  const state = new Map<string, { enabled: boolean; file: string }>();
  for (const file of files) {
    const value = file.settings.enabledPlugins;
    if (value === null || typeof value !== "object" || Array.isArray(value)) continue;
    for (const [id, enabled] of Object.entries(value)) if (typeof enabled === "boolean") state.set(id, { enabled, file: file.path });
  }
  return state;
}

function realPath(target: string): string {
  try {
    return fs.realpathSync(target);
  } catch {
    return path.resolve(target);
  }
}

export function loadSessionPlugins(options: SessionPluginOptions): SessionPlugins {
  const warnings: string[] = [];
  const untrusted: IgnoredSetting[] = [];
  const plugins: LoadedPlugin[] = [];
  // An installed plugin is the person's own choice wherever the data home is; a --plugin-dir folder inside the
  // untrusted project is that folder's files.
  const add = (load: () => LoadedPlugin, what: string, fromFolder: boolean) => {
    let plugin: LoadedPlugin;
    try {
      plugin = load();
    } catch (err) {
      warnings.push(`${what}: ${(err as Error).message}; the plugin was skipped`);
      return;
    }
    const same = plugins.find((p) => p.name === plugin.name);
    if (same) {
      warnings.push(`plugin ${plugin.name} in ${plugin.root} was skipped: ${same.root} (${same.id}) has the same name`);
      return;
    }
    warnings.push(...plugin.problems.map((p) => `plugin ${plugin.name}: ${p}`));
    if (fromFolder && !options.trusted && isInsideFolder(realPath(plugin.root), options.folder)) {
      const manifest = path.join(plugin.root, ".claude-plugin", "plugin.json");
      const hookLines = plugin.hooks.flatMap((h) => hookCommands(h.hooks));
      if (hookLines.length) untrusted.push({ file: manifest, what: `plugin ${plugin.name} hooks`, details: hookLines });
      if (plugin.mcpServers.length) untrusted.push({ file: manifest, what: `plugin ${plugin.name} MCP servers`, details: plugin.mcpServers.map((s) => `${s.name}: ${s.config.type === "stdio" ? [s.config.command, ...s.config.args].join(" ") : "url" in s.config ? s.config.url : s.config.type}`) });
      plugin = { ...plugin, hooks: [], mcpServers: [] };
    }
    plugins.push(plugin);
  };

  const installed = readInstalledPlugins(options.home);
  for (const [id, { enabled, file }] of enabledPluginIds(options.files)) {
    if (!enabled) continue;
    const entry = installed[id];
    if (!entry) {
      warnings.push(`${file}: enabledPlugins turns on ${id}, which is not installed (toolgate plugin install ${id})`);
      continue;
    }
    add(() => loadPlugin(entry.path, { id, env: options.env }), `plugin ${id}`, false);
  }
  for (const { dir, mcp } of options.pluginDirs ?? []) add(() => loadPlugin(dir, { withoutMcp: !mcp, env: options.env }), `--plugin-dir ${dir}`, true);
  return { plugins, warnings, untrusted };
}

function hookCommands(hooks: unknown): string[] {
  if (hooks === null || typeof hooks !== "object") return [];
  const out: string[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    for (const group of Array.isArray(groups) ? groups : []) {
      for (const hook of Array.isArray(group?.hooks) ? group.hooks : []) if (typeof hook?.command === "string") out.push(`${event}: ${hook.command}`);
    }
  }
  return out;
}
