/**
 * Skills: folders holding a `SKILL.md` (front matter `name`, `description`, optional `allowed-tools`; the body is
 * instructions) under `.toolgate/skills/` and `.claude/skills/` of the project and of the user. The catalog is
 * loaded when a session starts and grows when a file is written near skills folders not seen yet.
 * Used by the Skill tool and by the agent setup (which lists the skills to the model).
 */
import fs from "node:fs/promises";
import type { Stats } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FileWriteObserver, SkillCatalogAccess, SkillInfo, ToolUseContext } from "../../core/Tool.js";
import { parseFrontMatter } from "../../util/frontMatter.js";

export type { SkillInfo };

export const SKILL_FILE_NAME = "SKILL.md";
/** Where skills live inside a project directory and inside `~` (`.claude` only: the toolgate home has its own). */
export const PROJECT_SKILL_FOLDERS = [path.join(".toolgate", "skills"), path.join(".claude", "skills")] as const;
/** A SKILL.md larger than this is refused: it is instructions, not data. */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** Names go into the system prompt: no spaces, quotes or line breaks. */
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
/** Directories whose contents are not the user's own: a file written there does not pull in skills. */
const FOREIGN_DIRECTORIES = new Set(["node_modules", ".git"]);
/** Entries of one skills folder looked at; more are reported, not read. */
const MAX_FOLDERS_PER_ROOT = 1_000;
const SCAN_PARALLELISM = 32;
/** How long discovery may hold back a writer's result; a slower scan still completes and adds its skills. */
const DISCOVERY_DEADLINE_MS = 1_000;

export interface SkillLocations {
  /** The session's working directory; project skills are looked for here and above it, up to the git root. */
  cwd: string;
  /** toolgate's data home (`TOOLGATE_HOME`): `<home>/skills`. */
  home: string;
  /** The user's home directory: `~/.claude/skills`. */
  userHome?: string;
  /** Plugins' skills folders, read after the project's and the user's; their skills are named `<plugin>:<skill>`. */
  plugins?: ReadonlyArray<{ name: string; root: string; skillRoots: readonly string[] }>;
}

export interface SkillCatalog extends SkillCatalogAccess, FileWriteObserver {
  /** Skills by name; the name is matched exactly, then ignoring case. */
  find(name: string): SkillInfo | undefined;
  /** Problems found while loading (bad files, shadowed names), one line each, for the user. */
  readonly problems: readonly string[];
  /** Scans the skills folders between `absPath`'s directory and the project root not scanned yet; returns the skills added. */
  discoverNear(absPath: string): Promise<SkillInfo[]>;
  /** The top of the project (the git root, else the working directory). */
  readonly projectRoot: string;
}

type Loaded = { skill: SkillInfo } | { problem: string } | undefined;

async function statIfExists(target: string): Promise<Stats | undefined> {
  try {
    return await fs.stat(target);
  } catch {
    return undefined;
  }
}

/** The working directory and its parents up to the nearest one holding `.git`; just the working directory outside a repository. */
export async function projectDirectories(cwd: string): Promise<string[]> {
  const start = path.resolve(cwd);
  const dirs: string[] = [];
  for (let dir = start; ; dir = path.dirname(dir)) {
    dirs.push(dir);
    if (await statIfExists(path.join(dir, ".git"))) return dirs;
    if (path.dirname(dir) === dir) return [start];
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The first paragraph of the body, for a skill whose front matter has no description. */
function firstParagraph(body: string): string {
  const paragraph = body
    .split(/\r?\n\s*\r?\n/)
    .map((p) => oneLine(p.replace(/^#+\s*/, "")))
    .find((p) => p !== "");
  return paragraph ?? "";
}

function toolList(value: unknown): string[] | undefined | { error: string } {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value.split(",").map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.map((v) => v.trim()).filter(Boolean);
  return { error: "allowed-tools must be a list of tool names or a comma-separated string" };
}

/**
 * A project's files are not the user's own choice: a cloned repository could link `SKILL.md` to
 * `~/.aws/credentials` and have it listed to the model. So a project file must resolve, symlinks followed,
 * inside the directory whose `.toolgate`/`.claude` folder holds it. The reason it does not, else undefined.
 */
export async function linksOutside(file: string, owner: string): Promise<string | undefined> {
  try {
    const [real, realOwner] = await Promise.all([fs.realpath(file), fs.realpath(owner)]);
    if (isInside(real, realOwner)) return undefined;
    return `it links to ${real}, outside ${owner}, and a project's skills and commands must stay inside it`;
  } catch (err) {
    return `its real path cannot be resolved (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
}

/**
 * Reads and checks one skill's SKILL.md. Never throws: a bad file is a problem line, a folder without a
 * SKILL.md is nothing.
 */
export async function readSkillFile(dir: string, scope: SkillInfo["scope"], plugin?: SkillInfo["plugin"]): Promise<{ loaded: Loaded; body?: string }> {
  const file = path.join(dir, SKILL_FILE_NAME);
  const stat = await statIfExists(file);
  if (!stat) return { loaded: undefined };
  const bad = (message: string) => ({ loaded: { problem: `${file}: ${message}; the skill was skipped` } });
  // A FIFO or device would block or never end: only regular files are read.
  if (!stat.isFile()) return bad("not a regular file");
  if (stat.size > MAX_SKILL_FILE_BYTES) return bad(`${stat.size} bytes, more than the ${MAX_SKILL_FILE_BYTES} a SKILL.md may have`);
  if (scope === "project" || plugin) {
    const escape = await linksOutside(file, plugin ? plugin.root : path.resolve(dir, "..", "..", ".."));
    if (escape) return bad(escape);
  }
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (err) {
    return bad(`cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let doc;
  try {
    doc = parseFrontMatter(text);
  } catch (err) {
    // YAML errors draw the offending line under the message: a problem stays one line.
    return bad((err as Error).message.split(/\r?\n/)[0].replace(/:$/, ""));
  }
  const { attributes, body } = doc;
  const rawName = attributes.name ?? path.basename(dir);
  if (typeof rawName !== "string" || !SKILL_NAME.test(rawName)) {
    return bad(`the name ${JSON.stringify(rawName)} is not usable: use letters, digits and . _ : - (at most 64)`);
  }
  if (attributes.description !== undefined && typeof attributes.description !== "string") return bad("description must be text");
  const description = oneLine(typeof attributes.description === "string" ? attributes.description : firstParagraph(body));
  if (!description) return bad("it has no description (front matter `description:`) and no text to take one from");
  const tools = toolList(attributes["allowed-tools"]);
  if (tools && !Array.isArray(tools)) return bad(tools.error);
  const name = plugin ? `${plugin.name}:${rawName}` : rawName;
  const skill: SkillInfo = { name, description, dir, file, scope, ...(plugin ? { plugin } : {}), ...(tools?.length ? { allowedTools: tools } : {}) };
  return { loaded: { skill }, body };
}

/** Every skill folder directly under one skills root, in name order. */
async function scanRoot(root: string, scope: SkillInfo["scope"], plugin?: SkillInfo["plugin"]): Promise<Array<Exclude<Loaded, undefined>>> {
  let entries: string[];
  try {
    entries = (await fs.readdir(root)).sort();
  } catch {
    return [];
  }
  const results: Loaded[] = [];
  if (entries.length > MAX_FOLDERS_PER_ROOT) {
    results.push({ problem: `${root}: ${entries.length} entries; only the first ${MAX_FOLDERS_PER_ROOT} (in name order) were looked at` });
    entries = entries.slice(0, MAX_FOLDERS_PER_ROOT);
  }
  // In slices, so a folder of thousands of skills cannot run out of file descriptors.
  for (let start = 0; start < entries.length; start += SCAN_PARALLELISM) {
    const slice = entries.slice(start, start + SCAN_PARALLELISM);
    results.push(
      ...(await Promise.all(
        slice.map(async (entry) => {
          const dir = path.join(root, entry);
          // Symlinked skill folders are followed (a user may link a shared checkout); a project's must stay inside it.
          const stat = await statIfExists(dir);
          if (!stat?.isDirectory()) return undefined;
          return (await readSkillFile(dir, scope, plugin)).loaded;
        }),
      )),
    );
  }
  return results.filter((r): r is Exclude<Loaded, undefined> => r !== undefined);
}

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

function hasForeignSegment(dir: string, root: string): boolean {
  return path.relative(root, dir).split(path.sep).some((segment) => FOREIGN_DIRECTORIES.has(segment));
}

function formatDiscovered(skills: readonly SkillInfo[], problems: readonly string[], near: string): string {
  const parts: string[] = [];
  if (skills.length) {
    const lines = skills.map((s) => `- ${s.name}: ${truncate(s.description, DEFAULT_DESCRIPTION_CHARS)}`);
    parts.push(`Skills were found near ${near}. Load one with the Skill tool when the task matches its description:\n${lines.join("\n")}`);
  }
  if (problems.length) parts.push(`Skill files near ${near} could not be used:\n${problems.map((p) => `- ${p}`).join("\n")}`);
  return parts.join("\n");
}

export async function loadSkillCatalog(locations: SkillLocations): Promise<SkillCatalog> {
  const projectDirs = await projectDirectories(locations.cwd);
  const projectRoot = projectDirs[projectDirs.length - 1];
  const scanned = new Set<string>(projectDirs);
  const byName = new Map<string, SkillInfo>();
  const problems: string[] = [];

  /** First come, first kept: callers add in precedence order; a project skill displaces a user one. */
  const add = (skill: SkillInfo): boolean => {
    const known = byName.get(skill.name);
    if (known && known.file === skill.file) {
      byName.set(skill.name, skill);
      return true;
    }
    if (known && !(known.scope === "user" && skill.scope === "project")) {
      problems.push(`skill ${skill.name} in ${skill.file} is ignored: ${known.file} has the same name and wins`);
      return false;
    }
    if (known) problems.push(`skill ${skill.name} in ${known.file} is ignored: the project's ${skill.file} has the same name and wins`);
    byName.set(skill.name, skill);
    return true;
  };
  const take = (results: Array<Exclude<Loaded, undefined>>): SkillInfo[] => {
    const added: SkillInfo[] = [];
    for (const result of results) {
      if ("problem" in result) problems.push(result.problem);
      else if (add(result.skill)) added.push(result.skill);
    }
    return added;
  };

  // Nearest first, `.toolgate` before `.claude`: the nearest and toolgate's own folder win a name.
  const userHome = locations.userHome ?? os.homedir();
  const roots: Array<{ root: string; scope: SkillInfo["scope"]; plugin?: SkillInfo["plugin"] }> = [
    ...projectDirs.flatMap((dir) => PROJECT_SKILL_FOLDERS.map((folder) => ({ root: path.join(dir, folder), scope: "project" as const }))),
    { root: path.join(locations.home, "skills"), scope: "user" },
    { root: path.join(userHome, ".claude", "skills"), scope: "user" },
    ...(locations.plugins ?? []).flatMap((p) => p.skillRoots.map((root) => ({ root, scope: "plugin" as const, plugin: { name: p.name, root: p.root } }))),
  ];
  // A root met twice (the working directory is the home directory) counts once, as the project's.
  const scans = roots.filter(({ root }, i) => roots.findIndex((r) => r.root === root) === i);
  for (const results of await Promise.all(scans.map(({ root, scope, plugin }) => scanRoot(root, scope, plugin)))) take(results);

  const discover = async (absPath: string): Promise<SkillInfo[]> => {
    const target = path.resolve(absPath);
    if (!isInside(target, projectRoot)) return [];
    const added: SkillInfo[] = [];
    // A SKILL.md just written into a skills folder: (re)load that skill.
    const skillDir = path.dirname(target);
    if (path.basename(target) === SKILL_FILE_NAME && PROJECT_SKILL_FOLDERS.some((folder) => path.dirname(skillDir).endsWith(path.sep + folder))) {
      const { loaded } = await readSkillFile(skillDir, "project");
      if (loaded) added.push(...take([loaded]));
    }
    const fresh: string[] = [];
    for (let dir = path.dirname(target); isInside(dir, projectRoot) && !scanned.has(dir); dir = path.dirname(dir)) {
      fresh.push(dir);
    }
    for (const dir of fresh) scanned.add(dir);
    const candidates = fresh.filter((dir) => !hasForeignSegment(dir, projectRoot));
    // Nearest to the written file first, so a nested package's skill wins over one further up.
    for (const dir of candidates) {
      for (const folder of PROJECT_SKILL_FOLDERS) added.push(...take(await scanRoot(path.join(dir, folder), "project")));
    }
    return added;
  };

  return {
    projectRoot,
    problems,
    list: () => [...byName.values()],
    find(name) {
      const exact = byName.get(name);
      if (exact) return exact;
      const lower = name.toLowerCase();
      return [...byName.values()].find((s) => s.name.toLowerCase() === lower);
    },
    discoverNear: discover,
    async afterWrite(absPath: string, context: ToolUseContext) {
      // Writers run one at a time, so the problems added from here on are this scan's.
      const problemsBefore = problems.length;
      const scan = discover(absPath).catch(() => [] as SkillInfo[]);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<SkillInfo[]>((resolve) => (timer = setTimeout(() => resolve([]), DISCOVERY_DEADLINE_MS)));
      const found = await Promise.race([scan, late]).finally(() => clearTimeout(timer));
      const newProblems = problems.slice(problemsBefore);
      if (!found.length && !newProblems.length) return undefined;
      return formatDiscovered(found, newProblems, path.relative(context.getCwd(), absPath) || absPath);
    },
  };
}

// ---- The listing the model reads ----

/** A description's share of the listing before the budget forces it shorter. */
export const DEFAULT_DESCRIPTION_CHARS = 250;
/** Shorter than this a description says nothing; below it, skills are dropped instead. */
const MIN_DESCRIPTION_CHARS = 40;
/** ~1% of a 200k-token window at ~4 characters a token. */
export const DEFAULT_LISTING_BUDGET_CHARS = 8_000;

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** The listing budget for a model's context window: about 1% of it, in characters. */
export function listingBudgetFor(contextWindowTokens: number | undefined): number {
  if (!contextWindowTokens || !Number.isFinite(contextWindowTokens) || contextWindowTokens <= 0) return DEFAULT_LISTING_BUDGET_CHARS;
  return Math.max(1_000, Math.round(contextWindowTokens * 4 * 0.01));
}

const LISTING_HEAD =
  "Skills are instructions the user installed for particular kinds of task. When a task matches a skill's description, load the skill with the Skill tool before starting and follow it; do not load skills that do not fit.";

function entry(skill: SkillInfo, descriptionChars: number): string {
  return `- ${skill.name}: ${truncate(skill.description, descriptionChars)}`;
}

function wrap(lines: readonly string[]): string {
  return `<skills>\n${LISTING_HEAD}\n${lines.join("\n")}\n</skills>`;
}

/**
 * The system prompt section naming the skills, at most `budget` characters: descriptions are shortened first
 * (each to at most DEFAULT_DESCRIPTION_CHARS, then evenly shorter), then skills at the end are left out with a
 * "+N more" line. Undefined when there are no skills.
 */
export function formatSkillListing(skills: readonly SkillInfo[], budget = DEFAULT_LISTING_BUDGET_CHARS): string | undefined {
  if (!skills.length) return undefined;
  const sized = (chars: number) => wrap(skills.map((s) => entry(s, chars)));
  const full = sized(DEFAULT_DESCRIPTION_CHARS);
  if (full.length <= budget) return full;
  // The longest description length that lets every skill fit.
  let low = MIN_DESCRIPTION_CHARS;
  let high = DEFAULT_DESCRIPTION_CHARS;
  if (sized(low).length <= budget) {
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (sized(mid).length <= budget) low = mid;
      else high = mid - 1;
    }
    return sized(low);
  }
  const more = (count: number) => `- (+${count} more skills not listed for space; a Skill call with an unknown name lists every name)`;
  const lines: string[] = [];
  for (const skill of skills) {
    const next = [...lines, entry(skill, MIN_DESCRIPTION_CHARS)];
    const left = skills.length - next.length;
    if (wrap(left > 0 ? [...next, more(left)] : next).length > budget) break;
    lines.push(next[next.length - 1]);
  }
  return wrap([...lines, more(skills.length - lines.length)]);
}
