/** `toolgate -p`: the agent loop without a UI (see src/agent/headless.ts). */
import { createProvider, resolveProviderConfig, PROVIDER_NAMES, type ProviderName } from "../providers/index.js";
import { createModelAccess } from "../agent/modelAccess.js";
import { createSession } from "../session/index.js";
import { findProjectInstructions } from "../agent/instructions.js";
import { readEnvironment } from "../agent/environment.js";
import { buildSystemPrompt } from "../agent/systemPrompt.js";
import { exitCodeFor, runHeadless, type InputFormat, type OutputFormat } from "../agent/headless.js";
import { createAutoModeClassifier } from "../agent/autoMode.js";
import { findSession, loadTranscript, openTranscript, pruneSessions, SessionNotFoundError } from "../agent/transcript.js";
import { readCleanupPeriodDays } from "../agent/settingsSection.js";
import { repairHistory } from "../agent/history.js";
import { compactionThreshold } from "../agent/compact.js";
import { getModelInfo, readModelOverrides } from "../providers/index.js";
import { getToolgateHome } from "../util/home.js";
import type { Message } from "../core/messages.js";
import { onSignals, signalExitCode, TERMINATION_SIGNALS } from "../core/termination.js";
import { stopTrackedTrees } from "../util/processTree.js";
import { UsageError } from "./errors.js";
import { loadBashImplementation } from "../tools/Bash/tool.js";
import { parsePositiveInteger, sessionOptionsFromFlags, type SessionFlags } from "./flags.js";

export interface PrintFlags extends SessionFlags {
  print?: boolean;
  outputFormat?: string;
  inputFormat?: string;
  verbose?: boolean;
  includePartialMessages?: boolean;
  model?: string;
  provider?: string;
  baseUrl?: string;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  maxTurns?: string;
  permissionPromptTool?: string;
  continue?: boolean;
  /** `--resume` alone is true; with an id (or a prefix of one) the string. */
  resume?: string | boolean;
}

const OUTPUT_FORMATS: readonly OutputFormat[] = ["text", "json", "stream-json"];
const INPUT_FORMATS: readonly InputFormat[] = ["text", "stream-json"];

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk) => (text += chunk));
    process.stdin.on("end", () => resolve(text));
    process.stdin.on("error", reject);
  });
}

export async function printCommand(promptArg: string | undefined, flags: PrintFlags): Promise<number> {
  const outputFormat = (flags.outputFormat ?? "text") as OutputFormat;
  if (!OUTPUT_FORMATS.includes(outputFormat)) throw new UsageError(`--output-format must be one of ${OUTPUT_FORMATS.join(", ")}, got ${JSON.stringify(flags.outputFormat)}`);
  const inputFormat = (flags.inputFormat ?? "text") as InputFormat;
  if (!INPUT_FORMATS.includes(inputFormat)) throw new UsageError(`--input-format must be one of ${INPUT_FORMATS.join(", ")}, got ${JSON.stringify(flags.inputFormat)}`);
  if (inputFormat === "stream-json" && outputFormat !== "stream-json") throw new UsageError("--input-format stream-json needs --output-format stream-json");
  if (flags.includePartialMessages && outputFormat !== "stream-json") throw new UsageError("--include-partial-messages needs --output-format stream-json");
  if (flags.provider !== undefined && !PROVIDER_NAMES.includes(flags.provider as ProviderName)) throw new UsageError(`--provider must be one of ${PROVIDER_NAMES.join(", ")}, got ${JSON.stringify(flags.provider)}`);
  if (flags.baseUrl !== undefined && !URL.canParse(flags.baseUrl)) throw new UsageError(`--base-url needs a URL such as http://127.0.0.1:11434/v1, got ${JSON.stringify(flags.baseUrl)}`);
  const maxTurns = flags.maxTurns === undefined ? undefined : parsePositiveInteger("--max-turns", flags.maxTurns);
  if (inputFormat === "stream-json" && promptArg !== undefined) throw new UsageError("with --input-format stream-json the prompts come from stdin; drop the prompt argument");

  let prompt = promptArg;
  if (inputFormat === "text" && prompt === undefined) {
    if (process.stdin.isTTY) throw new UsageError('-p needs a prompt: toolgate -p "explain this repository" (or pipe it on stdin)');
    prompt = (await readStdin()).trim();
  }
  if (inputFormat === "text" && !prompt?.trim()) throw new UsageError("the prompt is empty");

  // The Bash analysis loads while the session starts and the model thinks: until it has, Bash calls are
  // batched as not concurrency-safe.
  void loadBashImplementation().catch(() => undefined);
  const sessionOptions = sessionOptionsFromFlags(flags);
  if (flags.continue && flags.resume !== undefined) throw new UsageError("use --continue or --resume, not both");
  if (flags.resume === true) throw new UsageError("--resume needs a session id (or the start of one) with -p; toolgate sessions lists them");
  // A resumed session keeps its id: its transcript, checkpoints and persisted results continue where they were.
  let resumed: ReturnType<typeof loadTranscript> | undefined;
  if (flags.continue || typeof flags.resume === "string") {
    try {
      const found = findSession(sessionOptions.home ?? getToolgateHome(), sessionOptions.cwd!, typeof flags.resume === "string" ? flags.resume : undefined);
      resumed = loadTranscript(found.path);
    } catch (err) {
      if (err instanceof SessionNotFoundError) throw new UsageError(`${flags.continue ? "--continue" : "--resume"}: ${err.message}`);
      throw err;
    }
  }
  // With a prompt tool or a controlling client someone can answer "ask": the session must not auto-deny.
  const canAsk = flags.permissionPromptTool !== undefined || inputFormat === "stream-json" || flags.permissionMode === "auto";
  const session = await createSession({ ...sessionOptions, mcpConfigFiles: flags.mcpConfig ?? [], interactive: canAsk, ...(resumed ? { sessionId: resumed.sessionId } : {}) });
  try {
    if (session.fatalErrors.length > 0) {
      for (const error of session.fatalErrors) process.stderr.write(`toolgate: refusing to run tools: ${error}\n`);
      return 2;
    }
    if (outputFormat !== "stream-json" || flags.verbose) for (const warning of session.warnings) process.stderr.write(`[toolgate] warning: ${warning}\n`);

    let permissionPromptTool;
    if (flags.permissionPromptTool !== undefined) {
      permissionPromptTool = (session.mcp?.tools() ?? []).find((t) => t.name === flags.permissionPromptTool);
      if (!permissionPromptTool) {
        const known = (session.mcp?.tools() ?? []).map((t) => t.name);
        throw new UsageError(`--permission-prompt-tool ${flags.permissionPromptTool}: no such MCP tool${known.length ? ` (connected MCP tools: ${known.join(", ")})` : " (no MCP server is connected; add one with --mcp-config)"}`);
      }
    }

    const merged = session.context.options.settings;
    const selection = { provider: flags.provider as ProviderName | undefined, model: flags.model, baseURL: flags.baseUrl };
    const provider = createProvider({ ...selection, settings: merged });
    session.context.models = createModelAccess({ provider, smallModel: resolveProviderConfig(selection, process.env, merged).smallModel });
    const cwd = session.context.getCwd();
    const system = buildSystemPrompt({
      environment: await readEnvironment(cwd),
      instructions: findProjectInstructions({ cwd, home: session.context.paths.home }),
      systemPrompt: flags.systemPrompt,
      appendSystemPrompt: flags.appendSystemPrompt,
    });

    // First Ctrl-C interrupts the model and the tools (the result line still comes); a second one quits.
    const controller = new AbortController();
    let interrupts = 0;
    const onSigint = () => {
      interrupts++;
      if (interrupts > 1) process.exit(130);
      if (outputFormat !== "stream-json") process.stderr.write("[toolgate] interrupted: stopping the model and the running tools (Ctrl-C again to quit now)\n");
      controller.abort();
    };
    const offTermination = onSignals(TERMINATION_SIGNALS, (signal) => {
      controller.abort();
      void Promise.allSettled([session.close(), stopTrackedTrees()]).finally(() => process.exit(signalExitCode(signal)));
    });
    process.on("SIGINT", onSigint);
    try {
      const sessionStart = await session.context.hookRunner?.sessionStart?.({ context: session.context, source: "startup" });
      for (const notice of sessionStart?.notices ?? []) process.stderr.write(`[toolgate] ${notice.hookEvent} hook ${notice.level}: ${notice.message}\n`);
      const startContext = sessionStart?.additionalContext ?? [];
      pruneSessions(session.context.paths.home, cwd, readCleanupPeriodDays(merged), session.context.sessionId);
      const messages: Message[] = resumed?.messages ?? [];
      const transcript = openTranscript({ home: session.context.paths.home, cwd, sessionId: session.context.sessionId, model: provider.model, lastUuid: resumed?.lastUuid });
      if (resumed) {
        const problems = [...resumed.problems, ...repairHistory(messages)];
        if (problems.length) {
          transcript.repaired(problems);
          process.stderr.write(`[toolgate] resumed session ${resumed.sessionId}: ${problems.join("; ")}\n`);
        }
      }
      const result = await runHeadless({
        messages,
        transcript,
        session,
        provider,
        system: startContext.length ? [...system, ...startContext.map((c) => `Context from a SessionStart hook:\n${c}`)] : system,
        prompt,
        input: process.stdin,
        inputFormat,
        output: process.stdout,
        diagnostics: process.stderr,
        outputFormat,
        verbose: flags.verbose,
        includePartialMessages: flags.includePartialMessages,
        maxTurns,
        signal: controller.signal,
        permissionPromptTool,
        compactionThreshold: compactionThreshold(getModelInfo(provider.model, readModelOverrides(merged))),
        classifier: session.context.getAppState().toolPermissionContext.mode === "auto" ? createAutoModeClassifier(provider) : undefined,
      });
      return interrupts > 0 ? 130 : exitCodeFor(result);
    } finally {
      process.off("SIGINT", onSigint);
      offTermination();
    }
  } finally {
    await session.close();
  }
}
