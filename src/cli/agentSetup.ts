/**
 * What `-p` and the interactive UI share when they start the agent: the session to resume, the provider and
 * the model access tools use, the system prompt, the SessionStart hooks, the transcript.
 */
import { createProvider, resolveProviderConfig, type Provider, type ProviderName } from "../providers/index.js";
import { createModelAccess } from "../agent/modelAccess.js";
import { findProjectInstructions } from "../agent/instructions.js";
import { readEnvironment } from "../agent/environment.js";
import { buildSystemPrompt } from "../agent/systemPrompt.js";
import { findSession, loadTranscript, openTranscript, pruneSessions, SessionNotFoundError, type LoadedTranscript, type TranscriptWriter } from "../agent/transcript.js";
import { readCleanupPeriodDays } from "../agent/settingsSection.js";
import { repairHistory } from "../agent/history.js";
import { loadAgentTypes } from "../agent/agentTypes.js";
import { createSubagentRunner, enableSubagents } from "../agent/subagent.js";
import { latestTodos } from "../agent/todos.js";
import type { Message } from "../core/messages.js";
import type { Session, SessionOptions } from "../session/index.js";
import { getToolgateHome } from "../util/home.js";
import { UsageError } from "./errors.js";

export interface AgentFlags {
  model?: string;
  provider?: string;
  baseUrl?: string;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  continue?: boolean;
  /** `--resume` alone is true; with an id (or a prefix of one) the string. */
  resume?: string | boolean;
}

/**
 * The transcript `--continue` / `--resume ID` name, loaded; undefined for a new session. `--resume` without an
 * id is a usage error where no one can pick a session (`-p`).
 */
export function findResumedSession(flags: AgentFlags, sessionOptions: SessionOptions, options: { canPick?: boolean } = {}): LoadedTranscript | undefined {
  if (flags.continue && flags.resume !== undefined) throw new UsageError("use --continue or --resume, not both");
  if (flags.resume === true && !options.canPick) throw new UsageError("--resume needs a session id (or the start of one) with -p; toolgate sessions lists them");
  if (!flags.continue && typeof flags.resume !== "string") return undefined;
  // A resumed session keeps its id: its transcript, checkpoints and persisted results continue where they were.
  try {
    const found = findSession(sessionOptions.home ?? getToolgateHome(), sessionOptions.cwd!, typeof flags.resume === "string" ? flags.resume : undefined);
    return loadTranscript(found.path);
  } catch (err) {
    if (err instanceof SessionNotFoundError) throw new UsageError(`${flags.continue ? "--continue" : "--resume"}: ${err.message}`);
    throw err;
  }
}

export interface PreparedAgent {
  provider: Provider;
  /** System prompt sections before the SessionStart hooks ran. */
  system: string[];
  merged: Readonly<Record<string, unknown>>;
  cwd: string;
  /** Problems the user should hear about (agent files that were skipped). */
  warnings: string[];
}

/** The provider (and `context.models` over it) and the system prompt for a session. No network yet. */
export async function prepareAgent(session: Session, flags: AgentFlags): Promise<PreparedAgent> {
  const merged = session.context.options.settings;
  const selection = { provider: flags.provider as ProviderName | undefined, model: flags.model, baseURL: flags.baseUrl };
  const provider = createProvider({ ...selection, settings: merged });
  const smallModel = resolveProviderConfig(selection, session.context.env, merged).smallModel;
  session.context.models = createModelAccess({ provider, smallModel });
  const cwd = session.context.getCwd();
  const environment = await readEnvironment(cwd);
  const instructions = findProjectInstructions({ cwd, home: session.context.paths.home });
  const system = buildSystemPrompt({ environment, instructions, systemPrompt: flags.systemPrompt, appendSystemPrompt: flags.appendSystemPrompt });
  const agentTypes = loadAgentTypes({ cwd, home: session.context.paths.home, userHome: session.context.env.HOME });
  const runner = createSubagentRunner({
    provider,
    smallModel,
    types: agentTypes.types,
    systemFor: (typePrompt) => buildSystemPrompt({ environment, instructions, systemPrompt: typePrompt }),
  });
  enableSubagents(session.context, runner);
  return { provider, system, merged, cwd, warnings: agentTypes.warnings };
}

export interface StartedAgentSession {
  /** The system prompt with what SessionStart hooks added. */
  system: string[];
  /** The conversation: the resumed one (repaired) or a new, empty one. */
  messages: Message[];
  transcript: TranscriptWriter;
}

/**
 * Run the SessionStart hooks, prune old transcripts, and open this session's transcript (repairing a resumed
 * history first). Hook notices and repairs are reported through `report`.
 */
export async function startAgentSession(
  session: Session,
  options: { provider: Provider; system: string[]; cwd: string; resumed?: LoadedTranscript; report?: (line: string) => void },
): Promise<StartedAgentSession> {
  const report = options.report ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { context } = session;
  const sessionStart = await context.hookRunner?.sessionStart?.({ context, source: options.resumed ? "resume" : "startup" });
  for (const notice of sessionStart?.notices ?? []) report(`[toolgate] ${notice.hookEvent} hook ${notice.level}: ${notice.message}`);
  const startContext = sessionStart?.additionalContext ?? [];
  pruneSessions(context.paths.home, options.cwd, readCleanupPeriodDays(context.options.settings), context.sessionId);
  const messages: Message[] = options.resumed?.messages ?? [];
  // The task list lives in the TodoWrite calls of the history.
  const todos = latestTodos(messages);
  if (todos) context.todos?.set(todos);
  const transcript = openTranscript({ home: context.paths.home, cwd: options.cwd, sessionId: context.sessionId, model: options.provider.model, lastUuid: options.resumed?.lastUuid });
  if (options.resumed) {
    const problems = [...options.resumed.problems, ...repairHistory(messages)];
    if (problems.length) {
      transcript.repaired(problems);
      report(`[toolgate] resumed session ${options.resumed.sessionId}: ${problems.join("; ")}`);
    }
  }
  const system = startContext.length ? [...options.system, ...startContext.map((c) => `Context from a SessionStart hook:\n${c}`)] : options.system;
  return { system, messages, transcript };
}
