/**
 * One plugin folder, read: its manifest and where each component lives. `commands/`, `agents/`, `skills/`,
 * `hooks/hooks.json` and `.mcp.json` are the defaults; manifest paths add to them. Nothing here runs anything.
 */
import fs from "node:fs";
import path from "node:path";
import { parseMcpConfig, type McpConfigError, type ScopedMcpServerConfig } from "../mcp/client/config.js";
import { ManifestError, readManifest, resolvePluginPath, type PluginManifest } from "./manifest.js";

/** The variable plugin hooks and MCP servers get (and `${…}` in them is expanded from): the plugin's folder. */
export const PLUGIN_ROOT_VARIABLE = "CLAUDE_PLUGIN_ROOT";

/** A folder of markdown files, or one file of it (`only`). */
export interface ComponentRoot {
  root: string;
  only?: string;
}

export interface PluginHooksFile {
  /** Where the hooks are written: the hooks file, or the manifest for inline hooks. */
  file: string;
  /** The `hooks` value, Claude Code's shape (validated by the hook runner). */
  hooks: unknown;
}

export interface LoadedPlugin {
  name: string;
  /** `name@marketplace`; `name@inline` for a `--plugin-dir` plugin. */
  id: string;
  /** Absolute path of the plugin folder. */
  root: string;
  manifest: PluginManifest;
  commandRoots: ComponentRoot[];
  agentRoots: ComponentRoot[];
  skillRoots: string[];
  hooks: PluginHooksFile[];
  /** Named `plugin:<plugin>:<server>`, so they cannot take the name of one of the user's servers. */
  mcpServers: ScopedMcpServerConfig[];
  /** Parts that could not be used (the rest of the plugin loads), one line each. */
  problems: string[];
}

export interface LoadPluginOptions {
  /** `name@marketplace`; default `name@inline`. */
  id?: string;
  /** Leave the MCP servers out (`--plugin-dir-no-mcp`). */
  withoutMcp?: boolean;
  /** For `${VAR}` in the server entries. */
  env?: NodeJS.ProcessEnv;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The server name a plugin's server gets: Claude Code's, so its tools are `mcp__plugin_<plugin>_<server>__<tool>`. */
export function pluginServerName(plugin: string, server: string): string {
  return `plugin:${plugin}:${server}`;
}

function isDirectory(target: string): boolean {
  try {
    return fs.statSync(target).isDirectory();
  } catch {
    return false;
  }
}

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

function componentRoots(root: string, defaultFolder: string, extra: readonly string[], field: string): ComponentRoot[] {
  const roots: ComponentRoot[] = [];
  const folder = path.join(root, defaultFolder);
  if (isDirectory(folder)) roots.push({ root: folder });
  for (const entry of extra) {
    const target = resolvePluginPath(root, entry, field);
    if (roots.some((r) => r.root === target && !r.only)) continue;
    roots.push(isDirectory(target) ? { root: target } : { root: path.dirname(target), only: path.basename(target) });
  }
  return roots;
}

/** The default file and a manifest path naming the same file count once. */
function unique(root: string, sources: ReadonlyArray<string | Record<string, unknown>>): Array<string | Record<string, unknown>> {
  const seen = new Set<string>();
  return sources.filter((s) => typeof s !== "string" || (!seen.has(path.resolve(root, s)) && Boolean(seen.add(path.resolve(root, s)))));
}

/** Claude Code's hooks files hold `{hooks: {...}}`; inline manifest hooks may be that or the events map itself. */
function hooksValue(value: unknown): unknown {
  return isObject(value) && isObject(value.hooks) ? value.hooks : value;
}

/** `.mcp.json` of a plugin: `{mcpServers: {...}}` or the servers map itself. */
function serversDocument(value: unknown): unknown {
  return isObject(value) && !isObject(value.mcpServers) ? { mcpServers: value } : value;
}

/**
 * Read a plugin folder. Throws ManifestError when the plugin cannot be used at all (no manifest, a bad one, a
 * path leading out of the folder); a bad hooks or server file is a problem line and the rest still loads.
 */
export function loadPlugin(rootDir: string, options: LoadPluginOptions = {}): LoadedPlugin {
  const root = path.resolve(rootDir);
  if (!isDirectory(root)) throw new ManifestError(`${root} is not a folder`);
  const manifest = readManifest(root);
  const manifestFile = path.join(root, ".claude-plugin", "plugin.json");
  const problems: string[] = [];
  const commandRoots = componentRoots(root, "commands", manifest.commands, '"commands"');
  const agentRoots = componentRoots(root, "agents", manifest.agents, '"agents"');
  const skillRoots = componentRoots(root, "skills", manifest.skills, '"skills"').map((r) => (r.only ? path.join(r.root, r.only) : r.root));

  const hooks: PluginHooksFile[] = [];
  const hookSources: Array<string | Record<string, unknown>> = [...(fs.existsSync(path.join(root, "hooks", "hooks.json")) ? ["./hooks/hooks.json"] : []), ...manifest.hooks];
  for (const source of unique(root, hookSources)) {
    if (typeof source !== "string") {
      hooks.push({ file: manifestFile, hooks: hooksValue(source) });
      continue;
    }
    const file = resolvePluginPath(root, source, '"hooks"');
    try {
      hooks.push({ file, hooks: hooksValue(readJson(file)) });
    } catch (err) {
      problems.push(`${file}: ${(err as Error).message}; the plugin's hooks in it are ignored`);
    }
  }

  const mcpServers: ScopedMcpServerConfig[] = [];
  if (!options.withoutMcp) {
    const env = { ...(options.env ?? process.env), [PLUGIN_ROOT_VARIABLE]: root };
    const serverSources: Array<string | Record<string, unknown>> = [...(fs.existsSync(path.join(root, ".mcp.json")) ? ["./.mcp.json"] : []), ...manifest.mcpServers];
    const errors: McpConfigError[] = [];
    for (const source of unique(root, serverSources)) {
      let document: unknown;
      let from = manifestFile;
      if (typeof source === "string") {
        from = resolvePluginPath(root, source, '"mcpServers"');
        try {
          document = readJson(from);
        } catch (err) {
          problems.push(`${from}: ${(err as Error).message}; the plugin's MCP servers in it are ignored`);
          continue;
        }
      } else {
        document = source;
      }
      const parsed = parseMcpConfig(serversDocument(document), from, env, root);
      errors.push(...parsed.errors);
      for (const server of parsed.servers) {
        const config = server.config.type === "stdio" ? { ...server.config, env: { [PLUGIN_ROOT_VARIABLE]: root, ...server.config.env }, cwd: server.config.cwd ?? root } : server.config;
        mcpServers.push({ ...server, name: pluginServerName(manifest.name, server.name), config });
      }
    }
    for (const error of errors) problems.push(`${error.source}: ${error.server ? `server "${error.server}": ` : ""}${error.message}; it was not started`);
  }

  return { name: manifest.name, id: options.id ?? `${manifest.name}@inline`, root, manifest, commandRoots, agentRoots, skillRoots, hooks, mcpServers, problems };
}
