/**
 * What `-p` and the interactive UI share when they start the agent: the session to resume, the provider and
 * the model access tools use, the system prompt, the SessionStart hooks, the transcript.
 */
import { createProvider, getModelInfo, readModelOverrides, resolveProviderConfig, type Provider, type ProviderName } from "../providers/index.js";
import { createModelAccess } from "../agent/modelAccess.js";
import { findProjectInstructions } from "../agent/instructions.js";
import { readEnvironment } from "../agent/environment.js";
import { buildSystemPrompt } from "../agent/systemPrompt.js";
import { DEFAULT_OUTPUT_STYLE, loadOutputStyles, readOutputStyleSetting, withOutputStyle, type OutputStyle } from "../agent/outputStyles.js";
import { findSession, loadTranscript, openTranscript, pruneSessions, SessionNotFoundError, type LoadedTranscript, type TranscriptWriter } from "../agent/transcript.js";
import { readCleanupPeriodDays } from "../agent/settingsSection.js";
import { repairHistory } from "../agent/history.js";
import { loadCustomCommands, type CustomCommands } from "../agent/commands.js";
import { formatSkillListing, listingBudgetFor, loadSkillCatalog } from "../tools/Skill/catalog.js";
import { SKILL_TOOL_NAME } from "../tools/Skill/prompt.js";
import { readDenial } from "../tools/files/toolPaths.js";
import { loadAgentTypes, parseInlineAgents, type AgentTypeDefinition } from "../agent/agentTypes.js";
import { createSubagentRunner, enableSubagents, type SubagentRunnerOptions } from "../agent/subagent.js";
import { latestTodos } from "../agent/todos.js";
import type { Message } from "../core/messages.js";
import type { Session, SessionOptions } from "../session/index.js";
import { getToolgateHome } from "../util/home.js";
import { applyEditDialect, describeFileTools, readEditDialect, resolveEditDialect } from "../tools/editDialect.js";
import { UsageError } from "./errors.js";
import { hideWebSearchWithoutBackend } from "../tools/WebSearch/index.js";
import { packageVersion } from "./version.js";
import { startTelemetry, type Telemetry } from "../telemetry/index.js";

export interface AgentFlags {
  model?: string;
  provider?: string;
  baseUrl?: string;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  continue?: boolean;
  /** `--resume` alone is true; with an id (or a prefix of one) the string. */
  resume?: string | boolean;
  /**
   * `--fallback-model`: models (comma-separated, tried in order) a request goes to when the main one is overloaded
   * or not found; each prompt starts on the main model again.
   */
  fallbackModel?: string;
  /** `--agents <json>`: subagents defined inline, over the files' agents of the same name. */
  agents?: string;
}

/** `--agents`' JSON as agent types; anything wrong with it is a usage error that names the problem. */
export function parseAgentsFlag(text: string): AgentTypeDefinition[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--agents: not valid JSON (${(err as Error).message}); expected {"name": {"description": "…", "prompt": "…"}}`);
  }
  const { agents, problems } = parseInlineAgents(value, "--agents");
  if (problems.length) throw new UsageError(`--agents: ${problems.join("; ")}`);
  return agents;
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

/** `--fallback-model a,b`: providers for each model, in order, each made once when first needed. */
export function fallbackProviders(prepared: Pick<PreparedAgent, "providerFor">, flag: string): () => Provider[] {
  const names = flag.split(",").map((name) => name.trim()).filter(Boolean);
  const made = new Map<string, Provider>();
  return () =>
    names.map((name) => {
      let provider = made.get(name);
      if (!provider) made.set(name, (provider = prepared.providerFor(name)));
      return provider;
    });
}

export interface PreparedAgent {
  provider: Provider;
  /** Switches the session to another main model (for the UI's /model): returns its provider. */
  switchModel(model: string): Provider;
  /** A provider for another model of the same server, without changing the session's (--fallback-model). */
  providerFor(model: string): Provider;
  /** System prompt sections before the SessionStart hooks ran. */
  system: string[];
  merged: Readonly<Record<string, unknown>>;
  cwd: string;
  /** OpenTelemetry, when TOOLGATE_ENABLE_TELEMETRY is set (already on `context.telemetry`); shut it down at exit. */
  telemetry?: Telemetry;
  /** Custom slash commands (`.toolgate/commands`, `.claude/commands`). */
  commands: CustomCommands;
  /** The subagent types the Agent tool offers. */
  agentTypes: readonly AgentTypeDefinition[];
  /** The skills offered to the model. */
  skillNames: string[];
  /** Bad skill, command and agent files, name clashes: for the user, not the model. */
  notices: string[];
  /** The output style in the system prompt (settings `outputStyle`; the default one when unset or unknown). */
  outputStyle: OutputStyle;
}

/** The provider (and `context.models` over it) and the system prompt for a session. No network yet. */
export async function prepareAgent(session: Session, flags: AgentFlags, extra: { agents?: readonly AgentTypeDefinition[] } = {}): Promise<PreparedAgent> {
  const merged = session.context.options.settings;
  const selection = { provider: flags.provider as ProviderName | undefined, model: flags.model, baseURL: flags.baseUrl };
  const provider = createProvider({ ...selection, settings: merged });
  const smallModel = resolveProviderConfig(selection, session.context.env, merged).smallModel;
  session.context.models = createModelAccess({ provider, smallModel });
  hideWebSearchWithoutBackend(session.context);
  const telemetry = await startTelemetry(process.env, {
    sessionId: session.context.sessionId,
    version: packageVersion(),
    command: "agent",
    model: provider.model,
    provider: provider.name,
    permissionMode: session.context.getAppState().toolPermissionContext.mode,
    resumed: Boolean(flags.continue || flags.resume),
  });
  if (telemetry) session.context.telemetry = telemetry.sink;
  // The edit tools this provider's models were trained on (settings `editTools`), and only those.
  const dialect = resolveEditDialect(readEditDialect(merged), provider.name, provider.model);
  applyEditDialect(session.context, dialect);
  const cwd = session.context.getCwd();
  const locations = { cwd, home: session.context.paths.home, userHome: session.context.env.HOME, plugins: session.plugins };
  // Skills are listed to the model (about 1% of its window) and grow as files are written near new skills folders.
  const skills = await loadSkillCatalog(locations);
  const skillsOn = session.context.options.tools.some((t) => t.name === SKILL_TOOL_NAME);
  if (skillsOn) {
    // The observer list is shared with subagents: changed in place, and a catalog from an earlier call replaced.
    const observers = (session.context.fileWriteObservers ??= []);
    const earlier = observers.findIndex((o) => o === session.context.skills);
    observers.splice(earlier >= 0 ? earlier : observers.length, earlier >= 0 ? 1 : 0, skills);
    session.context.skills = skills;
  }
  // A skill whose SKILL.md a Read rule denies cannot be loaded, so it is not offered either.
  const offered = skills.list().filter((s) => !readDenial(s.file, session.context));
  const listing = skillsOn ? formatSkillListing(offered, listingBudgetFor(getModelInfo(provider.model, readModelOverrides(merged)).contextWindow)) : undefined;
  const commands = loadCustomCommands(locations);
  const environment = await readEnvironment(cwd);
  // Instruction files pass the Read rules (a CLAUDE.md linked to a denied file stays out of the prompt).
  const instructions = findProjectInstructions({ cwd, home: session.context.paths.home, readDenial: (file, real) => readDenial(file, session.context, real) });
  const common = { environment, instructions, extraSections: listing ? [listing] : [], fileTools: describeFileTools(dialect) };
  // The output style shapes the main agent's answers; subagents report to it, not to the person, and keep theirs plain.
  const styles = loadOutputStyles(locations);
  const wantedStyle = readOutputStyleSetting(merged);
  const outputStyle = (wantedStyle && styles.find(wantedStyle)) || styles.find(DEFAULT_OUTPUT_STYLE)!;
  const styleNotices = [...styles.problems, ...(wantedStyle && !styles.find(wantedStyle) ? [`output style "${wantedStyle}" (settings outputStyle) does not exist; using the default one (styles: ${styles.styles.map((s) => s.name).join(", ")})`] : [])];
  const system = withOutputStyle(buildSystemPrompt({ ...common, systemPrompt: flags.systemPrompt, appendSystemPrompt: flags.appendSystemPrompt }), outputStyle);
  // Subagents: the agent types of the project and the user, each with its own system prompt over the same environment.
  const agentTypes = loadAgentTypes(locations);
  // The controlling program's (initialize) win over --agents, which win over files.
  const fromFlag = flags.agents === undefined ? [] : parseAgentsFlag(flags.agents);
  const sdkGiven = extra.agents ?? [];
  const given = [...fromFlag.filter((a) => !sdkGiven.some((g) => g.name === a.name)), ...sdkGiven];
  const types = [...agentTypes.types.filter((t) => !given.some((g) => g.name === t.name)), ...given];
  const runnerOptions: SubagentRunnerOptions = {
    provider,
    smallModel,
    types,
    systemFor: (typePrompt) => buildSystemPrompt({ ...common, systemPrompt: typePrompt }),
  };
  enableSubagents(session.context, createSubagentRunner(runnerOptions));
  // Another main model for the rest of the session: the next requests, the tools' model access and the
  // subagents (an agent type's `inherit` and `small` follow it; the runner reads its options at each run).
  const switchModel = (model: string): Provider => {
    const next = createProvider({ ...selection, model, settings: merged });
    const nextSmall = resolveProviderConfig({ ...selection, model }, session.context.env, merged).smallModel;
    session.context.models = createModelAccess({ provider: next, smallModel: nextSmall });
    runnerOptions.provider = next;
    runnerOptions.smallModel = nextSmall;
    return next;
  };
  const refusedInstructions = instructions.refused.map((r) => `instruction file ${r.path} was not read: ${r.reason}`);
  const notices = [...refusedInstructions, ...(skillsOn ? skills.problems : []), ...commands.problems, ...agentTypes.warnings, ...styleNotices];
  const providerFor = (model: string): Provider => createProvider({ ...selection, model, settings: merged });
  return { provider, switchModel, providerFor, system, merged, cwd, commands, agentTypes: types, skillNames: skillsOn ? offered.map((s) => s.name) : [], notices, outputStyle, ...(telemetry ? { telemetry } : {}) };
}

/** `--no-session-persistence`: a transcript that keeps nothing. */
function discardingTranscript(sessionId: string): TranscriptWriter {
  const nothing = () => undefined;
  return { path: "", sessionId, append: nothing, result: nothing, repaired: nothing, refused: nothing, changes: nothing, compacted: nothing };
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
  options: {
    provider: Provider;
    system: string[];
    cwd: string;
    resumed?: LoadedTranscript;
    report?: (line: string) => void;
    /** false (`--no-session-persistence`): nothing is written; the session cannot be resumed. */
    persist?: boolean;
    /** `--fork-session`: the resumed conversation continues under this session's own (new) id. */
    fork?: boolean;
  },
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
  const transcript =
    options.persist === false
      ? discardingTranscript(context.sessionId)
      : openTranscript({ home: context.paths.home, cwd: options.cwd, sessionId: context.sessionId, model: options.provider.model, lastUuid: options.fork ? null : options.resumed?.lastUuid });
  // A fork starts its own file with the conversation so far, so it resumes on its own later.
  if (options.fork && options.resumed) for (const message of messages) transcript.append(message);
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
