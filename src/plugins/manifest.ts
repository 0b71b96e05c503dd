/**
 * `.claude-plugin/plugin.json`, Claude Code's plugin manifest: `name` (required), `version`, `description`,
 * `author`, and optional component paths (`commands`, `agents`, `skills`, `hooks`, `mcpServers`) that add to the
 * default folders. A manifest that cannot be used is one message; the caller skips the plugin.
 */
import fs from "node:fs";
import path from "node:path";

export const MANIFEST_FILE = path.join(".claude-plugin", "plugin.json");
const MAX_MANIFEST_BYTES = 256 * 1024;

/** Plugin and marketplace names: they become folder names and the `name:` prefix of commands, so no `/`, `:` or `..`. */
export const PLUGIN_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?!\.)){0,63}$/;

export interface PluginAuthor {
  name: string;
  email?: string;
  url?: string;
}

export interface PluginManifest {
  name: string;
  version?: string;
  description?: string;
  author?: PluginAuthor;
  /** Extra command files or folders, relative to the plugin root (the `commands/` folder is read too). */
  commands: string[];
  agents: string[];
  skills: string[];
  /** Hook files (relative paths) and inline hook objects. */
  hooks: Array<string | Record<string, unknown>>;
  /** Server files (relative paths) and inline `{name: server}` objects. */
  mcpServers: Array<string | Record<string, unknown>>;
}

export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManifestError";
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether `child` is `parent` or below it (both absolute, already resolved). */
export function isInsideFolder(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * A component path of the manifest, absolute. It must be relative and stay inside the plugin, also once
 * symlinks are followed: a plugin cannot point its hooks at `../../other/hooks.json`.
 */
export function resolvePluginPath(root: string, relative: string, field: string): string {
  if (path.isAbsolute(relative) || /^[A-Za-z]:/.test(relative)) throw new ManifestError(`${field}: ${JSON.stringify(relative)} must be a path relative to the plugin (./…)`);
  const target = path.resolve(root, relative);
  if (!isInsideFolder(target, root)) throw new ManifestError(`${field}: ${JSON.stringify(relative)} leads outside the plugin folder`);
  let real: string;
  try {
    real = fs.realpathSync(target);
  } catch {
    return target;
  }
  if (!isInsideFolder(real, fs.realpathSync(root))) throw new ManifestError(`${field}: ${JSON.stringify(relative)} links to ${real}, outside the plugin folder`);
  return target;
}

function paths(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || !list.every((v) => typeof v === "string" && v.trim() !== "")) throw new ManifestError(`${field} must be a path or a list of paths`);
  return list;
}

function pathsOrObjects(value: unknown, field: string): Array<string | Record<string, unknown>> {
  if (value === undefined) return [];
  const list = typeof value === "string" || isObject(value) ? [value] : value;
  if (!Array.isArray(list) || !list.every((v) => (typeof v === "string" && v.trim() !== "") || isObject(v))) throw new ManifestError(`${field} must be a path, an object, or a list of them`);
  return list;
}

function optionalText(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new ManifestError(`${field} must be text`);
  return value;
}

/** Check a parsed manifest. Unknown keys are allowed (Claude Code's manifests carry more: keywords, license, …). */
export function parseManifest(document: unknown, root: string): PluginManifest {
  if (!isObject(document)) throw new ManifestError("the manifest must be a JSON object");
  const { name } = document;
  if (typeof name !== "string" || !PLUGIN_NAME.test(name)) throw new ManifestError(`"name" must be letters, digits, - _ or . (at most 64, e.g. "deploy-tools"), got ${JSON.stringify(name)}`);
  const author = document.author;
  if (author !== undefined && !(isObject(author) && typeof author.name === "string") && typeof author !== "string") throw new ManifestError('"author" must be {"name": …}');
  const manifest: PluginManifest = {
    name,
    ...(optionalText(document.version, '"version"') !== undefined ? { version: document.version as string } : {}),
    ...(optionalText(document.description, '"description"') !== undefined ? { description: document.description as string } : {}),
    ...(author !== undefined ? { author: typeof author === "string" ? { name: author } : (author as unknown as PluginAuthor) } : {}),
    commands: paths(document.commands, '"commands"'),
    agents: paths(document.agents, '"agents"'),
    skills: paths(document.skills, '"skills"'),
    hooks: pathsOrObjects(document.hooks, '"hooks"'),
    mcpServers: pathsOrObjects(document.mcpServers, '"mcpServers"'),
  };
  // Every path is checked now, so a manifest that reaches outside its folder is refused as a whole.
  for (const [field, list] of [["commands", manifest.commands], ["agents", manifest.agents], ["skills", manifest.skills], ["hooks", manifest.hooks], ["mcpServers", manifest.mcpServers]] as const) {
    for (const entry of list) if (typeof entry === "string") resolvePluginPath(root, entry, `"${field}"`);
  }
  return manifest;
}

/** Read and check `<root>/.claude-plugin/plugin.json`; throws ManifestError with what to fix. */
export function readManifest(root: string): PluginManifest {
  const file = path.join(root, MANIFEST_FILE);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new ManifestError(`no ${MANIFEST_FILE} in ${root}`);
  }
  if (!stat.isFile()) throw new ManifestError(`${file} is not a regular file`);
  if (stat.size > MAX_MANIFEST_BYTES) throw new ManifestError(`${file} is larger than ${MAX_MANIFEST_BYTES} bytes`);
  let document: unknown;
  try {
    document = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new ManifestError(`${file} is not valid JSON (${(err as Error).message})`);
  }
  try {
    return parseManifest(document, root);
  } catch (err) {
    if (err instanceof ManifestError) throw new ManifestError(`${file}: ${err.message}`);
    throw err;
  }
}
