/**
 * `toolgate plugin …` and the UI's `/plugin …`: one function over the words after `plugin`, so both run the same
 * code. Marketplaces are added, plugins installed, enabled, disabled and uninstalled in toolgate's home and the
 * user's settings; a running session picks the change up at its next start.
 */
import { loadSettingsFiles, readSettingsFile, userSettingsPath } from "../settings/load.js";
import { decideTrust } from "../trust/decide.js";
import {
  addMarketplace,
  declaredMarketplaces,
  installPlugin,
  loadPlugin,
  readInstalledPlugins,
  readKnownMarketplaces,
  readMarketplace,
  removeMarketplace,
  updateMarketplace,
  setPluginEnabled,
  uninstallPlugin,
  ManifestError,
  type DeclaredMarketplace,
} from "./index.js";

export interface PluginCommandContext {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  json?: boolean;
  /** Whether `cwd` is a trusted folder (a session knows); decided from the trust store and settings when absent. */
  trusted?: boolean;
}

export interface PluginCommandResult {
  code: number;
  /** What to show: the output on success, the reason on failure. */
  text: string;
}

export const PLUGIN_USAGE = [
  "plugin list                                   installed plugins (enabled or not) and what each marketplace offers",
  "plugin marketplace add <folder-or-git-url>    remember a marketplace (a git repository is cloned)",
  "plugin marketplace list | update [name] | remove <name>",
  "plugin install <name@marketplace>             copy the plugin into ~/.toolgate/plugins and enable it",
  "plugin enable|disable <name@marketplace>      turn an installed plugin on or off (user settings: enabledPlugins)",
  "plugin uninstall <name@marketplace>",
  "plugin validate <folder>                      check a plugin folder's manifest and parts",
].join("\n");

function userSetting(home: string, key: string): Record<string, unknown> {
  const read = readSettingsFile(userSettingsPath(home));
  const value = read.status === "ok" ? read.raw[key] : undefined;
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function isTrusted(context: PluginCommandContext): boolean {
  if (context.trusted !== undefined) return context.trusted;
  return decideTrust({ cwd: context.cwd, home: context.home, loaded: loadSettingsFiles({ cwd: context.cwd, home: context.home, env: context.env }), userHome: context.env.HOME }).trusted;
}

/** The marketplaces settings declare that are not known yet (a known one wins its name). */
function declaredNotKnown(context: PluginCommandContext, known: Record<string, unknown>): DeclaredMarketplace[] {
  return declaredMarketplaces({ home: context.home, cwd: context.cwd, trusted: isTrusted(context) }).filter((d) => !(d.name in known));
}

/** One line for a declared marketplace: where it is declared and how it is added, or why it is not used. */
function declaredLine(d: DeclaredMarketplace): string {
  if (d.scope === "user") return `${d.name}  (extraKnownMarketplaces in your settings; toolgate plugin install <name>@${d.name} adds it)`;
  const where = `from the project: extraKnownMarketplaces in ${d.file}`;
  return d.refused ? `${d.name}  (${where}; not used: ${d.refused})` : `${d.name}  ${d.spec} (${where}; toolgate plugin install <name>@${d.name} adds it)`;
}

const sourceText = (e: { source: { type: string; url?: string; path?: string }; declaredBy?: string }) =>
  `${e.source.type === "git" ? e.source.url : e.source.path}${e.declaredBy ? ` (added from the project: ${e.declaredBy})` : ""}`;

function list(context: PluginCommandContext): PluginCommandResult {
  const installed = readInstalledPlugins(context.home);
  const enabled = userSetting(context.home, "enabledPlugins");
  const known = readKnownMarketplaces(context.home);
  const marketplaces = Object.entries(known).map(([name, entry]) => {
    try {
      const m = readMarketplace(entry.location);
      return { name, source: entry.source, plugins: m.plugins.map((p) => ({ name: p.name, id: `${p.name}@${name}`, description: p.description ?? "" })) };
    } catch (err) {
      return { name, source: entry.source, error: (err as Error).message, plugins: [] };
    }
  });
  const plugins = Object.entries(installed).map(([id, entry]) => ({ id, path: entry.path, version: entry.version, enabled: enabled[id] === true }));
  const declared = declaredNotKnown(context, known);
  if (context.json) return { code: 0, text: JSON.stringify({ plugins, marketplaces, declaredMarketplaces: declared }, null, 2) };
  const lines: string[] = [];
  lines.push(plugins.length ? "Installed plugins:" : "No plugins installed (toolgate plugin install name@marketplace).");
  for (const p of plugins) lines.push(`  ${p.id}${p.version ? ` ${p.version}` : ""}  ${p.enabled ? "enabled" : "disabled"}  ${p.path}`);
  lines.push(marketplaces.length ? "Marketplaces:" : "No marketplaces (toolgate plugin marketplace add <folder-or-git-url>).");
  for (const m of marketplaces) {
    lines.push(`  ${m.name}  (${sourceText(known[m.name]!)})${"error" in m ? `: ${m.error}` : ""}`);
    for (const p of m.plugins) lines.push(`    ${p.id}${installed[p.id] ? " [installed]" : ""}${p.description ? ` — ${p.description}` : ""}`);
  }
  for (const d of declared) lines.push(`  ${declaredLine(d)}`);
  return { code: 0, text: lines.join("\n") };
}

function validate(dir: string, context: PluginCommandContext): PluginCommandResult {
  const plugin = loadPlugin(dir, { env: context.env });
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const lines = [
    `${plugin.name}${plugin.manifest.version ? ` ${plugin.manifest.version}` : ""}: ${plugin.root}`,
    `  ${count(plugin.commandRoots.length, "command folder")}, ${count(plugin.agentRoots.length, "agent folder")}, ${count(plugin.skillRoots.length, "skills folder")}, ${count(plugin.hooks.length, "hooks file")}, ${count(plugin.mcpServers.length, "MCP server")}`,
    ...plugin.problems.map((p) => `  problem: ${p}`),
  ];
  return { code: plugin.problems.length ? 1 : 0, text: lines.join("\n") };
}

/** Runs `plugin <words…>`; never throws for the user's mistakes (they are the text of a failed result). */
export function runPluginCommand(words: readonly string[], context: PluginCommandContext): PluginCommandResult {
  const [verb, ...rest] = words;
  const needs = (what: string) => {
    if (!rest[0]) throw new ManifestError(`plugin ${verb} needs ${what}`);
    return rest[0];
  };
  try {
    switch (verb) {
      case undefined:
      case "list":
        return list(context);
      case "marketplace": {
        const [action, arg] = rest;
        if (action === "add") {
          if (!arg) throw new ManifestError("plugin marketplace add needs a folder or a git URL");
          const added = addMarketplace(context.home, arg, { cwd: context.cwd, env: context.env });
          const problems = added.marketplace.problems.map((p) => `\n  problem: ${p}`).join("");
          return { code: 0, text: `${added.replaced ? "Updated" : "Added"} marketplace ${added.name} (${added.marketplace.plugins.length} plugin${added.marketplace.plugins.length === 1 ? "" : "s"}: ${added.marketplace.plugins.map((p) => p.name).join(", ") || "none"}). Install one with: toolgate plugin install <name>@${added.name}${problems}` };
        }
        if (action === "update") {
          const names = arg ? [arg] : Object.keys(readKnownMarketplaces(context.home));
          const lines = names.map((name) => {
            const m = updateMarketplace(context.home, name, { env: context.env });
            return `Updated marketplace ${name} (${m.plugins.map((p) => p.name).join(", ") || "no plugins"}); toolgate plugin install <name>@${name} updates an installed plugin.`;
          });
          return { code: 0, text: lines.join("\n") || "No marketplaces." };
        }
        if (action === "remove") {
          if (!arg) throw new ManifestError("plugin marketplace remove needs a marketplace name");
          return removeMarketplace(context.home, arg) ? { code: 0, text: `Removed marketplace ${arg} (its installed plugins stay installed).` } : { code: 1, text: `No marketplace named ${arg}.` };
        }
        if (action === undefined || action === "list") {
          const known = readKnownMarketplaces(context.home);
          const declared = declaredNotKnown(context, known);
          // One map by name: the added ones as known_marketplaces.json has them, the declared ones not added yet
          // with `declared` (what adds it, where it is declared, why it is not used) and no source or location.
          if (context.json) return { code: 0, text: JSON.stringify({ ...known, ...Object.fromEntries(declared.map(({ name, ...d }) => [name, { declared: d }])) }, null, 2) };
          const names = [...Object.entries(known).map(([name, e]) => `${name}  ${sourceText(e)}`), ...declared.map(declaredLine)];
          return { code: 0, text: names.join("\n") || "No marketplaces." };
        }
        throw new ManifestError(`unknown action plugin marketplace ${action}; use add, list, update or remove`);
      }
      case "install": {
        const result = installPlugin(context.home, needs("name@marketplace"), { env: context.env, cwd: context.cwd, trusted: isTrusted(context) });
        const problems = result.problems.map((p) => `\n  problem: ${p}`).join("");
        return { code: 0, text: `Installed ${result.id}${result.version ? ` ${result.version}` : ""} in ${result.path} and enabled it; it is used from the next session on.${problems}` };
      }
      case "uninstall":
      case "remove": {
        const id = needs("name@marketplace");
        return uninstallPlugin(context.home, id) ? { code: 0, text: `Uninstalled ${id}.` } : { code: 1, text: `${id} is not installed.` };
      }
      case "enable":
      case "disable": {
        const id = needs("name@marketplace");
        const file = setPluginEnabled(context.home, id, verb === "enable");
        return { code: 0, text: `${verb === "enable" ? "Enabled" : "Disabled"} ${id} (${file}); it takes effect at the next session.` };
      }
      case "validate":
        return validate(needs("a plugin folder"), context);
      default:
        return { code: 2, text: `unknown plugin command ${JSON.stringify(verb)}. Use:\n${PLUGIN_USAGE}` };
    }
  } catch (err) {
    if (err instanceof ManifestError || (err as Error).name === "SettingsWriteError") return { code: 1, text: (err as Error).message };
    throw err;
  }
}
