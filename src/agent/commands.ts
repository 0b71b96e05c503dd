/**
 * Custom slash commands: markdown files under `.toolgate/commands/` and `.claude/commands/` (in the project and
 * in the user's home) whose body is a prompt. `review.md` is `/review`; `frontend/test.md` is `/test`, shown as
 * "(project:frontend)" like Claude Code, and also answers to `/frontend:test`, which is how two `test.md` in
 * different folders stay reachable. Front matter: `description`, `argument-hint`, `allowed-tools`, `model`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseFrontMatter } from "../util/frontMatter.js";
import { expandArguments } from "../util/promptArguments.js";

export interface CustomCommand {
  /** What the user types after `/`: the file name without `.md`. */
  name: string;
  /** `frontend:test` for `frontend/test.md`; the same as `name` at the top of a commands folder. */
  qualifiedName: string;
  /** The sub-folders, joined by `:` (`frontend`); absent at the top. */
  namespace?: string;
  scope: "project" | "user" | "plugin";
  /** The plugin that brings it (its qualified name starts with `<plugin>:`). */
  plugin?: string;
  file: string;
  description: string;
  argumentHint?: string;
  /** Shown, never granted: calls are still judged by the permission rules. */
  allowedTools?: string[];
  /** The model the command asks for; the interactive UI may honour it, `-p` keeps the session's model. */
  model?: string;
  /** The prompt, with `$ARGUMENTS` and `$1`..`$9` still in it. */
  body: string;
}

export interface CustomCommands {
  /** In precedence order: project (nearest folder first, `.toolgate` before `.claude`), then user. */
  readonly commands: readonly CustomCommand[];
  /** Bad files and name clashes, one line each, for the user. */
  readonly problems: readonly string[];
  /** By `name` or `qualifiedName`, with or without the leading `/`. */
  find(name: string): CustomCommand | undefined;
  /** The prompt `/name argsText` sends, or undefined when there is no such command. */
  expand(name: string, argsText: string): string | undefined;
}

export interface CommandLocations {
  cwd: string;
  /** toolgate's data home: `<home>/commands`. */
  home: string;
  /** The user's home directory: `~/.claude/commands`. */
  userHome?: string;
  /** Plugins' command folders: after the project's and the user's, each command also answers to `/<plugin>:<name>`. */
  plugins?: ReadonlyArray<{ name: string; root: string; commandRoots: ReadonlyArray<{ root: string; only?: string }>; skillRoots?: readonly string[] }>;
}

const COMMAND_FOLDERS = [path.join(".toolgate", "commands"), path.join(".claude", "commands")] as const;
const MAX_COMMAND_FILE_BYTES = 256 * 1024;
const MAX_DEPTH = 5;
const MAX_FILES_PER_ROOT = 1_000;
const NAME_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const MAX_DESCRIPTION_CHARS = 100;

/** The working directory and its parents up to the git root (only the working directory outside a repository). */
function projectDirectories(cwd: string): string[] {
  const start = path.resolve(cwd);
  const dirs: string[] = [];
  for (let dir = start; ; dir = path.dirname(dir)) {
    dirs.push(dir);
    if (fs.existsSync(path.join(dir, ".git"))) return dirs;
    if (path.dirname(dir) === dir) return [start];
  }
}

/** Every `.md` below `root`, depth first in name order, as paths relative to it. Symlinked folders are not entered. */
function markdownFiles(root: string, relative = "", depth = 0): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(root, relative), { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  const sorted = entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of sorted) if (!entry.isDirectory() && entry.name.endsWith(".md")) files.push(path.join(relative, entry.name));
  if (depth < MAX_DEPTH) {
    for (const entry of sorted) if (entry.isDirectory()) files.push(...markdownFiles(root, path.join(relative, entry.name), depth + 1));
  }
  return files;
}

function text(value: unknown): string | undefined | false {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : false;
}

/** `argument-hint: [message]` is a YAML list; show it as the user wrote it. */
function argumentHint(value: unknown): string | undefined | false {
  if (Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number")) return value.map((v) => `[${v}]`).join(" ");
  return text(value);
}

function toolList(value: unknown): string[] | undefined | false {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value.split(",").map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.map((v) => v.trim()).filter(Boolean);
  return false;
}

/** YAML errors draw the offending line under the message: a problem stays one line. */
function firstLine(message: string): string {
  return message.split(/\r?\n/)[0].replace(/:$/, "");
}

/**
 * Claude Code's own examples write `argument-hint: [pr-number] [priority]`, which YAML rejects (a list followed
 * by more text). When the front matter does not parse, that one value is read as the text it was meant to be.
 */
function parseCommandFile(text: string): ReturnType<typeof parseFrontMatter> {
  try {
    return parseFrontMatter(text);
  } catch (err) {
    const quoted = text.replace(/^(argument-hint:[ \t]*)(\[[^\r\n]*?)[ \t]*$/m, (_line, key: string, value: string) => `${key}${JSON.stringify(value)}`);
    if (quoted === text) throw err;
    try {
      return parseFrontMatter(quoted);
    } catch {
      throw err;
    }
  }
}

interface CommandRoot {
  root: string;
  scope: CustomCommand["scope"];
  /** The folder every file must resolve inside, symlinks followed (a project's; a plugin's). */
  owner?: string;
  plugin?: string;
  only?: string;
}

function readCommand(where: CommandRoot, relative: string): CustomCommand | string {
  const { root, scope } = where;
  const file = path.join(root, relative);
  const bad = (message: string) => `${file}: ${message}; the command was skipped`;
  const segments = relative.slice(0, -".md".length).split(path.sep);
  const invalid = segments.find((s) => !NAME_SEGMENT.test(s));
  if (invalid !== undefined) return bad(`${JSON.stringify(invalid)} cannot be part of a command name: use letters, digits and . _ -`);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return bad("it cannot be read");
  }
  // A FIFO or a device would block or never end.
  if (!stat.isFile()) return bad("not a regular file");
  if (stat.size > MAX_COMMAND_FILE_BYTES) return bad(`${stat.size} bytes, more than the ${MAX_COMMAND_FILE_BYTES} a command file may have`);
  // A cloned repository (or a plugin) must not turn a link to a secret into a command (see linksOutside for skills).
  if (where.owner) {
    const owner = where.owner;
    let real: string;
    let realOwner: string;
    try {
      real = fs.realpathSync(file);
      realOwner = fs.realpathSync(owner);
    } catch {
      return bad("its real path cannot be resolved");
    }
    const relative = path.relative(realOwner, real);
    if (relative.startsWith("..") || path.isAbsolute(relative)) return bad(`it links to ${real}, outside ${owner}, and a ${scope}'s skills and commands must stay inside it`);
  }
  let doc;
  try {
    doc = parseCommandFile(fs.readFileSync(file, "utf8"));
  } catch (err) {
    return bad(firstLine((err as Error).message));
  }
  const { attributes, body } = doc;
  const description = text(attributes.description);
  const hint = argumentHint(attributes["argument-hint"]);
  const tools = toolList(attributes["allowed-tools"]);
  const model = text(attributes.model);
  if (description === false) return bad("description must be text");
  if (hint === false) return bad("argument-hint must be text");
  if (tools === false) return bad("allowed-tools must be a list of tool names or a comma-separated string");
  if (model === false) return bad("model must be text");
  if (!body.trim()) return bad("it has no prompt after the front matter");
  const name = segments[segments.length - 1];
  const qualified = where.plugin ? [where.plugin, ...segments] : segments;
  const namespace = qualified.length > 1 ? qualified.slice(0, -1).join(":") : undefined;
  const heading = body.split(/\r?\n/).find((l) => l.trim() !== "")!.replace(/^#+\s*/, "").trim();
  return {
    name,
    qualifiedName: qualified.join(":"),
    ...(namespace ? { namespace } : {}),
    scope,
    ...(where.plugin ? { plugin: where.plugin } : {}),
    file,
    description: (description ?? "").replace(/\s+/g, " ").trim() || (heading.length > MAX_DESCRIPTION_CHARS ? `${heading.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : heading),
    ...(hint ? { argumentHint: hint } : {}),
    ...(tools?.length ? { allowedTools: tools } : {}),
    ...(model ? { model } : {}),
    body,
  };
}

/** The skills of one plugin skills folder as commands named `<plugin>:<skill name>`. */
function pluginSkillCommands(root: string, plugin: { name: string; root: string }): CustomCommand[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: CustomCommand[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const relative = path.join(entry.name, "SKILL.md");
    if (!fs.existsSync(path.join(root, relative))) continue;
    const loaded = readCommand({ root, scope: "plugin", owner: plugin.root, plugin: plugin.name }, relative);
    // The skill catalog reports a bad SKILL.md already.
    if (typeof loaded === "string") continue;
    let name: unknown = entry.name;
    try {
      name = parseFrontMatter(fs.readFileSync(loaded.file, "utf8")).attributes.name ?? entry.name;
    } catch {
      continue;
    }
    if (typeof name !== "string" || !NAME_SEGMENT.test(name)) continue;
    out.push({ ...loaded, name, qualifiedName: `${plugin.name}:${name}`, namespace: plugin.name });
  }
  return out;
}

/** `/name`'s prompt: the body with the arguments put in (appended when it has no placeholder). */
export function expandCommand(command: CustomCommand, argsText: string): string {
  return expandArguments(command.body, argsText).trim();
}

/** `/name rest of line` → its parts; undefined when the text is not a slash command (`/usr/bin/env is slow` is not). */
export function parseSlashCommand(prompt: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z0-9][A-Za-z0-9._:-]*)(?:[ \t\r\n]+([\s\S]*))?$/.exec(prompt.trim());
  return match ? { name: match[1], args: match[2] ?? "" } : undefined;
}

export function loadCustomCommands(locations: CommandLocations): CustomCommands {
  const roots: CommandRoot[] = [
    ...projectDirectories(locations.cwd).flatMap((dir) => COMMAND_FOLDERS.map((folder) => ({ root: path.join(dir, folder), scope: "project" as const, owner: dir }))),
    { root: path.join(locations.home, "commands"), scope: "user" },
    { root: path.join(locations.userHome ?? os.homedir(), ".claude", "commands"), scope: "user" },
    ...(locations.plugins ?? []).flatMap((plugin) => plugin.commandRoots.map((r) => ({ ...r, scope: "plugin" as const, owner: plugin.root, plugin: plugin.name }))),
  ];
  const commands: CustomCommand[] = [];
  const problems: string[] = [];
  const byQualified = new Map<string, CustomCommand>();
  const byName = new Map<string, CustomCommand>();
  const seenRoots = new Set<string>();
  for (const where of roots) {
    const { root } = where;
    const key = where.only ? path.join(root, where.only) : root;
    if (seenRoots.has(key)) continue;
    seenRoots.add(key);
    let files = where.only ? (where.only.endsWith(".md") ? [where.only] : []) : markdownFiles(root);
    if (files.length > MAX_FILES_PER_ROOT) {
      problems.push(`${root}: ${files.length} command files; only the first ${MAX_FILES_PER_ROOT} were loaded`);
      files = files.slice(0, MAX_FILES_PER_ROOT);
    }
    for (const relative of files) {
      const loaded = readCommand(where, relative);
      if (typeof loaded === "string") {
        problems.push(loaded);
        continue;
      }
      const shadowing = byQualified.get(loaded.qualifiedName);
      if (shadowing) {
        problems.push(`/${loaded.qualifiedName} in ${loaded.file} is ignored: ${shadowing.file} has the same name and wins`);
        continue;
      }
      byQualified.set(loaded.qualifiedName, loaded);
      const sameName = byName.get(loaded.name);
      if (sameName) problems.push(`/${loaded.name} runs ${sameName.file}; use /${loaded.qualifiedName} for ${loaded.file}`);
      else byName.set(loaded.name, loaded);
      commands.push(loaded);
    }
  }
  // A plugin's skills also run as `/<plugin>:<skill>` (as in Claude Code); never by the bare name.
  for (const plugin of locations.plugins ?? []) {
    for (const root of plugin.skillRoots ?? []) {
      for (const skill of pluginSkillCommands(root, plugin)) {
        if (byQualified.has(skill.qualifiedName)) continue;
        byQualified.set(skill.qualifiedName, skill);
        commands.push(skill);
      }
    }
  }
  const find = (name: string) => {
    const bare = name.replace(/^\//, "");
    // A bare name goes to the first command with it, so a project command beats a user one.
    return byName.get(bare) ?? byQualified.get(bare);
  };
  return {
    commands,
    problems,
    find,
    expand(name, argsText) {
      const command = find(name);
      return command ? expandCommand(command, argsText) : undefined;
    },
  };
}

/**
 * A prompt that starts with `/name` of a custom command becomes the command's prompt; anything else (an unknown
 * `/word`, a path such as `/etc/hosts`, a built-in command the caller names) is returned as written.
 */
export function expandSlashPrompt(prompt: string, commands: CustomCommands, options: { builtin?: readonly string[] } = {}): { prompt: string; command?: CustomCommand } {
  const parsed = parseSlashCommand(prompt);
  if (!parsed || options.builtin?.includes(parsed.name)) return { prompt };
  const command = commands.find(parsed.name);
  if (!command) return { prompt };
  return { prompt: expandCommand(command, parsed.args), command };
}
