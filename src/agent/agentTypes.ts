/**
 * Agent types for the Agent tool: the built-in `general-purpose` one, and custom ones from markdown files with
 * front matter in `.toolgate/agents/` and `.claude/agents/` (project, then user). A bad file is reported and
 * skipped; it never stops the session.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AgentTypeInfo } from "../core/Tool.js";
import { parseFrontMatter } from "../util/frontMatter.js";

export interface AgentTypeDefinition extends AgentTypeInfo {
  /** The subagent's system prompt (the file's body); the environment and project instructions are added to it. */
  systemPrompt: string;
  /** Model requests the subagent may make; default DEFAULT_SUBAGENT_MAX_TURNS. */
  maxTurns?: number;
}

export const GENERAL_PURPOSE_AGENT = "general-purpose";
export const DEFAULT_SUBAGENT_MAX_TURNS = 50;

const GENERAL_PURPOSE_PROMPT = `You are a subagent of a coding agent working in the user's project through toolgate. Another agent gave you one task; do it completely with the tools you have, then reply with what you found or did.

- Your final message is all the other agent sees of your work: make it self-contained. Give file paths (path:line), the facts it asked for, and what you could not do. Do not ask it questions; it cannot answer.
- Read before you change anything, keep changes to what the task asks, and check your work before you say it is done.
- A denied call must not be retried unchanged: adapt, or say in your answer that you were stopped.
- Never invent file contents, command output or results.`;

export const BUILTIN_AGENT_TYPES: readonly AgentTypeDefinition[] = [
  {
    name: GENERAL_PURPOSE_AGENT,
    description: "A general-purpose agent for research and multi-step tasks: searching code, reading many files, making and checking a change. Has every tool except Agent and TaskStop.",
    systemPrompt: GENERAL_PURPOSE_PROMPT,
    model: "inherit",
    source: "built-in",
  },
];

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface AgentTypeDirs {
  /** The project directory: `.toolgate/agents` and `.claude/agents` under it. */
  cwd: string;
  /** toolgate's data home: `<home>/agents`. */
  home: string;
  /** The user's home directory: `~/.claude/agents`. Default os.homedir(). */
  userHome?: string;
  /** Plugins' agent folders: their types are named `<plugin>:<name>`. */
  plugins?: ReadonlyArray<{ name: string; root: string; agentRoots: ReadonlyArray<{ root: string; only?: string }> }>;
}

export interface LoadedAgentTypes {
  /** Built-in types first, then custom ones by name; a custom type may replace a built-in one. */
  types: AgentTypeDefinition[];
  /** Files that were skipped, and why. */
  warnings: string[];
}

/** The agent files' folders, highest precedence first: project over user, `.toolgate` over `.claude`. */
export function agentTypeDirs(dirs: AgentTypeDirs): string[] {
  const userHome = dirs.userHome ?? os.homedir();
  return [
    path.join(dirs.cwd, ".toolgate", "agents"),
    path.join(dirs.cwd, ".claude", "agents"),
    path.join(dirs.home, "agents"),
    path.join(userHome, ".claude", "agents"),
  ];
}

function toolList(value: unknown): string[] | undefined | Error {
  if (value === undefined || value === null) return undefined;
  const items = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : undefined;
  if (!items || !items.every((t) => typeof t === "string")) return new Error("`tools` must be a list of tool names or a comma-separated string");
  const names = items.map((t) => t.trim()).filter(Boolean);
  // `*` (or an empty list written as a bare key) means every tool, as in Claude Code's files.
  if (names.length === 0 || names.includes("*")) return undefined;
  return names;
}

/** One agent file; throws with a message that says what to fix. A plugin's file may leave `name` out (the file's name is used). */
export function parseAgentFile(file: string, text: string, defaultName?: string): AgentTypeDefinition {
  const { attributes, body } = parseFrontMatter(text);
  const { description, model, maxTurns } = attributes;
  const name = attributes.name ?? defaultName;
  if (typeof name !== "string" || !NAME.test(name)) throw new Error("front matter needs `name:` made of letters, digits, `-`, `_` or `.` (at most 64)");
  if (typeof description !== "string" || !description.trim()) throw new Error("front matter needs a `description:` saying when to use this agent");
  if (model !== undefined && (typeof model !== "string" || !model.trim())) throw new Error("`model` must be `inherit`, `small` or a model id");
  if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && (maxTurns as number) > 0)) throw new Error("`maxTurns` must be a positive whole number");
  const tools = toolList(attributes.tools);
  if (tools instanceof Error) throw tools;
  if (!body.trim()) throw new Error("the file has no system prompt after the front matter");
  return {
    name,
    description: description.trim(),
    systemPrompt: body.trim(),
    ...(tools ? { tools } : {}),
    model: typeof model === "string" ? model.trim() : "inherit",
    ...(maxTurns !== undefined ? { maxTurns: maxTurns as number } : {}),
    source: file,
  };
}

/** A plugin's agent files, named `<plugin>:<name>`; each must resolve inside the plugin folder. */
function loadPluginAgents(plugin: NonNullable<AgentTypeDirs["plugins"]>[number], custom: Map<string, AgentTypeDefinition>, warnings: string[]): void {
  let realRoot: string;
  try {
    realRoot = fs.realpathSync(plugin.root);
  } catch {
    return;
  }
  for (const { root, only } of plugin.agentRoots) {
    let names: string[];
    try {
      names = only ? [only] : fs.readdirSync(root).sort();
    } catch {
      continue;
    }
    for (const entry of names.filter((n) => n.endsWith(".md"))) {
      const file = path.join(root, entry);
      try {
        const real = fs.realpathSync(file);
        const relative = path.relative(realRoot, real);
        if (relative.startsWith("..") || path.isAbsolute(relative)) throw new Error(`it links to ${real}, outside the plugin folder ${plugin.root}`);
        const stat = fs.statSync(real);
        if (!stat.isFile()) continue;
        if (stat.size > 256 * 1024) throw new Error("the file is larger than 256 KB");
        const type = parseAgentFile(file, fs.readFileSync(real, "utf8"), entry.slice(0, -".md".length));
        const name = `${plugin.name}:${type.name}`;
        if (!custom.has(name)) custom.set(name, { ...type, name });
      } catch (err) {
        warnings.push(`agent file ${file} was skipped: ${(err as Error).message}`);
      }
    }
  }
}

/** Reads every agent file; the first definition of a name (in precedence order) wins. */
export function loadAgentTypes(dirs: AgentTypeDirs): LoadedAgentTypes {
  const warnings: string[] = [];
  const custom = new Map<string, AgentTypeDefinition>();
  for (const plugin of dirs.plugins ?? []) loadPluginAgents(plugin, custom, warnings);
  for (const dir of agentTypeDirs(dirs)) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" && (err as NodeJS.ErrnoException).code !== "ENOTDIR") warnings.push(`${dir}: cannot list agent files (${(err as Error).message})`);
      continue;
    }
    for (const entry of entries.filter((e) => e.name.endsWith(".md")).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, entry.name);
      try {
        const stat = fs.statSync(file);
        if (!stat.isFile()) continue;
        if (stat.size > 256 * 1024) throw new Error("the file is larger than 256 KB");
        const type = parseAgentFile(file, fs.readFileSync(file, "utf8"));
        if (custom.has(type.name)) continue;
        custom.set(type.name, type);
      } catch (err) {
        warnings.push(`agent file ${file} was skipped: ${(err as Error).message}`);
      }
    }
  }
  const types = BUILTIN_AGENT_TYPES.filter((t) => !custom.has(t.name)).concat([...custom.values()].sort((a, b) => a.name.localeCompare(b.name)));
  return { types, warnings };
}

/**
 * Agents defined inline, Claude Code's `--agents` / the SDK's `agents` shape: `{name: {description, prompt,
 * tools?, model?, maxTurns?}}`. An entry without a description or a prompt is a problem and left out.
 */
export function parseInlineAgents(value: unknown, source: string): { agents: AgentTypeDefinition[]; problems: string[] } {
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
  const agents: AgentTypeDefinition[] = [];
  const problems: string[] = [];
  if (!isObject(value)) return { agents, problems: ["must be an object mapping agent names to {description, prompt}"] };
  for (const [name, raw] of Object.entries(value)) {
    if (!isObject(raw) || typeof raw.prompt !== "string" || typeof raw.description !== "string") {
      problems.push(`agents.${name} needs a description and a prompt`);
      continue;
    }
    const tools = Array.isArray(raw.tools) ? raw.tools.filter((t): t is string => typeof t === "string") : [];
    // Claude's model aliases mean nothing to another provider: such an agent runs on the session's model.
    const model = typeof raw.model === "string" && !["sonnet", "opus", "haiku", "inherit"].includes(raw.model) ? raw.model : "inherit";
    agents.push({
      name,
      description: raw.description,
      systemPrompt: raw.prompt,
      ...(tools.length ? { tools } : {}),
      model,
      ...(typeof raw.maxTurns === "number" && Number.isInteger(raw.maxTurns) && raw.maxTurns > 0 ? { maxTurns: raw.maxTurns } : {}),
      source,
    });
  }
  return { agents, problems };
}
