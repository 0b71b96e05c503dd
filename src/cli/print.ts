/** `toolgate -p`: the agent loop without a UI (see src/agent/headless.ts), and the Claude Agent SDK's drop-in. */
import fs from "node:fs";
import { randomUUID } from "node:crypto";
import type { Writable } from "node:stream";
import { createSession, type SessionOptions } from "../session/index.js";
import { EXIT_DENIED, exitCodeFor, runHeadless, type InputFormat, type OutputFormat } from "../agent/headless.js";
import { ControlChannel, writeJsonLine } from "../agent/controlChannel.js";
import { readSdkInitialize, type SdkInitialize } from "../agent/sdkInitialize.js";
import { createAutoModeClassifier } from "../agent/autoMode.js";
import { compactionThreshold } from "../agent/compact.js";
import { priceOf } from "../agent/cost.js";
import { transcriptPath } from "../agent/transcript.js";
import { getModelInfo, readModelOverrides, PROVIDER_NAMES, type ProviderName } from "../providers/index.js";
import { onSignals, signalExitCode, TERMINATION_SIGNALS } from "../core/termination.js";
import type { AnyObject, HookRunEvent, JSONSchema, SessionHookOutcome } from "../core/Tool.js";
import { stopTrackedTrees } from "../util/processTree.js";
import { UsageError } from "./errors.js";
import { untrustedNotice } from "../trust/index.js";
import { fallbackProviders, findResumedSession, prepareAgent, startAgentSession, type AgentFlags } from "./agentSetup.js";
import type { Telemetry } from "../telemetry/index.js";
import { expandSlashPrompt } from "../agent/commands.js";
import { loadBashImplementation } from "../tools/Bash/tool.js";
import { getBuiltinTools } from "../tools/index.js";
import { REPLTool } from "../tools/REPL/index.js";
import { DiagnosticsTool } from "../tools/Diagnostics/index.js";
import { ListMcpResourcesTool, ReadMcpResourceTool } from "../tools/McpResources/index.js";
import { COMPUTER_TOOL_NAME } from "../tools/Computer/prompt.js";
import { createStructuredOutputTool, structuredOutputSystemSection } from "../tools/StructuredOutput/index.js";
import { isInlineSettings, SETTING_SOURCE_NAMES, type SettingSourceName } from "../settings/index.js";
import { getToolgateHome } from "../util/home.js";
import { packageVersion } from "./version.js";
import { parsePositiveInteger, pluginDirsFromFlags, sessionOptionsFromFlags, type SessionFlags } from "./flags.js";

export interface PrintFlags extends SessionFlags, AgentFlags {
  print?: boolean;
  outputFormat?: string;
  inputFormat?: string;
  verbose?: boolean;
  includePartialMessages?: boolean;
  maxTurns?: string;
  permissionPromptTool?: string;
  toolgateEvents?: boolean;
  sessionId?: string;
  /** `--no-session-persistence` sets it false. */
  sessionPersistence?: boolean;
  forkSession?: boolean;
  resumeSessionAt?: string;
  jsonSchema?: string;
  maxBudgetUsd?: string;
  tools?: string;
  settingSources?: string;
  strictMcpConfig?: boolean;
  awaitInitialize?: boolean;
  initializeFields?: string;
  managedSettings?: string;
  managedSettingsInInitialize?: boolean;
  permissionPrompts?: string;
  allowDangerouslySkipPermissions?: boolean;
  maxThinkingTokens?: string;
  thinking?: string;
  thinkingDisplay?: string;
  effort?: string;
  fallbackModel?: string;
  betas?: string;
  taskBudget?: string;
  agent?: string;
  includeHookEvents?: boolean;
  pluginDir?: string[];
  pluginDirNoMcp?: string[];
  channels?: string[];
  resumeDropsTurn?: string;
  sessionMirror?: boolean;
  projectConfigRoot?: string;
  debug?: string | boolean;
  debugToStderr?: boolean;
  debugFile?: string;
}

const OUTPUT_FORMATS: readonly OutputFormat[] = ["text", "json", "stream-json"];
const INPUT_FORMATS: readonly InputFormat[] = ["text", "stream-json"];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Extended thinking when it is switched on without a budget (`--thinking adaptive|enabled`). */
const DEFAULT_THINKING_TOKENS = 8_000;

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk) => (text += chunk));
    process.stdin.on("end", () => resolve(text));
    process.stdin.on("error", reject);
  });
}

/** Flags the Agent SDK may pass that change nothing here: each gets one line, so nobody thinks they took effect. */
function inertFlagWarnings(flags: PrintFlags): string[] {
  const inert: Array<[unknown, string]> = [
    [flags.effort, `--effort ${flags.effort}`],
    [flags.betas, `--betas ${flags.betas}`],
    [flags.taskBudget, `--task-budget ${flags.taskBudget}`],
    [flags.agent, `--agent ${flags.agent}`],
    [flags.channels?.length, "--channels"],
    [flags.resumeDropsTurn, "--resume-drops-turn"],
    [flags.sessionMirror, "--session-mirror"],
    [flags.projectConfigRoot, "--project-config-root"],
    [flags.thinkingDisplay, "--thinking-display"],
    [flags.resumeSessionAt, `--resume-session-at ${flags.resumeSessionAt} (the whole session is resumed)`],
  ];
  return inert.filter(([value]) => Boolean(value)).map(([, text]) => `${text} has no effect in toolgate`);
}

function parseList(value: string | undefined): string[] {
  return (value ?? "").split(/[\s,]+/).filter(Boolean);
}

function parseJsonObject(flag: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${flag} needs JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new UsageError(`${flag} needs a JSON object`);
  return value as Record<string, unknown>;
}

export async function printCommand(promptArg: string | undefined, flags: PrintFlags): Promise<number> {
  const outputFormat = (flags.outputFormat ?? "text") as OutputFormat;
  if (!OUTPUT_FORMATS.includes(outputFormat)) throw new UsageError(`--output-format must be one of ${OUTPUT_FORMATS.join(", ")}, got ${JSON.stringify(flags.outputFormat)}`);
  const inputFormat = (flags.inputFormat ?? "text") as InputFormat;
  if (!INPUT_FORMATS.includes(inputFormat)) throw new UsageError(`--input-format must be one of ${INPUT_FORMATS.join(", ")}, got ${JSON.stringify(flags.inputFormat)}`);
  if (inputFormat === "stream-json" && outputFormat !== "stream-json") throw new UsageError("--input-format stream-json needs --output-format stream-json");
  if (flags.includePartialMessages && outputFormat !== "stream-json") throw new UsageError("--include-partial-messages needs --output-format stream-json");
  if (flags.includeHookEvents && outputFormat !== "stream-json") throw new UsageError("--include-hook-events needs --output-format stream-json");
  if (flags.provider !== undefined && !PROVIDER_NAMES.includes(flags.provider as ProviderName)) throw new UsageError(`--provider must be one of ${PROVIDER_NAMES.join(", ")}, got ${JSON.stringify(flags.provider)}`);
  if (flags.baseUrl !== undefined && !URL.canParse(flags.baseUrl)) throw new UsageError(`--base-url needs a URL such as http://127.0.0.1:11434/v1, got ${JSON.stringify(flags.baseUrl)}`);
  const maxTurns = flags.maxTurns === undefined ? undefined : parsePositiveInteger("--max-turns", flags.maxTurns);
  if (inputFormat === "stream-json" && promptArg !== undefined) throw new UsageError("with --input-format stream-json the prompts come from stdin; drop the prompt argument");
  if (flags.sessionId !== undefined && !UUID.test(flags.sessionId)) throw new UsageError(`--session-id needs a UUID, got ${JSON.stringify(flags.sessionId)}`);
  if (flags.sessionId !== undefined && (flags.continue || flags.resume !== undefined) && !flags.forkSession) throw new UsageError("--session-id names a new session: with --continue or --resume it needs --fork-session");
  if (flags.forkSession && !flags.continue && flags.resume === undefined) throw new UsageError("--fork-session needs --continue or --resume");
  if (flags.permissionPrompts !== undefined && !["host", "none"].includes(flags.permissionPrompts)) throw new UsageError(`--permission-prompts must be host or none, got ${JSON.stringify(flags.permissionPrompts)}`);
  const maxBudgetUsd = flags.maxBudgetUsd === undefined ? undefined : Number(flags.maxBudgetUsd);
  if (maxBudgetUsd !== undefined && !(Number.isFinite(maxBudgetUsd) && maxBudgetUsd > 0)) throw new UsageError(`--max-budget-usd needs an amount above 0, got ${JSON.stringify(flags.maxBudgetUsd)}`);
  const settingSources = flags.settingSources === undefined ? undefined : parseList(flags.settingSources);
  for (const source of settingSources ?? []) if (!(SETTING_SOURCE_NAMES as readonly string[]).includes(source)) throw new UsageError(`--setting-sources takes ${SETTING_SOURCE_NAMES.join(", ")}, got ${JSON.stringify(source)}`);
  if (flags.thinking !== undefined && !["adaptive", "enabled", "disabled"].includes(flags.thinking)) throw new UsageError(`--thinking must be adaptive, enabled or disabled, got ${JSON.stringify(flags.thinking)}`);
  const thinkingBudget = flags.maxThinkingTokens === undefined ? undefined : Number(flags.maxThinkingTokens);
  if (thinkingBudget !== undefined && !(Number.isInteger(thinkingBudget) && thinkingBudget >= 0)) throw new UsageError(`--max-thinking-tokens needs a whole number, got ${JSON.stringify(flags.maxThinkingTokens)}`);
  const thinkingTokens = flags.thinking === "disabled" ? undefined : thinkingBudget ? thinkingBudget : flags.thinking ? DEFAULT_THINKING_TOKENS : undefined;
  const flagSchema = flags.jsonSchema === undefined ? undefined : parseJsonObject("--json-schema", flags.jsonSchema);
  if (flags.managedSettings !== undefined) parseJsonObject("--managed-settings", flags.managedSettings);
  if (flags.settings !== undefined && isInlineSettings(flags.settings)) parseJsonObject("--settings", flags.settings);
  if (flags.awaitInitialize && inputFormat !== "stream-json") throw new UsageError("--await-initialize needs --input-format stream-json");
  // `--permission-prompt-tool stdio` (the Agent SDK, when canUseTool is set): the controlling program answers.
  const hostAnswers = flags.permissionPromptTool === "stdio";
  if (hostAnswers && inputFormat !== "stream-json") throw new UsageError("--permission-prompt-tool stdio needs --input-format stream-json");

  // Diagnostics: stderr, or the --debug-file.
  const debugFile = flags.debugFile ? fs.createWriteStream(flags.debugFile, { flags: "a", mode: 0o600 }) : undefined;
  const diagnostics: Writable = debugFile ?? process.stderr;
  const verbose = Boolean(flags.verbose || flags.debug || flags.debugToStderr || flags.debugFile);
  const warn = (text: string) => {
    if (outputFormat !== "stream-json" || verbose) diagnostics.write(`[toolgate] warning: ${text}\n`);
  };

  let prompt = promptArg;
  if (inputFormat === "text" && prompt === undefined) {
    if (process.stdin.isTTY) throw new UsageError('-p needs a prompt: toolgate -p "explain this repository" (or pipe it on stdin)');
    prompt = (await readStdin()).trim();
  }
  if (inputFormat === "text" && !prompt?.trim()) throw new UsageError("the prompt is empty");

  // stream-json input: the first line is read before the session is built, since the Agent SDK's initialize
  // (always its first line) carries MCP servers, hooks, agents and the system prompt the session is made of.
  let channel: ControlChannel | undefined;
  let initialize: SdkInitialize | undefined;
  if (inputFormat === "stream-json") {
    channel = new ControlChannel(process.stdin, (value) => writeJsonLine(process.stdout, value));
    const first = await channel.next();
    if (first?.kind === "value" && first.value.type === "control_request" && (first.value.request as Record<string, unknown> | undefined)?.subtype === "initialize") {
      initialize = readSdkInitialize(typeof first.value.request_id === "string" ? first.value.request_id : "", first.value.request as Record<string, unknown>, channel);
    } else if (first) {
      channel.unshift(first);
    }
    if (flags.awaitInitialize && !initialize) throw new UsageError("--await-initialize: the first stdin line was not an initialize control request");
  }
  for (const problem of initialize?.problems ?? []) warn(problem);
  for (const text of inertFlagWarnings(flags)) warn(text);

  // The Bash analysis loads while the session starts and the model thinks: until it has, Bash calls are
  // batched as not concurrency-safe.
  void loadBashImplementation().catch(() => undefined);
  const fromFlags = sessionOptionsFromFlags(flags);
  if (initialize?.settingsText !== undefined && flags.settings !== undefined) warn("settings came both in --settings and in initialize: the ones in initialize are used");
  const sessionOptions: SessionOptions = {
    ...fromFlags,
    ...(initialize?.settingsText !== undefined ? { settingsFile: initialize.settingsText } : {}),
    ...(settingSources ? { settingSources: settingSources as SettingSourceName[] } : {}),
    ...((initialize?.managedSettingsText ?? flags.managedSettings) !== undefined ? { managedSettingsText: initialize?.managedSettingsText ?? flags.managedSettings } : {}),
    disallowedTools: [...(fromFlags.disallowedTools ?? []), ...(initialize?.disallowedTools ?? [])],
    addDirs: [...(fromFlags.addDirs ?? []), ...(initialize?.additionalDirectories ?? [])],
    ...(flags.strictMcpConfig ? { strictMcpConfig: true } : {}),
    ...(hostAnswers ? { noSandboxAutoAllow: true } : {}),
    ...(initialize?.hookCallbacks.length ? { hookCallbacks: initialize.hookCallbacks } : {}),
    ...(initialize?.sdkMcpServers.length ? { extraMcpServers: initialize.sdkMcpServers } : {}),
    pluginDirs: pluginDirsFromFlags(flags, process.cwd()),
  };
  const resumed = findResumedSession(flags, sessionOptions);

  // --tools: the built-in tools offered ("default": all of them; an empty list: none), chosen from what the session
  // offers (Diagnostics with a language server, computer with --computer-use, the MCP resource tools with servers).
  let onlyTools: string[] | undefined;
  if (sessionOptions.tools === undefined && flags.tools !== undefined && flags.tools.trim() !== "default") {
    onlyTools = parseList(flags.tools);
    const known = [...getBuiltinTools(), REPLTool, DiagnosticsTool, ListMcpResourcesTool, ReadMcpResourceTool].flatMap((t) => [t.name, ...(t.aliases ?? [])]).concat(COMPUTER_TOOL_NAME);
    for (const name of onlyTools) if (!known.includes(name)) warn(`--tools: toolgate has no built-in tool ${name}`);
  }
  // --json-schema (or initialize's jsonSchema): the model answers with the StructuredOutput tool, offered with the rest.
  const schema = initialize?.jsonSchema ?? flagSchema;
  let answered: AnyObject | undefined;
  const extraTools = schema ? [createStructuredOutputTool(schema as JSONSchema, (value) => (answered = value))] : [];

  let sessionId = resumed && !flags.forkSession ? resumed.sessionId : (flags.sessionId ?? undefined);
  if (flags.sessionId && fs.existsSync(transcriptPath(sessionOptions.home ?? getToolgateHome(), sessionOptions.cwd!, flags.sessionId))) throw new UsageError(`--session-id ${flags.sessionId}: a session with this id exists already (resume it with --resume)`);
  if (flags.forkSession && !sessionId) sessionId = randomUUID();

  // With a prompt tool or a controlling client someone can answer "ask": the session must not auto-deny.
  const canAsk = (flags.permissionPromptTool !== undefined || inputFormat === "stream-json" || flags.permissionMode === "auto") && flags.permissionPrompts !== "none";
  let telemetry: Telemetry | undefined;
  const mcpConfigFiles = [...(flags.mcpConfig ?? []), ...(initialize?.mcpConfigText !== undefined ? [initialize.mcpConfigText] : [])];
  const session = await createSession({ ...sessionOptions, ...(onlyTools ? { onlyTools } : {}), ...(extraTools.length ? { extraTools } : {}), mcpConfigFiles, interactive: canAsk, ...(sessionId ? { sessionId } : {}) });
  try {
    if (session.fatalErrors.length > 0) {
      for (const error of session.fatalErrors) process.stderr.write(`toolgate: refusing to run tools: ${error}\n`);
      return 2;
    }
    if (session.untrusted.length > 0) process.stderr.write(`${untrustedNotice(session.trust.folder, session.untrusted)}\n`);
    for (const warning of session.warnings) warn(warning);

    let permissionPromptTool;
    if (flags.permissionPromptTool !== undefined && !hostAnswers) {
      permissionPromptTool = (session.mcp?.tools() ?? []).find((t) => t.name === flags.permissionPromptTool);
      if (!permissionPromptTool) {
        const known = (session.mcp?.tools() ?? []).map((t) => t.name);
        throw new UsageError(`--permission-prompt-tool ${flags.permissionPromptTool}: no such MCP tool${known.length ? ` (connected MCP tools: ${known.join(", ")})` : " (no MCP server is connected; add one with --mcp-config)"}`);
      }
    }

    const agentFlags: AgentFlags = {
      ...flags,
      ...(initialize?.systemPrompt !== undefined ? { systemPrompt: initialize.systemPrompt } : {}),
      ...(initialize?.appendSystemPrompt !== undefined ? { appendSystemPrompt: [flags.appendSystemPrompt, initialize.appendSystemPrompt].filter(Boolean).join("\n\n") } : {}),
    };
    const prepared = await prepareAgent(session, agentFlags, { agents: initialize?.agents ?? [] });
    const { provider, system: preparedSystem, merged, cwd, commands, notices } = prepared;
    const baseSystem = schema ? [...preparedSystem, structuredOutputSystemSection()] : preparedSystem;
    telemetry = prepared.telemetry;
    for (const notice of notices) warn(notice);
    if (maxBudgetUsd !== undefined && priceOf(provider.model) === undefined) warn(`--max-budget-usd: toolgate knows no price for ${provider.model}, so its cost counts as 0 and the budget never stops the run`);
    // `/name args` runs a custom command; any other text, `/etc/hosts …` included, goes to the model as written.
    // -p's own `/compact` (headless.ts) wins over a custom command of that name.
    if (prompt !== undefined) prompt = expandSlashPrompt(prompt, commands, { builtin: ["compact"] }).prompt;
    // `/mcp__server__prompt args` asks that server for the prompt to send.
    if (prompt?.startsWith("/mcp__") && session.mcp) {
      const { expandMcpPrompt } = await import("../mcp/client/prompts.js");
      const expanded = await expandMcpPrompt(prompt, session.mcp.clients, AbortSignal.timeout(10 * 60_000));
      if (expanded.kind === "error") throw new UsageError(expanded.message);
      if (expanded.kind === "prompt") prompt = expanded.text;
    }

    // First Ctrl-C interrupts the model and the tools (the result line still comes); a second one quits.
    const controller = new AbortController();
    let interrupts = 0;
    const onSigint = () => {
      interrupts++;
      if (interrupts > 1) process.exit(130);
      if (outputFormat !== "stream-json") process.stderr.write("[toolgate] interrupted: stopping the model and the running tools (Ctrl-C again to quit now)\n");
      controller.abort();
    };
    // SessionEnd runs once: at the run's end, or here when a signal ends it first (each hook bounded by its timeout).
    let sessionEnded: Promise<SessionHookOutcome | undefined> | undefined;
    const endSession = () => (sessionEnded ??= session.context.hookRunner?.sessionEnd?.({ context: session.context, reason: "other" }) ?? Promise.resolve(undefined));
    const offTermination = onSignals(TERMINATION_SIGNALS, (signal) => {
      controller.abort();
      const hooks = signal === "SIGHUP" ? Promise.resolve(undefined) : endSession();
      void hooks.finally(() => Promise.allSettled([session.close(), stopTrackedTrees(), telemetry?.shutdown()]).finally(() => process.exit(signalExitCode(signal))));
    });
    process.on("SIGINT", onSigint);
    try {
      const earlyHookEvents: HookRunEvent[] = [];
      const stopEarly = flags.includeHookEvents ? session.context.hookRunner?.observe?.((event) => earlyHookEvents.push(event)) : undefined;
      const { system, messages, transcript } = await startAgentSession(session, { provider, system: baseSystem, cwd, resumed, persist: flags.sessionPersistence !== false, fork: flags.forkSession === true });
      stopEarly?.();
      const env = session.context.env;
      const result = await runHeadless({
        messages,
        transcript,
        session,
        provider,
        system,
        prompt,
        channel,
        inputFormat,
        output: process.stdout,
        diagnostics,
        outputFormat,
        verbose,
        includePartialMessages: flags.includePartialMessages,
        includeHookEvents: flags.includeHookEvents,
        earlyHookEvents,
        maxTurns,
        signal: controller.signal,
        permissionPromptTool,
        compactionThreshold: compactionThreshold(getModelInfo(provider.model, readModelOverrides(merged))),
        classifier: session.context.getAppState().toolPermissionContext.mode === "auto" ? createAutoModeClassifier(provider) : undefined,
        toolgateEvents: flags.toolgateEvents === true,
        askHost: flags.permissionPrompts !== "none",
        initialize,
        switchModel: prepared.switchModel,
        endSession,
        ...(flags.fallbackModel ? { fallbackProviders: fallbackProviders(prepared, flags.fallbackModel) } : {}),
        ...(thinkingTokens ? { thinkingTokens } : {}),
        ...(maxBudgetUsd !== undefined ? { maxBudgetUsd } : {}),
        ...(schema
          ? {
              structuredOutput: {
                take: () => {
                  const value = answered;
                  answered = undefined;
                  return value;
                },
              },
            }
          : {}),
        about: {
          version: packageVersion(),
          commands: [
            ...commands.commands.map((c) => ({ name: c.qualifiedName, description: c.description, argumentHint: c.argumentHint ?? "" })),
            ...(session.mcp ? (await import("../mcp/client/prompts.js")).mcpPromptCommands(session.mcp.clients) : []).map((c) => ({
              name: c.name,
              description: c.description,
              argumentHint: c.argumentHint,
            })),
          ],
          agents: prepared.agentTypes.map((a) => ({ name: a.name, description: a.description, ...(a.model && a.model !== "inherit" ? { model: a.model } : {}) })),
          skills: prepared.skillNames,
          plugins: session.plugins.map((p) => ({ name: p.name, path: p.root })),
          apiKeySource: provider.name === "anthropic" && env.ANTHROPIC_API_KEY ? "ANTHROPIC_API_KEY" : "none",
          additionalDirectories: [...session.context.getAppState().toolPermissionContext.additionalWorkingDirectories].map((d) => d.path),
        },
      });
      if (interrupts > 0) return 130;
      // Text and json: a run that finished with calls no one could approve says so in its exit code.
      if (outputFormat !== "stream-json" && result.reason === "completed" && result.unansweredAsks) return EXIT_DENIED;
      return exitCodeFor(result);
    } finally {
      process.off("SIGINT", onSigint);
      offTermination();
    }
  } finally {
    channel?.close();
    await session.close();
    await telemetry?.shutdown();
    await new Promise<void>((resolve) => (debugFile ? debugFile.end(() => resolve()) : resolve()));
  }
}
