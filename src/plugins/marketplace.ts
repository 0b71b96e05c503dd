/**
 * Marketplaces: a folder or git repository with `.claude-plugin/marketplace.json` listing plugins
 * (`{name, source, description}`). The known ones are kept in `<home>/plugins/known_marketplaces.json`; a git
 * marketplace is cloned into `<home>/plugins/marketplaces/<name>`, a local folder is read where it is.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { writeFileAtomicSync } from "../util/atomicWrite.js";
import { withoutCredentials } from "../util/childEnv.js";
import { isInsideFolder, ManifestError, PLUGIN_NAME } from "./manifest.js";

export const MARKETPLACE_FILE = path.join(".claude-plugin", "marketplace.json");
const MAX_MARKETPLACE_BYTES = 1024 * 1024;
const GIT_TIMEOUT_MS = 120_000;

/** Where a plugin of a marketplace comes from: a folder inside the marketplace, or a git repository of its own. */
export type PluginSource = { type: "path"; path: string } | { type: "git"; url: string };

export interface MarketplaceEntry {
  name: string;
  description?: string;
  version?: string;
  source: PluginSource;
}

export interface Marketplace {
  name: string;
  /** The folder holding `.claude-plugin/marketplace.json`. */
  root: string;
  plugins: MarketplaceEntry[];
  /** Entries that cannot be installed, one line each. */
  problems: string[];
}

export type MarketplaceSource = { type: "directory"; path: string } | { type: "git"; url: string };

export interface KnownMarketplace {
  source: MarketplaceSource;
  /** The folder read: the local folder itself, or the clone. */
  location: string;
  addedAt: string;
  /** The project settings file whose `extraKnownMarketplaces` named it, when it was added from there. */
  declaredBy?: string;
}

export function pluginsHome(home: string): string {
  return path.join(home, "plugins");
}

const knownFile = (home: string) => path.join(pluginsHome(home), "known_marketplaces.json");
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export function readKnownMarketplaces(home: string): Record<string, KnownMarketplace> {
  try {
    const value = JSON.parse(fs.readFileSync(knownFile(home), "utf8"));
    return isObject(value) ? (value as Record<string, KnownMarketplace>) : {};
  } catch {
    return {};
  }
}

function writeKnownMarketplaces(home: string, known: Record<string, KnownMarketplace>): void {
  fs.mkdirSync(pluginsHome(home), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(knownFile(home), `${JSON.stringify(known, null, 2)}\n`);
}

function entrySource(raw: unknown, root: string): PluginSource {
  if (typeof raw === "string") {
    if (path.isAbsolute(raw)) throw new ManifestError(`source ${JSON.stringify(raw)} must be a path inside the marketplace (./…)`);
    const target = path.resolve(root, raw);
    if (!isInsideFolder(target, root)) throw new ManifestError(`source ${JSON.stringify(raw)} leads outside the marketplace folder`);
    return { type: "path", path: target };
  }
  if (isObject(raw)) {
    if ((raw.source === "git" || raw.source === "url") && typeof raw.url === "string") return { type: "git", url: raw.url };
    if (raw.source === "github" && typeof raw.repo === "string" && /^[\w.-]+\/[\w.-]+$/.test(raw.repo)) return { type: "git", url: `https://github.com/${raw.repo}.git` };
  }
  throw new ManifestError(`source must be a path inside the marketplace, {"source": "git", "url": …} or {"source": "github", "repo": "owner/name"}`);
}

/** Read `<root>/.claude-plugin/marketplace.json`; throws ManifestError when it cannot be used at all. */
export function readMarketplace(root: string): Marketplace {
  const file = path.join(root, MARKETPLACE_FILE);
  let text: string;
  try {
    if (fs.statSync(file).size > MAX_MARKETPLACE_BYTES) throw new ManifestError(`${file} is larger than ${MAX_MARKETPLACE_BYTES} bytes`);
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if (err instanceof ManifestError) throw err;
    throw new ManifestError(`no ${MARKETPLACE_FILE} in ${root}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    throw new ManifestError(`${file} is not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(document)) throw new ManifestError(`${file} must hold a JSON object`);
  if (typeof document.name !== "string" || !PLUGIN_NAME.test(document.name)) throw new ManifestError(`${file}: "name" must be letters, digits, - _ or . (at most 64), got ${JSON.stringify(document.name)}`);
  // `name@inline` is how a --plugin-dir plugin is named.
  if (document.name === "inline") throw new ManifestError(`${file}: "inline" is reserved for --plugin-dir plugins; name the marketplace otherwise`);
  if (!Array.isArray(document.plugins)) throw new ManifestError(`${file}: "plugins" must be a list`);
  const plugins: MarketplaceEntry[] = [];
  const problems: string[] = [];
  document.plugins.forEach((raw, index) => {
    const where = `${file}: plugins[${index}]`;
    if (!isObject(raw) || typeof raw.name !== "string" || !PLUGIN_NAME.test(raw.name)) {
      problems.push(`${where}: "name" must be letters, digits, - _ or .; the entry is ignored`);
      return;
    }
    try {
      plugins.push({
        name: raw.name,
        source: entrySource(raw.source, root),
        ...(typeof raw.description === "string" ? { description: raw.description } : {}),
        ...(typeof raw.version === "string" ? { version: raw.version } : {}),
      });
    } catch (err) {
      problems.push(`${where} (${raw.name}): ${(err as Error).message}; the entry is ignored`);
    }
  });
  return { name: document.name, root, plugins, problems };
}

/** A local path (a marketplace folder, or its marketplace.json) when `spec` names one on disk. */
function localMarketplaceRoot(spec: string, cwd: string): string | undefined {
  const target = path.resolve(cwd, spec.replace(/^~(?=\/|$)/, process.env.HOME ?? "~"));
  if (!fs.existsSync(target)) return undefined;
  if (fs.statSync(target).isFile()) return path.basename(target) === "marketplace.json" ? path.dirname(path.dirname(target)) : undefined;
  return target;
}

/** `owner/repo` is GitHub's shorthand, as in Claude Code. */
export function gitUrlFor(spec: string): string | undefined {
  if (/^[\w.-]+\/[\w.-]+$/.test(spec)) return `https://github.com/${spec}.git`;
  if (/^(https?|ssh|git|file):\/\//.test(spec) || /^[\w.-]+@[\w.-]+:/.test(spec) || spec.endsWith(".git")) return spec;
  return undefined;
}

/** `git clone` of a marketplace or plugin: shallow, no submodules, no prompts, none of toolgate's credentials. */
export function gitClone(url: string, dest: string, env: NodeJS.ProcessEnv = process.env): void {
  try {
    execFileSync("git", ["-c", "core.hooksPath=/dev/null", "-c", "protocol.ext.allow=never", "clone", "--quiet", "--depth", "1", "--no-recurse-submodules", "--", url, dest], {
      env: { ...withoutCredentials(env), GIT_TERMINAL_PROMPT: "0" },
      stdio: ["ignore", "ignore", "pipe"],
      timeout: GIT_TIMEOUT_MS,
    });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new ManifestError(`git clone ${url} failed${stderr ? `: ${stderr.split("\n").at(-1)}` : ""}`);
  }
}

export interface AddedMarketplace {
  name: string;
  marketplace: Marketplace;
  replaced: boolean;
}

export interface AddMarketplaceOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * The name it must have (an `extraKnownMarketplaces` entry): one named otherwise is refused before anything is
   * remembered, so it cannot replace a known marketplace of that other name.
   */
  expectName?: string;
  /** Recorded as `declaredBy`: the settings file that named it. */
  declaredBy?: string;
}

function checkName(spec: string, marketplace: Marketplace, options: AddMarketplaceOptions): void {
  if (options.expectName !== undefined && marketplace.name !== options.expectName) {
    throw new ManifestError(`${spec} holds the marketplace ${marketplace.name}, not ${options.expectName}; nothing was added`);
  }
}

/** `toolgate plugin marketplace add <path-or-git-url>`: read it (cloning a repository first) and remember it. */
export function addMarketplace(home: string, spec: string, options: AddMarketplaceOptions = {}): AddedMarketplace {
  const cwd = options.cwd ?? process.cwd();
  const local = localMarketplaceRoot(spec, cwd);
  const known = readKnownMarketplaces(home);
  const declaredBy = options.declaredBy ? { declaredBy: options.declaredBy } : {};
  if (local) {
    const marketplace = readMarketplace(local);
    checkName(spec, marketplace, options);
    const replaced = marketplace.name in known;
    known[marketplace.name] = { source: { type: "directory", path: local }, location: local, addedAt: new Date().toISOString(), ...declaredBy };
    writeKnownMarketplaces(home, known);
    return { name: marketplace.name, marketplace, replaced };
  }
  const url = gitUrlFor(spec);
  if (!url) throw new ManifestError(`${spec} is neither a folder with ${MARKETPLACE_FILE} nor a git URL (https://…, file://…, git@host:…, owner/repo)`);
  const clones = path.join(pluginsHome(home), "marketplaces");
  fs.mkdirSync(clones, { recursive: true, mode: 0o700 });
  const staging = fs.mkdtempSync(path.join(clones, ".clone-"));
  try {
    gitClone(url, path.join(staging, "repo"), options.env);
    const probe = readMarketplace(path.join(staging, "repo"));
    checkName(spec, probe, options);
    const location = path.join(clones, probe.name);
    fs.rmSync(location, { recursive: true, force: true });
    fs.renameSync(path.join(staging, "repo"), location);
    const replaced = probe.name in known;
    known[probe.name] = { source: { type: "git", url }, location, addedAt: new Date().toISOString(), ...declaredBy };
    writeKnownMarketplaces(home, known);
    return { name: probe.name, marketplace: readMarketplace(location), replaced };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** Fetch a known marketplace again (a git one is cloned anew); installed plugins change only when installed again. */
export function updateMarketplace(home: string, name: string, options: { env?: NodeJS.ProcessEnv } = {}): Marketplace {
  const entry = readKnownMarketplaces(home)[name];
  if (!entry) throw new ManifestError(`no marketplace named ${name} (add it with toolgate plugin marketplace add <path-or-git-url>)`);
  if (entry.source.type === "directory") return readMarketplace(entry.location);
  return addMarketplace(home, entry.source.url, { ...options, expectName: name, ...(entry.declaredBy ? { declaredBy: entry.declaredBy } : {}) }).marketplace;
}

/** Forget a marketplace (and delete its clone); its installed plugins stay installed. */
export function removeMarketplace(home: string, name: string): boolean {
  const known = readKnownMarketplaces(home);
  const entry = known[name];
  if (!entry) return false;
  if (entry.source.type === "git" && isInsideFolder(entry.location, path.join(pluginsHome(home), "marketplaces"))) fs.rmSync(entry.location, { recursive: true, force: true });
  delete known[name];
  writeKnownMarketplaces(home, known);
  return true;
}

/** A known marketplace, read now. */
export function openMarketplace(home: string, name: string): Marketplace {
  const entry = readKnownMarketplaces(home)[name];
  if (!entry) throw new ManifestError(`no marketplace named ${name} (add it with toolgate plugin marketplace add <path-or-git-url>)`);
  return readMarketplace(entry.location);
}
