/**
 * The system prompt of an agent session: who the model is working for and how, the environment, and the
 * user's instructions. Tool descriptions travel with the tool definitions, not here.
 */
import { formatEnvironment, type Environment } from "./environment.js";
import { formatProjectInstructions, type ProjectInstructions } from "./instructions.js";

/** How the base prompt names the file tools; a session offering another edit dialect names its own. */
const DEFAULT_FILE_TOOLS = "Read, Edit, Write, Glob and Grep";

const BASE_PROMPT = `You are a coding agent working in the user's project through toolgate. You act only through the tools you are given: read before you change, keep changes to what the task needs, and check your work (run the tests or the command that proves it) before you say it is done.

How to work:
- Prefer the dedicated tools over shell commands for files and search: Read, Edit, Write, Glob and Grep are faster, safer and checked. Use Bash for builds, tests, git and other programs.
- Calls that do not depend on each other can go in one message; read-only ones then run in parallel.
- A call may be denied by the user's permission rules or hooks. Do not retry a denied call unchanged: adapt, or ask the user.
- A tool result marked as an error tells you what went wrong and usually how to fix the call: read it before trying again.
- Be brief with the user. Say what you changed and what you could not do. Reference code as path:line.
- Never invent file contents, command output or test results. If you did not run it, say so.`;

export interface SystemPromptParts {
  environment: Environment;
  instructions: ProjectInstructions;
  /** `--system-prompt`: replaces the base prompt (environment and instructions stay). */
  systemPrompt?: string;
  /** `--append-system-prompt`: added at the end. */
  appendSystemPrompt?: string;
  /** Sections other parts contribute (the skills listing), after the instructions. */
  extraSections?: readonly string[];
  /** The file tools the session offers, as the base prompt lists them (see DEFAULT_FILE_TOOLS). */
  fileTools?: string;
}

/** The prompt as sections, so a provider can cache the stable head apart from the rest. */
export function buildSystemPrompt(parts: SystemPromptParts): string[] {
  const base = parts.fileTools ? BASE_PROMPT.replace(DEFAULT_FILE_TOOLS, parts.fileTools) : BASE_PROMPT;
  const sections = [parts.systemPrompt ?? base, `<environment>\n${formatEnvironment(parts.environment)}\n</environment>`];
  const instructions = formatProjectInstructions(parts.instructions);
  if (instructions) sections.push(instructions);
  sections.push(...(parts.extraSections ?? []));
  if (parts.appendSystemPrompt) sections.push(parts.appendSystemPrompt);
  return sections;
}
