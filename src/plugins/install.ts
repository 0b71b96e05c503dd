/**
 * Installed plugins: a copy of each under `<home>/plugins/cache/<marketplace>/<plugin>`, listed in
 * `<home>/plugins/installed_plugins.json`. Whether one is on is `enabledPlugins` in the user's settings
 * (`{"name@marketplace": true}`), which install turns on and uninstall removes.
 */
import fs from "node:fs";
import path from "node:path";
import { writeFileAtomicSync } from "../util/atomicWrite.js";
import { userSettingsPath } from "../settings/load.js";
import { updateSettingsFile } from "../settings/write.js";
import { isInsideFolder, ManifestError, PLUGIN_NAME } from "./manifest.js";
import { addMarketplace, gitClone, openMarketplace, pluginsHome, readKnownMarketplaces } from "./marketplace.js";
import { declaredMarketplaces } from "./declared.js";
import { loadPlugin } from "./load.js";

export interface InstalledPlugin {
  /** The installed copy. */
  path: string;
  version?: string;
  installedAt: string;
}

const installedFile = (home: string) => path.join(pluginsHome(home), "installed_plugins.json");
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** `name@marketplace`, each part a plugin name (no `/`, `..`). */
export function parsePluginId(id: string): { name: string; marketplace: string } {
  const at = id.lastIndexOf("@");
  const name = id.slice(0, at);
  const marketplace = id.slice(at + 1);
  if (at <= 0 || !PLUGIN_NAME.test(name) || !PLUGIN_NAME.test(marketplace)) throw new ManifestError(`${JSON.stringify(id)} is not a plugin id: write name@marketplace (toolgate plugin list shows them)`);
  return { name, marketplace };
}

export function readInstalledPlugins(home: string): Record<string, InstalledPlugin> {
  try {
    const value = JSON.parse(fs.readFileSync(installedFile(home), "utf8"));
    const plugins = isObject(value) && isObject(value.plugins) ? value.plugins : {};
    // Only entries whose copy is inside the plugins folder count: the file cannot point a plugin id elsewhere.
    const cache = path.join(pluginsHome(home), "cache");
    return Object.fromEntries(Object.entries(plugins).filter(([, entry]) => isObject(entry) && typeof entry.path === "string" && isInsideFolder(path.resolve(entry.path), cache))) as Record<string, InstalledPlugin>;
  } catch {
    return {};
  }
}

function writeInstalledPlugins(home: string, plugins: Record<string, InstalledPlugin>): void {
  fs.mkdirSync(pluginsHome(home), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(installedFile(home), `${JSON.stringify({ plugins }, null, 2)}\n`);
}

/** Set `enabledPlugins[id]` in the user's settings (undefined removes it). */
export function setEnabledInUserSettings(home: string, id: string, enabled: boolean | undefined): string {
  const file = userSettingsPath(home);
  updateSettingsFile(file, (raw) => {
    const current = isObject(raw.enabledPlugins) ? { ...raw.enabledPlugins } : {};
    if (enabled === undefined) delete current[id];
    else current[id] = enabled;
    if (Object.keys(current).length) raw.enabledPlugins = current;
    else delete raw.enabledPlugins;
  });
  return file;
}

export interface InstallResult {
  id: string;
  path: string;
  version?: string;
  /** Manifest problems that did not stop the install (a bad hooks file, …). */
  problems: string[];
}

export interface InstallOptions {
  env?: NodeJS.ProcessEnv;
  /** The project folder, whose settings may declare the marketplace (default: none is read). */
  cwd?: string;
  /** Whether that folder is trusted: an untrusted project's declared marketplaces are refused. */
  trusted?: boolean;
}

/**
 * A marketplace not known yet that the user's settings, or a trusted project's, declare (extraKnownMarketplaces)
 * is added now, on the person's own `install`; a known one is never replaced by a declaration of the same name.
 */
function addDeclaredMarketplace(home: string, name: string, options: InstallOptions): void {
  if (readKnownMarketplaces(home)[name]) return;
  const declared = declaredMarketplaces({ home, cwd: options.cwd, trusted: options.trusted === true }).find((d) => d.name === name);
  if (!declared) return;
  if (declared.refused) throw new ManifestError(`marketplace ${name} is only declared by ${declared.file}, and it is not used: ${declared.refused}`);
  addMarketplace(home, declared.spec, {
    cwd: declared.scope === "user" ? home : options.cwd,
    env: options.env,
    expectName: name,
    ...(declared.scope === "project" ? { declaredBy: declared.file } : {}),
  });
}

/** `toolgate plugin install name@marketplace`: copy the plugin out of the marketplace, check it, enable it. */
export function installPlugin(home: string, id: string, options: InstallOptions = {}): InstallResult {
  const { name, marketplace: marketplaceName } = parsePluginId(id);
  addDeclaredMarketplace(home, marketplaceName, options);
  const marketplace = openMarketplace(home, marketplaceName);
  const entry = marketplace.plugins.find((p) => p.name === name);
  if (!entry) {
    const names = marketplace.plugins.map((p) => p.name);
    throw new ManifestError(`marketplace ${marketplaceName} has no plugin ${name}${names.length ? ` (it has: ${names.join(", ")})` : ""}`);
  }
  const cacheRoot = path.join(pluginsHome(home), "cache", marketplaceName);
  fs.mkdirSync(cacheRoot, { recursive: true, mode: 0o700 });
  const staging = fs.mkdtempSync(path.join(cacheRoot, `.${name}-`));
  const target = path.join(cacheRoot, name);
  try {
    const copy = path.join(staging, "plugin");
    if (entry.source.type === "git") {
      gitClone(entry.source.url, copy, options.env);
      fs.rmSync(path.join(copy, ".git"), { recursive: true, force: true });
    } else {
      // A symlinked plugin folder could lead out of the marketplace: the real path must stay inside it too.
      const real = fs.existsSync(entry.source.path) ? fs.realpathSync(entry.source.path) : entry.source.path;
      if (!isInsideFolder(real, fs.realpathSync(marketplace.root))) throw new ManifestError(`plugin ${name}'s source leads to ${real}, outside the marketplace ${marketplace.root}`);
      if (!fs.existsSync(real)) throw new ManifestError(`plugin ${name}'s source ${entry.source.path} does not exist`);
      fs.cpSync(real, copy, { recursive: true, filter: (src) => path.basename(src) !== ".git" });
    }
    // Checked before it replaces an installed copy: a broken manifest installs nothing.
    const loaded = loadPlugin(copy, { id, withoutMcp: true });
    if (loaded.name !== name) throw new ManifestError(`the marketplace lists ${name}, but its plugin.json is named ${loaded.name}`);
    fs.rmSync(target, { recursive: true, force: true });
    fs.renameSync(copy, target);
    const version = loaded.manifest.version ?? entry.version;
    const installed = readInstalledPlugins(home);
    installed[id] = { path: target, ...(version ? { version } : {}), installedAt: new Date().toISOString() };
    writeInstalledPlugins(home, installed);
    setEnabledInUserSettings(home, id, true);
    return { id, path: target, ...(version ? { version } : {}), problems: loaded.problems };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** `toolgate plugin uninstall name@marketplace`: delete the copy, forget it, drop it from enabledPlugins. */
export function uninstallPlugin(home: string, id: string): boolean {
  parsePluginId(id);
  const installed = readInstalledPlugins(home);
  const entry = installed[id];
  if (!entry) return false;
  fs.rmSync(entry.path, { recursive: true, force: true });
  delete installed[id];
  writeInstalledPlugins(home, installed);
  setEnabledInUserSettings(home, id, undefined);
  return true;
}

/** `toolgate plugin enable|disable name@marketplace`: only an installed plugin can be turned on. */
export function setPluginEnabled(home: string, id: string, enabled: boolean): string {
  parsePluginId(id);
  if (!readInstalledPlugins(home)[id]) throw new ManifestError(`${id} is not installed (toolgate plugin install ${id})`);
  return setEnabledInUserSettings(home, id, enabled);
}
