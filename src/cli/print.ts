/** `toolgate -p`: the agent loop without a UI (see src/agent/headless.ts). */
import { createSession } from "../session/index.js";
import { exitCodeFor, runHeadless, type InputFormat, type OutputFormat } from "../agent/headless.js";
import { createAutoModeClassifier } from "../agent/autoMode.js";
import { compactionThreshold } from "../agent/compact.js";
import { getModelInfo, readModelOverrides, PROVIDER_NAMES, type ProviderName } from "../providers/index.js";
import { onSignals, signalExitCode, TERMINATION_SIGNALS } from "../core/termination.js";
import { stopTrackedTrees } from "../util/processTree.js";
import { UsageError } from "./errors.js";
import { untrustedNotice } from "../trust/index.js";
import { findResumedSession, prepareAgent, startAgentSession, type AgentFlags } from "./agentSetup.js";
import type { Telemetry } from "../telemetry/index.js";
import { expandSlashPrompt } from "../agent/commands.js";
import { loadBashImplementation } from "../tools/Bash/tool.js";
import { parsePositiveInteger, sessionOptionsFromFlags, type SessionFlags } from "./flags.js";

export interface PrintFlags extends SessionFlags, AgentFlags {
  print?: boolean;
  outputFormat?: string;
  inputFormat?: string;
  verbose?: boolean;
  includePartialMessages?: boolean;
  maxTurns?: string;
  permissionPromptTool?: string;
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
  const resumed = findResumedSession(flags, sessionOptions);
  // With a prompt tool or a controlling client someone can answer "ask": the session must not auto-deny.
  const canAsk = flags.permissionPromptTool !== undefined || inputFormat === "stream-json" || flags.permissionMode === "auto";
  let telemetry: Telemetry | undefined;
  const session = await createSession({ ...sessionOptions, mcpConfigFiles: flags.mcpConfig ?? [], interactive: canAsk, ...(resumed ? { sessionId: resumed.sessionId } : {}) });
  try {
    if (session.fatalErrors.length > 0) {
      for (const error of session.fatalErrors) process.stderr.write(`toolgate: refusing to run tools: ${error}\n`);
      return 2;
    }
    if (session.untrusted.length > 0) process.stderr.write(`${untrustedNotice(session.trust.folder, session.untrusted)}\n`);
    if (outputFormat !== "stream-json" || flags.verbose) for (const warning of session.warnings) process.stderr.write(`[toolgate] warning: ${warning}\n`);

    let permissionPromptTool;
    if (flags.permissionPromptTool !== undefined) {
      permissionPromptTool = (session.mcp?.tools() ?? []).find((t) => t.name === flags.permissionPromptTool);
      if (!permissionPromptTool) {
        const known = (session.mcp?.tools() ?? []).map((t) => t.name);
        throw new UsageError(`--permission-prompt-tool ${flags.permissionPromptTool}: no such MCP tool${known.length ? ` (connected MCP tools: ${known.join(", ")})` : " (no MCP server is connected; add one with --mcp-config)"}`);
      }
    }

    const prepared = await prepareAgent(session, flags);
    const { provider, system: baseSystem, merged, cwd, commands, notices } = prepared;
    telemetry = prepared.telemetry;
    if (outputFormat !== "stream-json" || flags.verbose) for (const notice of notices) process.stderr.write(`[toolgate] warning: ${notice}\n`);
    // `/name args` runs a custom command; any other text, `/etc/hosts …` included, goes to the model as written.
    // -p's own `/compact` (headless.ts) wins over a custom command of that name.
    if (prompt !== undefined) prompt = expandSlashPrompt(prompt, commands, { builtin: ["compact"] }).prompt;

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
      void Promise.allSettled([session.close(), stopTrackedTrees(), telemetry?.shutdown()]).finally(() => process.exit(signalExitCode(signal)));
    });
    process.on("SIGINT", onSigint);
    try {
      const { system, messages, transcript } = await startAgentSession(session, { provider, system: baseSystem, cwd, resumed });
      const result = await runHeadless({
        messages,
        transcript,
        session,
        provider,
        system,
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
    await telemetry?.shutdown();
  }
}
