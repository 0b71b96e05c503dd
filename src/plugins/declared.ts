/**
 * `extraKnownMarketplaces` (Claude Code's key): marketplaces a settings file names without adding them,
 * `{"team": {"source": {"source": "github", "repo": "org/plugins"}}}`, also `{"source": "git", "url"}` and
 * `{"source": "directory", "path"}`. `plugin install kit@team` adds one on first use; nothing fetches one on its own.
 *
 * The user's own settings are taken as they are. A project's (its `.toolgate/settings.json` and
 * `settings.local.json`) are someone else's: used only once the folder is trusted, never for a name the user's
 * settings declare too (a known marketplace always wins before either is read), and only with a source that
 * leaves the person's disk alone: a remote git URL, or a folder (or `file://` repository) inside the project.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { localSettingsPath, projectSettingsPath, readSettingsFile, userSettingsPath } from "../settings/load.js";
import { isInsideFolder, PLUGIN_NAME } from "./manifest.js";

export interface DeclaredMarketplace {
  name: string;
  /** What `marketplace add` takes for it: a folder, a git URL or `owner/repo`. */
  spec: string;
  /** The settings file that names it. */
  file: string;
  scope: "user" | "project";
  /** Why it cannot be used (an untrusted folder, a source outside the project, …); absent when it can. */
  refused?: string;
}

export interface DeclaredMarketplacesOptions {
  home: string;
  /** The project folder; without it only the user's settings are read. */
  cwd?: string;
  /** Whether the project folder is trusted. */
  trusted: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function realPath(target: string): string | undefined {
  try {
    return fs.realpathSync(target);
  } catch {
    return undefined;
  }
}

/** The source of one entry as the user's settings may give it: the spec, or undefined when it names none. */
function sourceSpec(declared: unknown): string | undefined {
  const source = isObject(declared) && isObject(declared.source) ? declared.source : undefined;
  if (!source) return undefined;
  if (source.source === "github" && typeof source.repo === "string") return source.repo;
  if ((source.source === "git" || source.source === "url") && typeof source.url === "string") return source.url;
  if (source.source === "directory" && typeof source.path === "string") return source.path;
  return undefined;
}

/** A git URL that reaches another machine: https, ssh, `git@host:path` (never a local path, `ext::`, or a host that reads as an option). */
const REMOTE_GIT_URL = /^(https|ssh):\/\/[^\s-]\S*$|^\w[\w.-]*@\w[\w.-]*:[^\s-]\S*$/;

/**
 * A project's entry: the spec to add, or why it is refused. Local sources (a folder, a `file://` URL) must lead,
 * symlinks resolved, to a place inside the project, so a cloned repository cannot point toolgate at the rest of
 * the person's disk.
 */
export function projectSourceSpec(declared: unknown, projectRoot: string): { spec: string } | { refused: string } {
  const source = isObject(declared) && isObject(declared.source) ? declared.source : undefined;
  const root = realPath(projectRoot) ?? path.resolve(projectRoot);
  const inside = (target: string, what: string): { spec: string } | { refused: string } => {
    const real = realPath(target);
    if (!real) return { refused: `its ${what} ${target} does not exist` };
    if (!isInsideFolder(real, root)) return { refused: `its ${what} leads to ${real}, outside the project ${root}` };
    return { spec: real };
  };
  if (source?.source === "github" && typeof source.repo === "string") {
    return /^[\w-][\w.-]*\/[\w-][\w.-]*$/.test(source.repo) ? { spec: source.repo } : { refused: `${JSON.stringify(source.repo)} is not a GitHub owner/repo` };
  }
  if ((source?.source === "git" || source?.source === "url") && typeof source.url === "string") {
    if (source.url.startsWith("file://")) {
      let local: string;
      try {
        local = fileURLToPath(source.url);
      } catch {
        return { refused: `${source.url} is not a file:// URL toolgate can read` };
      }
      const checked = inside(local, "file:// URL");
      return "spec" in checked ? { spec: pathToFileURL(checked.spec).href } : checked;
    }
    if (REMOTE_GIT_URL.test(source.url)) return { spec: source.url };
    return { refused: `a project may name a remote git URL (https://, ssh://, git@host:…), a GitHub repository, or a folder inside the project, not ${JSON.stringify(source.url)}` };
  }
  if (source?.source === "directory" && typeof source.path === "string") {
    if (path.isAbsolute(source.path) || source.path.startsWith("~")) return { refused: `its folder ${source.path} must be a path inside the project (./…)` };
    return inside(path.resolve(root, source.path), "folder");
  }
  return { refused: 'its source must be {"source": "github", "repo"}, {"source": "git", "url"} or {"source": "directory", "path"}' };
}

function declaredIn(file: string): Record<string, unknown> {
  const read = readSettingsFile(file);
  const value = read.status === "ok" ? read.raw.extraKnownMarketplaces : undefined;
  return isObject(value) ? value : {};
}

/** Every marketplace the user's and the project's settings declare, one per name: the user's win a name. */
export function declaredMarketplaces(options: DeclaredMarketplacesOptions): DeclaredMarketplace[] {
  const byName = new Map<string, DeclaredMarketplace>();
  const userFile = userSettingsPath(options.home);
  if (options.cwd !== undefined) {
    const cwd = options.cwd;
    const folder = realPath(cwd) ?? path.resolve(cwd);
    // local after project: the later file wins a name, as settings files do
    for (const file of [projectSettingsPath(cwd), localSettingsPath(cwd)]) {
      for (const [name, declared] of Object.entries(declaredIn(file))) {
        if (!PLUGIN_NAME.test(name)) continue;
        const checked = projectSourceSpec(declared, cwd);
        const refused = !options.trusted
          ? `${folder} is not a trusted folder: trust it (toolgate trust add ${JSON.stringify(folder)}) or add the marketplace yourself (toolgate plugin marketplace add <folder-or-git-url>)`
          : "refused" in checked
            ? `${checked.refused}; the project's entry is not used`
            : undefined;
        byName.set(name, { name, spec: "spec" in checked ? checked.spec : "", file, scope: "project", ...(refused ? { refused } : {}) });
      }
    }
  }
  for (const [name, declared] of Object.entries(declaredIn(userFile))) {
    const spec = sourceSpec(declared);
    if (spec && PLUGIN_NAME.test(name)) byName.set(name, { name, spec, file: userFile, scope: "user" });
  }
  return [...byName.values()];
}
