/**
 * Headless mode (`toolgate -p`): prompts in (an argument, stdin text, or stream-json lines), the agent loop, and
 * one of three outputs: the final text, one JSON result, or stream-json (one JSON object per line, flushed as
 * written, always ending with a `result` line). Claude Code's shapes where it has one.
 */
import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import type { AnyTool, CanUseToolFn, HookRunEvent, McpClientInfo, SessionHookOutcome, ToolUseContext } from "../core/Tool.js";
import type { AssistantMessage, DocumentBlock, ImageBlock, Message, TextBlock, UserMessage } from "../core/messages.js";
import { PERMISSION_MODES, type PermissionDecision, type PermissionMode } from "../core/permissionTypes.js";
import { formatError } from "../core/errors.js";
import { applyPermissionUpdate, describeDecisionReason, describeSuggestion, parsePermissionUpdates } from "../permissions/index.js";
import { rewindFiles } from "../core/context.js";
import type { Provider } from "../providers/index.js";
import { attachMentionedFiles } from "./mentions.js";
import { query, type AgentEvent, type AgentResult, type AgentStopReason, type ModelRequestInfo } from "./query.js";
import { ControlChannel, ControlRequestError, writeJsonLine } from "./controlChannel.js";
import type { SdkInitialize } from "./sdkInitialize.js";
import { getModelInfo, countContextTokens } from "../providers/index.js";
import { structuredOutputReminder } from "../tools/StructuredOutput/index.js";
import { cacheHitRate, estimateCostUSD } from "./cost.js";
import { changeSummaryJson, formatStat } from "./changes.js";
import type { TranscriptWriter } from "./transcript.js";
import { compactHistory, type CompactionOutcome, type CompactionState } from "./compact.js";
import { classifierMayDecide, describeActionForClassifier, logAutoModeDecision, type AutoModeClassifier } from "./autoMode.js";

export type OutputFormat = "text" | "json" | "stream-json";
export type InputFormat = "text" | "stream-json";

/** What headless mode needs of a session (the CLI passes the one `createSession` built). */
export interface HeadlessSession {
  context: ToolUseContext;
  /** Who answers "ask" when neither a control client nor a prompt tool does. */
  canUseTool: CanUseToolFn;
  /** MCP servers, for the init line. */
  mcp?: { readonly clients: readonly McpClientInfo[] };
}

export interface HeadlessOptions {
  session: HeadlessSession;
  provider: Provider;
  system: readonly string[];
  /** The prompt (text input); with stream-json input, prompts come from `channel`. */
  prompt?: string;
  /** stream-json input: the lines from the controlling program, and the requests we send it. */
  channel?: ControlChannel;
  /** stream-json input without a channel: one is made over this stream. */
  input?: Readable;
  inputFormat: InputFormat;
  output: Writable;
  /** Diagnostics for the user (text and json formats with --verbose); never the model's output. */
  diagnostics: Writable;
  outputFormat: OutputFormat;
  verbose?: boolean;
  includePartialMessages?: boolean;
  /** `--include-hook-events`: a hook_started and a hook_response system message for each hook run (stream-json). */
  includeHookEvents?: boolean;
  /** Hook runs observed before this run started (SessionStart), reported first with includeHookEvents. */
  earlyHookEvents?: readonly HookRunEvent[];
  maxTurns?: number;
  signal: AbortSignal;
  /** `--permission-prompt-tool`: the MCP tool that answers asks. */
  permissionPromptTool?: AnyTool;
  /** Auto mode's classifier: answers the asks it may answer (see autoMode.ts) when the mode is `auto`. */
  classifier?: AutoModeClassifier;
  /** The conversation to continue (a resumed session); default a new one. */
  messages?: Message[];
  /** Automatic compaction at this many tokens (see compactionThreshold); absent: never. */
  compactionThreshold?: number;
  /** Where every message is written as it happens. */
  transcript?: TranscriptWriter;
  /** How long an ask waits for its answer (control response or prompt tool) before it is denied. */
  permissionTimeoutMs?: number;
  /** Also print toolgate's own events (tool_status, tool_progress, change_summary, notice, input_error, auto_mode). */
  toolgateEvents?: boolean;
  /** stream-json input: whether asks go to the controlling program (`--permission-prompts none`: they are denied). */
  askHost?: boolean;
  /** The Agent SDK's initialize request, answered once the session is ready (read before it was built). */
  initialize?: SdkInitialize;
  /** What the init line and the initialize answer list. */
  about?: HeadlessAbout;
  /** Another main model (`set_model`); absent: set_model is refused. */
  switchModel?: (model: string) => Provider;
  /** `--fallback-model`: providers for its models, tried in order when a request fails as overloaded or not found. */
  fallbackProviders?: () => Provider[];
  /** Runs SessionEnd hooks; the caller's, so a signal handler and the run's end share one run. Default: the session's hook runner. */
  endSession?: () => Promise<SessionHookOutcome | undefined>;
  /** `--max-thinking-tokens` (and set_max_thinking_tokens later). */
  thinkingTokens?: number;
  /** `--max-budget-usd`: the run stops once its estimated cost reaches this. */
  maxBudgetUsd?: number;
  /** `--json-schema`: the answer the StructuredOutput tool took, read after each prompt (and cleared). */
  structuredOutput?: { take(): Record<string, unknown> | undefined };
}

/** What the init line (and the initialize answer) says about the session. */
export interface HeadlessAbout {
  version: string;
  commands: Array<{ name: string; description: string; argumentHint: string }>;
  agents: Array<{ name: string; description: string; model?: string }>;
  skills: string[];
  /** The session's plugins (Claude Code's init line names each with its folder). */
  plugins?: Array<{ name: string; path: string }>;
  apiKeySource: string;
  additionalDirectories: string[];
}

export const DEFAULT_PERMISSION_TIMEOUT_MS = 5 * 60_000;

const RESULT_SUBTYPES: Record<AgentStopReason, string> = {
  completed: "success",
  max_turns: "error_max_turns",
  aborted: "error_during_execution",
  prompt_too_long: "error_during_execution",
  error: "error_during_execution",
  hook_stopped: "error_during_execution",
};

const TERMINAL_REASONS: Record<AgentStopReason, string> = {
  completed: "completed",
  max_turns: "max_turns",
  aborted: "aborted_streaming",
  prompt_too_long: "prompt_too_long",
  error: "model_error",
  hook_stopped: "hook_stopped",
};

/** Exit code for the process, as Claude Code's: 0 when the last prompt succeeded, 1 otherwise (a signal is the caller's: 130). */
export function exitCodeFor(result: AgentResult | undefined): number {
  return result?.reason === "completed" ? 0 : 1;
}

const writeLine = writeJsonLine;

/** How many times the model is reminded to give its structured answer before the run gives up. */
export const STRUCTURED_OUTPUT_RETRIES = 2;

type Prompt = string | Array<TextBlock | ImageBlock | DocumentBlock>;

interface QueuedPrompt {
  prompt: Prompt;
  /** The user message's uuid (the client's, or one we made): rewind_files names a turn by it. */
  uuid: string;
}

/** A headless run's result; `unansweredAsks` counts calls denied only because no one could approve them. */
export type HeadlessResult = AgentResult & { unansweredAsks?: number };

/** Exit code of a -p run whose calls were denied because they would ask and no one could answer (text and json output). */
export const EXIT_DENIED = 3;

const PROMPT_REFUSED = "the prompt was not kept in the session (the model server refused it), so --continue goes on from before it; it is still in the transcript.";

/** One line for the person about a denied call: the tool, what it wanted, and the message (with the way to allow it). */
function denialLine(denial: AgentResult["permissionDenials"][number], told: string | undefined): string {
  const input = denial.toolInput as Record<string, unknown> | undefined;
  const target = typeof input?.command === "string" ? input.command : typeof input?.file_path === "string" ? input.file_path : typeof input?.url === "string" ? input.url : "";
  const what = target ? `${denial.toolName} ${target.length > 120 ? `${target.slice(0, 117)}...` : target}` : denial.toolName;
  const why = (told ?? "").replace(/<\/?tool_use_error>/g, "").replace(/\s+/g, " ").trim();
  return `toolgate: denied ${what}${why ? `: ${why.length > 600 ? `${why.slice(0, 597)}...` : why}` : ""}`;
}

export async function runHeadless(options: HeadlessOptions): Promise<HeadlessResult> {
  const { session, output } = options;
  let provider = options.provider;
  const sessionId = session.context.sessionId;
  const streaming = options.outputFormat === "stream-json";
  const channel = options.inputFormat !== "stream-json" ? undefined : (options.channel ?? (options.input ? new ControlChannel(options.input, (value) => writeLine(output, value)) : undefined));
  const messages: Message[] = options.messages ?? [];
  const compactionState: CompactionState = { failures: 0 };
  let current: AbortController | undefined;
  let thinkingTokens = options.thinkingTokens;
  const totals = { turns: 0, durationMs: 0, apiMs: 0, denials: [] as AgentResult["permissionDenials"], input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  /** Per model, for the result's modelUsage (cumulative over the run, as Claude Code's). */
  const modelUsage = new Map<string, { inputTokens: number; outputTokens: number; cacheReadInputTokens: number; cacheCreationInputTokens: number; costUSD: number }>();
  let costUSD = 0;
  let overBudget = false;
  /** The last API stop reason of the running prompt (the result's stop_reason). */
  let lastStopReason: string | null = null;
  /** Assistant message ids of each prompt, by the prompt's uuid (rewind_files). */
  const turnMessages = new Map<string, string[]>();
  let currentPromptUuid: string | undefined;
  const startedAt = Date.now();
  /** Calls denied because they would ask and no one could answer (the person may want to allow them). */
  const unanswered = new Set<string>();
  /** What the model was told about each denied call, for the person's summary. */
  const deniedText = new Map<string, string>();

  /** Every message the consumer sees carries a uuid and the session id. */
  const emit = (value: Record<string, unknown>) => (streaming ? writeLine(output, { ...value, uuid: randomUUID(), session_id: sessionId }) : Promise.resolve());
  /** toolgate's own event types: only when asked for, so an SDK's exhaustive switch never meets them. */
  const emitOwn = (value: Record<string, unknown>) => (options.toolgateEvents ? emit(value) : Promise.resolve());
  const emitControl = (value: Record<string, unknown>) => (streaming ? writeLine(output, value) : Promise.resolve());
  const diagnose = (text: string) => {
    if (!streaming && options.verbose) options.diagnostics.write(`[toolgate] ${text}\n`);
  };

  const hookRunner = session.context.hookRunner;
  const emitHookRun = (event: HookRunEvent) => {
    const named = { hook_id: event.hookId, hook_name: event.hookName, hook_event: event.hookEvent };
    if (event.type === "started") void emit({ type: "system", subtype: "hook_started", ...named });
    else void emit({ type: "system", subtype: "hook_response", ...named, output: event.output, stdout: event.stdout, stderr: event.stderr, ...(event.exitCode === undefined ? {} : { exit_code: event.exitCode }), outcome: event.outcome });
  };
  const watchHooks = streaming && options.includeHookEvents;
  // Hooks that ran while the session started (SessionStart) come first.
  if (watchHooks) for (const event of options.earlyHookEvents ?? []) emitHookRun(event);
  const stopObserving = watchHooks ? hookRunner?.observe?.(emitHookRun) : undefined;
  const reportHookNotices = (notices: readonly { hookEvent: string; level: string; message: string }[]) => {
    for (const notice of notices) {
      void emitOwn({ type: "system", subtype: "notice", level: notice.level, message: notice.message });
      if (!streaming || options.verbose) options.diagnostics.write(`[toolgate] ${notice.hookEvent} hook ${notice.level}: ${notice.message}\n`);
    }
  };

  // Rules an answer asked to remember, and what could not be: the same lines as the loop's notices.
  const notify = (level: "info" | "warning", message: string) => {
    void emitOwn({ type: "system", subtype: "notice", level, message });
    if (!streaming || options.verbose) options.diagnostics.write(`[toolgate] ${level}: ${message}\n`);
  };

  // Who answers "ask": the controlling program (stream-json input), the permission prompt tool, else deny.
  const askOutside = async (tool: AnyTool, input: Record<string, unknown>, toolUseID: string, decision: PermissionDecision): Promise<PermissionDecision | undefined> => {
    const timeoutMs = options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS;
    if (channel && streaming && options.askHost !== false) {
      const ask = decision.behavior === "ask" ? decision : undefined;
      const reason = ask?.decisionReason;
      const turn = current;
      let response: Record<string, unknown>;
      // The session now waits for the person: Notification hooks run beside the question, never delaying it.
      void hookRunner?.notification?.({ context: session.context, message: `toolgate needs your permission to use ${tool.name}`, notificationType: "permission_prompt" }).then((outcome) => reportHookNotices(outcome.notices));
      try {
        response = await channel.request(
          "can_use_tool",
          {
            tool_name: tool.name,
            display_name: tool.userFacingName?.(input) ?? tool.name,
            input,
            tool_use_id: toolUseID,
            description: describeCall(tool, input),
            permission_suggestions: ask?.suggestions ?? [],
            decision_reason: ask?.message ?? "",
            decision_reason_type: reasonType(reason),
            ...(reason?.type === "workingDirectory" ? { blocked_path: reason.path } : reason?.type === "safetyCheck" && reason.path ? { blocked_path: reason.path } : {}),
          },
          // An interrupt withdraws the question: the turn ends now, not when someone answers.
          { signal: turn?.signal, timeoutMs },
        );
      } catch (err) {
        if (turn?.signal.aborted) return { behavior: "deny", message: `The user interrupted before answering whether ${tool.name} may run, so it did not run.`, decisionReason: { type: "other", reason: "interrupted" } };
        const why = err instanceof ControlRequestError ? err.message : formatError(err);
        return { behavior: "deny", message: /no answer within/.test(why) ? `No answer to the permission request for ${tool.name} within ${Math.round(timeoutMs / 1000)} s, so the call was denied.` : `The controlling program refused ${tool.name}: ${why}`, decisionReason: { type: "other", reason: "permission request failed" } };
      }
      return answerToDecision(response, input, "the controlling client", session.context, notify);
    }
    if (channel && streaming && options.askHost === false) return undefined;
    if (options.permissionPromptTool) {
      const promptTool = options.permissionPromptTool;
      try {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), timeoutMs);
        const result = await promptTool
          .call({ tool_name: tool.name, input, tool_use_id: toolUseID }, { ...session.context, abortController: controller }, async (_t, _i, _c, _m, _id, d) => d, { role: "assistant", content: [] })
          .finally(() => clearTimeout(timer));
        const block = promptTool.mapToolResultToToolResultBlockParam(result.data, toolUseID);
        const textContent = typeof block.content === "string" ? block.content : block.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
        // A failed call is never a yes, whatever its text says.
        if (block.is_error) {
          return { behavior: "deny", message: `The permission prompt tool ${promptTool.name} failed (${textContent.slice(0, 500) || "no message"}), so the ${tool.name} call was denied.`, decisionReason: { type: "other", reason: "permission prompt tool failed" } };
        }
        return answerToDecision(JSON.parse(textContent) as Record<string, unknown>, input, `the permission prompt tool ${promptTool.name}`, session.context, notify);
      } catch (err) {
        return { behavior: "deny", message: `The permission prompt tool ${promptTool.name} gave no usable answer (${formatError(err)}), so the ${tool.name} call was denied.`, decisionReason: { type: "other", reason: "permission prompt tool failed" } };
      }
    }
    return undefined;
  };

  const fallback = session.canUseTool;
  const canUseTool: CanUseToolFn = async (tool, input, context, assistantMessage, toolUseID, decision) => {
    if (decision.behavior !== "ask") return decision;
    if (options.classifier && context.getAppState().toolPermissionContext.mode === "auto" && classifierMayDecide(decision)) {
      const verdict = await options.classifier.classify({ tool, input, decision, context, messages });
      logAutoModeDecision(context, { tool: tool.name, toolUseID, action: describeActionForClassifier(tool, input), verdict });
      await emitOwn({ type: "system", subtype: "auto_mode", tool_use_id: toolUseID, tool_name: tool.name, decision: verdict.behavior, reason: verdict.reason });
      diagnose(`auto mode ${verdict.behavior === "allow" ? "allowed" : "denied"} ${tool.name}: ${verdict.reason}`);
      if (verdict.behavior === "allow") return { behavior: "allow", updatedInput: input, decisionReason: { type: "other", reason: `auto mode: ${verdict.reason}` } };
      return {
        behavior: "deny",
        message: `Auto mode denied this ${tool.name} call: ${verdict.reason}. Do not retry it unchanged; find another way or ask the user.`,
        decisionReason: { type: "other", reason: `auto mode: ${verdict.reason}` },
      };
    }
    const outside = await askOutside(tool, input, toolUseID, decision);
    if (outside) return outside;
    const verdict = await fallback(tool, input, context, assistantMessage, toolUseID, decision);
    // A question no one could answer is no call to allow: the model goes on by itself, and the run is not a failure.
    if (verdict.behavior === "deny" && decision.decisionReason?.type !== "userInput") unanswered.add(toolUseID);
    return verdict;
  };

  const mode = () => session.context.getAppState().toolPermissionContext.mode;
  const currentTools = () => session.context.options.refreshTools?.() ?? session.context.options.tools;
  const mcpServers = () => (session.mcp?.clients ?? []).map((c) => ({ name: c.name, status: c.status }));
  const about = options.about;

  // Claude Code's init line; with stream-json input it comes at the start of each prompt, after the user line.
  const emitInit = () =>
    emit({
      type: "system",
      subtype: "init",
      cwd: session.context.getCwd(),
      tools: currentTools().map((t) => t.name),
      mcp_servers: mcpServers(),
      model: provider.model,
      permissionMode: mode(),
      slash_commands: about?.commands.map((c) => c.name) ?? [],
      apiKeySource: about?.apiKeySource ?? "none",
      claude_code_version: about?.version ?? "",
      output_style: "default",
      agents: about?.agents.map((a) => a.name) ?? [],
      skills: about?.skills ?? [],
      plugins: about?.plugins ?? [],
      additional_directories: about?.additionalDirectories ?? [],
      sandbox_enabled: session.context.sandbox?.status === "active",
      capabilities: ["interrupt_receipt_v1"],
      provider: provider.name,
    });

  const addUsage = (request: ModelRequestInfo) => {
    totals.apiMs += request.durationMs;
    lastStopReason = request.stopReason === "aborted" || request.stopReason === "error" ? null : request.stopReason;
    const usage = request.usage;
    if (!usage) return;
    const entry = modelUsage.get(request.model) ?? { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, costUSD: 0 };
    entry.inputTokens += usage.input;
    entry.outputTokens += usage.output;
    entry.cacheReadInputTokens += usage.cacheRead;
    entry.cacheCreationInputTokens += usage.cacheWrite;
    const cost = estimateCostUSD(request.model, { inputTokens: usage.input, outputTokens: usage.output, cacheReadInputTokens: usage.cacheRead, cacheCreationInputTokens: usage.cacheWrite, source: usage.source }) ?? 0;
    entry.costUSD += cost;
    costUSD += cost;
    modelUsage.set(request.model, entry);
    if (options.maxBudgetUsd !== undefined && costUSD >= options.maxBudgetUsd && !overBudget) {
      overBudget = true;
      current?.abort();
    }
  };

  // One prompt through the loop, with its events printed as the format asks.
  const runPrompt = async (queued: QueuedPrompt): Promise<AgentResult> => {
    const { prompt } = queued;
    const manual = typeof prompt === "string" ? /^\/compact(?:\s+([\s\S]*))?$/.exec(prompt.trim()) : null;
    if (manual) return compactByHand(manual[1]?.trim() || undefined);
    current = new AbortController();
    currentPromptUuid = queued.uuid;
    lastStopReason = null;
    const onOuterAbort = () => current?.abort();
    if (options.signal.aborted || overBudget) current.abort();
    options.signal.addEventListener("abort", onOuterAbort, { once: true });
    let result: AgentResult | undefined;
    try {
      const compaction = options.compactionThreshold === undefined ? undefined : { threshold: options.compactionThreshold, state: compactionState };
      let next: Prompt = prompt;
      if (typeof prompt === "string") {
        // `@path`: the file goes with the prompt, read through Read (so its rules and hooks decide).
        const attached = await attachMentionedFiles(prompt, session.context, canUseTool);
        for (const note of attached.notes) {
          await emitOwn({ type: "system", subtype: "notice", level: note.level, message: note.text });
          if (!streaming && (note.level === "warning" || options.verbose)) options.diagnostics.write(`[toolgate] ${note.level}: ${note.text}\n`);
        }
        if (attached.blocks.length) next = [...attached.blocks, { type: "text", text: prompt }];
      }
      let reminders = 0;
      let echoSkipped = false;
      // Each prompt starts on the session's model again: an outage does not demote the session for good.
      const fallbackProviders = options.fallbackProviders?.().filter((p) => p.model !== provider.model);
      for (;;) {
        let part: AgentResult | undefined;
        for await (const event of query(next, { provider, context: session.context, canUseTool, system: options.system, messages, maxTurns: options.maxTurns, signal: current.signal, compaction, ...(fallbackProviders?.length ? { fallbackProviders } : {}), ...(thinkingTokens ? { thinking: { budgetTokens: thinkingTokens } } : {}) })) {
          if (event.type === "result") part = event.result;
          else if (event.type === "user" && !echoSkipped) {
            // The prompt itself is not echoed (Claude Code does not); it is still in the transcript.
            echoSkipped = true;
            options.transcript?.append(event.message);
          } else await printEvent(event);
        }
        result = result ? mergeResults(result, part!) : part!;
        // --json-schema: a finished turn without the answer is reminded, a few times, to give it.
        if (!options.structuredOutput || result.reason !== "completed" || structured.value !== undefined) break;
        const taken = options.structuredOutput.take();
        if (taken !== undefined) {
          structured.value = taken;
          break;
        }
        if (reminders++ >= STRUCTURED_OUTPUT_RETRIES) {
          structured.failed = true;
          break;
        }
        next = structuredOutputReminder();
        echoSkipped = false;
      }
      if (result) options.transcript?.result({ reason: result.reason, turns: result.turns, durationMs: result.durationMs });
    } finally {
      options.signal.removeEventListener("abort", onOuterAbort);
    }
    return result!;
  };
  const structured: { value?: Record<string, unknown>; failed?: boolean } = {};

  const printEvent = async (event: Exclude<AgentEvent, { type: "result" }>) => {
    switch (event.type) {
      case "stream":
        if (options.includePartialMessages) await emit({ type: "stream_event", event: event.event, parent_tool_use_id: null });
        break;
      case "compact_boundary":
        await reportCompaction(event.outcome, event.trigger, event.messages);
        break;
      case "prompt_refused":
        options.transcript?.refused(event.reason);
        await emitOwn({ type: "system", subtype: "notice", level: "warning", message: PROMPT_REFUSED });
        if (!streaming) options.diagnostics.write(`[toolgate] warning: ${PROMPT_REFUSED}\n`);
        break;
      case "history_repaired":
        options.transcript?.repaired(event.problems);
        await emitOwn({ type: "system", subtype: "notice", level: "warning", message: `history repaired: ${event.problems.join("; ")}` });
        if (!streaming) options.diagnostics.write(`[toolgate] warning: history repaired: ${event.problems.join("; ")}\n`);
        break;
      case "assistant":
        options.transcript?.append(event.message);
        if (event.request) addUsage(event.request);
        if (event.message.id && currentPromptUuid) turnMessages.set(currentPromptUuid, [...(turnMessages.get(currentPromptUuid) ?? []), event.message.id]);
        await emitAssistant(event.message, event.request);
        break;
      case "user":
        options.transcript?.append(event.message);
        if (Array.isArray(event.message.content)) {
          for (const block of event.message.content) {
            if (block.type === "tool_result" && block.is_error) deniedText.set(block.tool_use_id, typeof block.content === "string" ? block.content : block.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" "));
          }
        }
        await emit({ type: "user", message: event.message, parent_tool_use_id: null, timestamp: new Date().toISOString() });
        break;
      case "tool":
        if (event.update.type === "status") {
          await emitOwn({ type: "system", subtype: "tool_status", tool_use_id: event.update.toolUseID, tool_name: event.update.toolName, status: event.update.status, ...(event.update.outcome ? { outcome: event.update.outcome } : {}), ...(event.update.explanation ? { explanation: event.update.explanation } : {}) });
          // Why a call may run, when no rule of yours said so (the sandbox's auto-allow above all).
          const allowed = event.update.status === "running" ? event.update.decision?.decisionReason : undefined;
          if (allowed && allowed.type !== "rule") diagnose(`${event.update.toolName} allowed: ${describeDecisionReason(allowed)}`);
          if (event.update.status === "done") diagnose(`${event.update.toolName} ${event.update.outcome} (${event.update.durationMs ?? 0} ms)`);
        } else if (event.update.type === "progress" && options.verbose) {
          await emitOwn({ type: "system", subtype: "tool_progress", tool_use_id: event.update.toolUseID, data: event.update.data });
        }
        break;
      case "change_summary":
        options.transcript?.changes(event);
        await emitOwn({ type: "change_summary", turn: event.turn, message_id: event.messageId, ...changeSummaryJson(event.summary) });
        diagnose(`changes in turn ${event.turn}:\n${formatStat(event.summary).trimEnd()}`);
        break;
      case "model_fallback":
        // The fallback model serves the rest of this prompt; the next one is tried on the session's model first.
        // The SDK's informational banner (a host shows `content`); the models are there for programs.
        await emit({ type: "system", subtype: "informational", level: "warning", content: `${event.from} is unavailable (${event.reason}); retrying on the fallback model ${event.to}.`, from_model: event.from, to_model: event.to, reason: event.reason });
        break;
      case "speculation":
        if (event.phase === "started") {
          await emitOwn({ type: "system", subtype: "tool_speculation", phase: "started", tool_use_id: event.toolUseID, tool_name: event.toolName });
          diagnose(`speculative ${event.toolName} started while its input was still streaming`);
        } else {
          await emitOwn({ type: "system", subtype: "tool_speculation", phase: "settled", tool_use_id: event.toolUseID, tool_name: event.toolName, outcome: event.outcome, ready_at_block_end: event.readyAtBlockEnd, head_start_ms: Math.round(event.headStartMs), wasted_ms: Math.round(event.wastedMs) });
          diagnose(`speculative ${event.toolName} ${event.outcome}${event.outcome === "hit" ? ` (started ${Math.round(event.headStartMs)} ms before its block ended${event.readyAtBlockEnd ? ", result ready at the block's end" : ""})` : ` (${Math.round(event.wastedMs)} ms of work thrown away)`}`);
        }
        break;
      case "notice":
        await emitOwn({ type: "system", subtype: "notice", level: event.level, message: event.message });
        if (!streaming || (options.verbose && !options.toolgateEvents)) options.diagnostics.write(`[toolgate] ${event.level}: ${event.message}\n`);
        break;
    }
  };

  /** One SDK assistant message per content block, all with the API message's id (Claude Code's shape). */
  const emitAssistant = async (message: AssistantMessage, request: ModelRequestInfo | undefined) => {
    const usage = request?.usage;
    const base = {
      id: message.id,
      type: "message",
      role: "assistant",
      model: request?.model ?? provider.model,
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage?.input ?? 0, output_tokens: usage?.output ?? 0, cache_read_input_tokens: usage?.cacheRead ?? 0, cache_creation_input_tokens: usage?.cacheWrite ?? 0 },
    };
    for (const block of message.content) await emit({ type: "assistant", message: { ...base, content: [block] }, parent_tool_use_id: null, timestamp: new Date().toISOString() });
  };

  const reportCompaction = async (outcome: CompactionOutcome, trigger: "auto" | "manual", newHistory?: Message[]) => {
    if (newHistory) options.transcript?.compacted({ trigger, kind: outcome.kind, tokensBefore: outcome.tokensBefore, tokensAfter: outcome.tokensAfter }, newHistory);
    await emit({ type: "system", subtype: "compact_boundary", compact_metadata: { trigger, pre_tokens: outcome.tokensBefore }, trigger, kind: outcome.kind, pre_tokens: outcome.tokensBefore, post_tokens: outcome.tokensAfter, message: outcome.message });
    if (!streaming) options.diagnostics.write(`[toolgate] ${outcome.kind === "failed" ? "warning: " : ""}compaction (${trigger}): ${outcome.message}, ${outcome.tokensBefore} → ${outcome.tokensAfter} tokens\n`);
  };

  /** `/compact [focus]` as a prompt: summarise now, whatever the size. */
  const compactByHand = async (focus: string | undefined): Promise<AgentResult> => {
    const started = Date.now();
    const outcome = await compactHistory({ messages, provider, context: session.context, system: options.system, threshold: options.compactionThreshold ?? Number.MAX_SAFE_INTEGER, state: compactionState, force: true, focus, signal: options.signal, trigger: "manual" });
    await reportCompaction(outcome, "manual", outcome.kind === "failed" ? undefined : [...messages]);
    const ok = outcome.kind !== "failed";
    return {
      reason: ok ? "completed" : "error",
      turns: 1,
      durationMs: Date.now() - started,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, source: "estimate" },
      permissionDenials: [],
      text: ok ? `Compacted: ${outcome.message} (${outcome.tokensBefore} → ${outcome.tokensAfter} tokens).` : "",
      ...(ok ? {} : { error: outcome.message }),
    };
  };

  const account = (result: AgentResult) => {
    totals.turns += result.turns;
    totals.durationMs += result.durationMs;
    totals.denials.push(...result.permissionDenials);
    totals.input += result.usage.inputTokens;
    totals.output += result.usage.outputTokens;
    totals.cacheRead += result.usage.cacheReadInputTokens;
    totals.cacheWrite += result.usage.cacheCreationInputTokens;
  };

  const resultLine = (result: AgentResult, apiMsBefore: number) => {
    const budgetHit = overBudget && result.reason === "aborted";
    const structuredFailed = structured.failed === true && result.reason === "completed";
    const subtype = budgetHit ? "error_max_budget_usd" : structuredFailed ? "error_max_structured_output_retries" : RESULT_SUBTYPES[result.reason];
    const isError = result.reason !== "completed" || structuredFailed;
    const hitRate = cacheHitRate(result.usage);
    const errorText = budgetHit
      ? `The run reached its budget of $${options.maxBudgetUsd} (estimated cost $${costUSD.toFixed(4)}).`
      : structuredFailed
        ? `The model did not give its answer with the StructuredOutput tool after ${STRUCTURED_OUTPUT_RETRIES} reminders.`
        : (result.error ?? (result.reason === "aborted" ? "The run was interrupted." : result.reason === "max_turns" ? `The run reached its limit of ${options.maxTurns} model requests.` : result.text));
    return {
      type: "result",
      subtype,
      is_error: isError,
      duration_ms: result.durationMs,
      duration_api_ms: totals.apiMs - apiMsBefore,
      num_turns: result.turns,
      result: isError ? errorText : result.text,
      stop_reason: lastStopReason,
      // An interrupt while tools ran (the model had asked for them) is Claude Code's aborted_tools.
      terminal_reason: budgetHit ? "budget_exhausted" : structuredFailed ? "structured_output_retry_exhausted" : result.reason === "aborted" && lastStopReason === "tool_use" ? "aborted_tools" : TERMINAL_REASONS[result.reason],
      total_cost_usd: Math.round(costUSD * 1_000_000) / 1_000_000,
      usage: {
        input_tokens: result.usage.inputTokens,
        output_tokens: result.usage.outputTokens,
        cache_read_input_tokens: result.usage.cacheReadInputTokens,
        cache_creation_input_tokens: result.usage.cacheCreationInputTokens,
        server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
        service_tier: "standard",
        source: result.usage.source,
        // toolgate's own: the share of input read from the prompt cache (0-1), absent before any input
        ...(hitRate === undefined ? {} : { cache_hit_rate: hitRate }),
      },
      modelUsage: Object.fromEntries(
        [...modelUsage].map(([model, u]) => {
          const info = getModelInfo(model);
          return [model, { ...u, costUSD: Math.round(u.costUSD * 1_000_000) / 1_000_000, webSearchRequests: 0, contextWindow: info.contextWindow, maxOutputTokens: info.maxOutputTokens }];
        }),
      ),
      permission_denials: result.permissionDenials.map((d) => ({ tool_name: d.toolName, tool_use_id: d.toolUseID, tool_input: d.toolInput })),
      errors: isError ? [errorText] : [],
      ...(currentPromptUuid ? { user_message_uuid: currentPromptUuid } : {}),
      ...(structured.value !== undefined && !isError ? { structured_output: structured.value } : {}),
    };
  };

  let last: AgentResult | undefined;
  try {
    if (options.inputFormat === "text") {
      await emitInit();
      last = await runPrompt({ prompt: options.prompt ?? "", uuid: randomUUID() });
      account(last);
    } else {
      last = await runStreamJsonInput();
    }
  } catch (err) {
    // The loop does not throw; this is a fault of ours. Still one result line, and the history stays valid.
    last = {
      reason: "error",
      turns: totals.turns,
      durationMs: Date.now() - startedAt,
      usage: { inputTokens: totals.input, outputTokens: totals.output, cacheReadInputTokens: totals.cacheRead, cacheCreationInputTokens: totals.cacheWrite, source: "api" },
      permissionDenials: totals.denials,
      text: "",
      error: `toolgate failed: ${formatError(err)}`,
    };
    if (options.inputFormat === "stream-json") await emit(resultLine(last, 0));
  }

  if (options.inputFormat === "text") {
    if (streaming) await emit(resultLine(last, 0));
    else if (options.outputFormat === "json") await writeLine(output, { ...resultLine(last, 0), uuid: randomUUID(), session_id: sessionId });
    else await new Promise<void>((resolve) => output.write(last!.reason === "completed" ? `${last!.text}\n` : "", () => resolve()));
    if (options.outputFormat === "text" && last.reason !== "completed") options.diagnostics.write(`toolgate: ${last.error ?? last.reason}\n`);
    // The model was told why each call was denied; the person is told too, with what would allow it.
    if (!streaming) for (const denial of totals.denials.length ? totals.denials : last.permissionDenials) options.diagnostics.write(`${denialLine(denial, deniedText.get(denial.toolUseID))}\n`);
  }
  // SessionEnd: once, when the run is over; it cannot block, and each hook's own timeout bounds the wait.
  const ended = await (options.endSession ? options.endSession() : hookRunner?.sessionEnd?.({ context: session.context, reason: "other" }));
  if (ended) reportHookNotices(ended.notices);
  stopObserving?.();
  const unansweredAsks = (totals.denials.length ? totals.denials : last.permissionDenials).filter((d) => unanswered.has(d.toolUseID)).length;
  return { ...last, ...(unansweredAsks ? { unansweredAsks } : {}) };

  /** stream-json input: user messages run one after another in one conversation; control requests act at once. */
  async function runStreamJsonInput(): Promise<AgentResult> {
    if (!channel) throw new Error("stream-json input needs its control channel");
    const queue: QueuedPrompt[] = [];
    let inputDone = false;
    let wakeRunner: (() => void) | undefined;
    let lastResult: AgentResult | undefined;

    if (options.initialize) await answerInitialize(options.initialize);

    const reader = (async () => {
      for (;;) {
        const line = await channel.next();
        if (!line) break;
        try {
          if (line.kind === "invalid") {
            await emitOwn({ type: "system", subtype: "input_error", message: line.message });
            continue;
          }
          const value = line.value;
          if (value.type === "user") {
            const prompt = userPrompt(value.message);
            if (prompt === undefined) {
              await emitOwn({ type: "system", subtype: "input_error", message: "a user line needs message.content: a string, or text, image and document blocks; it was ignored" });
              continue;
            }
            queue.push({ prompt, uuid: typeof value.uuid === "string" && value.uuid ? value.uuid : randomUUID() });
            wakeRunner?.();
          } else if (value.type === "control_request") {
            await handleControlRequest(value);
          } else if (value.type === "control_cancel_request" || value.type === "control_response" || value.type === "keep_alive") {
            // A cancellation of a request we already answered, an answer we no longer wait for, a keep-alive: nothing to do.
          } else {
            await emitOwn({ type: "system", subtype: "input_error", message: `unknown input line type ${JSON.stringify(value.type)}; expected user, control_request or control_response` });
          }
        } catch (err) {
          // A line we failed on must not end the run without its result line.
          await emitOwn({ type: "system", subtype: "input_error", message: `toolgate could not handle a stdin line (${formatError(err)}); it was ignored` });
        }
      }
      inputDone = true;
      wakeRunner?.();
    })();

    for (;;) {
      if (!queue.length) {
        if (inputDone || options.signal.aborted) break;
        await new Promise<void>((resolve) => (wakeRunner = resolve));
        wakeRunner = undefined;
        continue;
      }
      const next = queue.shift()!;
      await emitInit();
      const apiBefore = totals.apiMs;
      structured.value = undefined;
      structured.failed = undefined;
      const result = await runPrompt(next);
      account(result);
      lastResult = result;
      await emit(resultLine(result, apiBefore));
      if (options.signal.aborted) break;
    }
    channel.close();
    await Promise.race([reader, new Promise((r) => setTimeout(r, 0))]);
    if (!lastResult) {
      lastResult = { reason: options.signal.aborted ? "aborted" : "completed", turns: 0, durationMs: Date.now() - startedAt, usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, source: "api" }, permissionDenials: [], text: "" };
      if (options.signal.aborted) await emit(resultLine(lastResult, 0));
    }
    return lastResult;
  }

  async function answerInitialize(init: SdkInitialize): Promise<void> {
    const servers = new Set((session.mcp?.clients ?? []).map((c) => c.name));
    await emitControl({
      type: "control_response",
      response: {
        subtype: "success",
        request_id: init.requestId,
        response: {
          commands: about?.commands ?? [],
          agents: about?.agents ?? [],
          output_style: "default",
          available_output_styles: ["default"],
          models: [{ value: provider.model, displayName: provider.model, description: `${provider.model} (${provider.name})` }],
          account: { apiKeySource: about?.apiKeySource ?? "none", apiProvider: "firstParty" },
          pid: process.pid,
          ...(init.hadHooks ? { hooks_applied: true } : {}),
          hook_on_failure_supported: true,
          ...(init.mcpConfigText !== undefined ? { mcp_servers_applied: true } : {}),
          ...(init.sdkMcpServers.length ? { sdk_mcp_manifests_parked: Object.fromEntries(init.sdkMcpServers.filter((s) => servers.has(s.name)).map((s) => [s.name, "not_honoured"])) } : {}),
          ...(init.settingsText !== undefined ? { settings_applied: true } : {}),
          ...(init.managedSettingsText !== undefined ? { managed_settings_applied: true } : {}),
          ...(init.disallowedTools.length ? { disallowed_tools_applied: true } : {}),
          ...(init.additionalDirectories.length ? { additional_directories_applied: true } : {}),
          claude_code_version: about?.version ?? "",
          current_permission_mode: mode(),
        },
      },
    });
  }

  async function answer(requestId: string, response: Record<string, unknown> = {}): Promise<void> {
    await emitControl({ type: "control_response", response: { subtype: "success", request_id: requestId, response } });
  }

  async function refuse(requestId: string, error: string): Promise<void> {
    await emitControl({ type: "control_response", response: { subtype: "error", request_id: requestId, error } });
  }

  async function handleControlRequest(value: Record<string, unknown>): Promise<void> {
    const requestId = typeof value.request_id === "string" ? value.request_id : "";
    const request = (value.request ?? {}) as Record<string, unknown>;
    switch (request.subtype) {
      case "initialize":
        // The first initialize was read before the session was built; a repeated one changes nothing.
        if (options.initialize) return answerInitialize({ ...options.initialize, requestId, hadHooks: false });
        return answerInitialize({ requestId, hookCallbacks: [], hadHooks: false, sdkMcpServers: [], agents: [], disallowedTools: [], additionalDirectories: [], problems: [] });
      case "interrupt":
        current?.abort();
        return answer(requestId, { still_queued: [] });
      case "compact": {
        const result = await compactByHand(typeof request.focus === "string" ? request.focus : undefined);
        return result.reason === "completed" ? answer(requestId) : refuse(requestId, result.error ?? "compaction failed");
      }
      case "set_permission_mode": {
        const next = request.mode;
        if (typeof next !== "string" || !(PERMISSION_MODES as readonly string[]).includes(next)) return refuse(requestId, `set_permission_mode needs a mode: one of ${PERMISSION_MODES.join(", ")}`);
        session.context.setAppState((state) => ({ ...state, toolPermissionContext: { ...state.toolPermissionContext, mode: next as PermissionMode } }));
        return answer(requestId, { mode: next });
      }
      case "set_model": {
        if (!options.switchModel) return refuse(requestId, "this session cannot change its model");
        const model = typeof request.model === "string" && request.model.trim() ? request.model.trim() : undefined;
        if (!model) return refuse(requestId, "set_model needs a model id (toolgate has no default to go back to once a session runs)");
        try {
          provider = options.switchModel(model);
        } catch (err) {
          return refuse(requestId, formatError(err));
        }
        return answer(requestId);
      }
      case "set_max_thinking_tokens": {
        const n = request.max_thinking_tokens;
        if (n !== null && n !== undefined && !(typeof n === "number" && Number.isInteger(n) && n >= 0)) return refuse(requestId, "max_thinking_tokens must be a whole number, or null");
        thinkingTokens = typeof n === "number" && n > 0 ? n : undefined;
        return answer(requestId);
      }
      case "rewind_files":
        return rewind(requestId, request);
      case "mcp_status":
        return answer(requestId, {
          mcpServers: (session.mcp?.clients ?? []).map((c) => ({ name: c.name, status: c.status === "connected" || c.status === "pending" || c.status === "needs-auth" ? c.status : "failed", ...(c.error ? { error: c.error } : {}) })),
        });
      case "get_context_usage": {
        const count = countContextTokens(messages, compactionState.lastUsage);
        const maxTokens = getModelInfo(provider.model).contextWindow;
        return answer(requestId, {
          categories: [
            { id: "messages", name: "Messages", tokens: count.tokens, color: "purple", kind: "used" },
            { id: "free_space", name: "Free space", tokens: Math.max(0, maxTokens - count.tokens), color: "gray", kind: "free" },
          ],
          totalTokens: count.tokens,
          maxTokens,
          rawMaxTokens: maxTokens,
          percentage: Math.round((count.tokens / maxTokens) * 1000) / 10,
          gridRows: [],
          model: provider.model,
          memoryFiles: [],
          mcpTools: [],
        });
      }
      case "stop_task": {
        const task = typeof request.task_id === "string" ? session.context.tasks.get(request.task_id) : undefined;
        if (!task) return refuse(requestId, `no background task ${JSON.stringify(request.task_id)} in this session`);
        await task.stop();
        return answer(requestId);
      }
      case "end_session":
        current?.abort();
        channel?.close();
        return answer(requestId);
      default:
        return refuse(requestId, `toolgate does not support the control request ${JSON.stringify(request.subtype)} (supported: initialize, interrupt, set_permission_mode, set_model, set_max_thinking_tokens, rewind_files, mcp_status, get_context_usage, stop_task, end_session, compact)`);
    }
  }

  /**
   * Files back to how they were before a prompt's turn changed them (`user_message_id`), or before an assistant
   * message did (`message_id`, toolgate's older form); `dry_run` only says what would change.
   */
  async function rewind(requestId: string, request: Record<string, unknown>): Promise<void> {
    const history = session.context.fileHistory;
    const checkpoints = history.messageIds();
    let from: string | undefined;
    if (typeof request.user_message_id === "string") {
      const ids = turnMessages.get(request.user_message_id);
      if (!ids) return answer(requestId, { canRewind: false, error: `No prompt with id ${request.user_message_id} ran in this session.` });
      // The first checkpoint made by that turn or any later one.
      const later = [...turnMessages.entries()].slice([...turnMessages.keys()].indexOf(request.user_message_id)).flatMap(([, list]) => list);
      from = checkpoints.find((id) => later.includes(id));
      if (!from) return answer(requestId, { canRewind: true, filesChanged: [], insertions: 0, deletions: 0 });
    } else if (typeof request.message_id === "string") {
      from = request.message_id;
    } else {
      return refuse(requestId, "rewind_files needs user_message_id (or message_id)");
    }
    const index = checkpoints.indexOf(from);
    const files = [...new Set(checkpoints.slice(Math.max(0, index)).flatMap((id) => history.changedFiles(id)))];
    // Files a snapshot could not keep are named too: the rewind will leave them as they are.
    const uncovered = [...new Set(checkpoints.slice(Math.max(0, index)).flatMap((id) => history.uncoveredFiles(id).map((u) => `${u.filePath}: not restorable (${u.reason})`)))];
    if (request.dry_run === true) return answer(requestId, index < 0 ? { canRewind: false, error: `No file changes were recorded for message ${from}.` } : { canRewind: true, filesChanged: files, ...(uncovered.length ? { error: uncovered.join("; ") } : {}) });
    try {
      const result = rewindFiles(session.context, from);
      return answer(requestId, { canRewind: true, filesChanged: [...result.restored, ...result.deleted], restored: result.restored, deleted: result.deleted, errors: result.errors, ...(result.errors.length ? { error: result.errors.map((e) => `${e.filePath}: ${e.message}`).join("; ") } : {}) });
    } catch (err) {
      return typeof request.user_message_id === "string" ? answer(requestId, { canRewind: false, error: formatError(err) }) : refuse(requestId, formatError(err));
    }
  }
}

/** Claude Code's names for why a call asks. */
function reasonType(reason: PermissionDecision["decisionReason"]): string {
  switch (reason?.type) {
    case "rule":
    case "mode":
    case "hook":
    case "safetyCheck":
      return reason.type;
    case "workingDirectory":
      return "workingDir";
    case "subcommands":
      return "subcommandResults";
    default:
      return "other";
  }
}

/** Two legs of one prompt (the answer, then a reminder's reply) as one result. */
function mergeResults(first: AgentResult, second: AgentResult): AgentResult {
  return {
    ...second,
    turns: first.turns + second.turns,
    durationMs: first.durationMs + second.durationMs,
    usage: {
      inputTokens: first.usage.inputTokens + second.usage.inputTokens,
      outputTokens: first.usage.outputTokens + second.usage.outputTokens,
      cacheReadInputTokens: first.usage.cacheReadInputTokens + second.usage.cacheReadInputTokens,
      cacheCreationInputTokens: first.usage.cacheCreationInputTokens + second.usage.cacheCreationInputTokens,
      source: first.usage.source === "api" && second.usage.source === "api" ? "api" : "estimate",
    },
    permissionDenials: [...first.permissionDenials, ...second.permissionDenials],
  };
}

/** What the call does, in a line, for a host's permission dialog. */
function describeCall(tool: AnyTool, input: Record<string, unknown>): string {
  try {
    const described = tool.describeInput?.(input);
    if (described) return described;
  } catch {
    // a description is a nicety
  }
  if (typeof input.command === "string") return input.command;
  if (typeof input.file_path === "string") return input.file_path;
  return tool.name;
}

const MEDIA = /^(image\/(png|jpeg|gif|webp)|application\/pdf|text\/plain)$/;

/** A user line's content: text, or text, image and document blocks (what the Messages API takes in a prompt). */
function userPrompt(message: unknown): Prompt | undefined {
  const content = (message as UserMessage | undefined)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const blocks: Array<TextBlock | ImageBlock | DocumentBlock> = [];
  for (const raw of content as unknown[]) {
    const block = raw as Record<string, unknown> | null;
    if (!block || typeof block !== "object") return undefined;
    if (block.type === "text" && typeof block.text === "string") blocks.push({ type: "text", text: block.text });
    else if ((block.type === "image" || block.type === "document") && isMediaSource(block.source)) blocks.push(block as unknown as ImageBlock | DocumentBlock);
    else return undefined;
  }
  return blocks;
}

function isMediaSource(source: unknown): boolean {
  const s = source as Record<string, unknown> | null;
  return !!s && typeof s === "object" && (s.type === "base64" || s.type === "text") && typeof s.media_type === "string" && MEDIA.test(s.media_type) && typeof s.data === "string";
}

/**
 * Claude Code's answer contract: `{behavior: "allow", updatedInput?, updatedPermissions?}` or
 * `{behavior: "deny", message}`. `updatedPermissions` (with an allow) are remembered as the UI's "don't ask
 * again" is: for the session, or saved to the settings file of their destination. What cannot be used is
 * reported and skipped; the call stays allowed either way.
 */
function answerToDecision(answer: Record<string, unknown>, input: Record<string, unknown>, who: string, context: ToolUseContext, report: (level: "info" | "warning", message: string) => void): PermissionDecision {
  if (answer.behavior === "allow") {
    const updated = answer.updatedInput && typeof answer.updatedInput === "object" && !Array.isArray(answer.updatedInput) ? (answer.updatedInput as Record<string, unknown>) : input;
    const { updates, problems } = parsePermissionUpdates(answer.updatedPermissions);
    for (const problem of problems) report("warning", `${who}: ${problem}`);
    for (const update of updates) {
      try {
        applyPermissionUpdate(update, { cwd: context.getAppState().toolPermissionContext.cwd, home: context.paths.home, getAppState: context.getAppState, setAppState: context.setAppState });
        report("info", `${who} remembered: ${describeSuggestion(update)}`);
      } catch (err) {
        report("warning", `${who}: could not remember ${describeSuggestion(update)}: ${formatError(err)}`);
      }
    }
    return { behavior: "allow", updatedInput: updated, decisionReason: { type: "other", reason: `allowed by ${who}` } };
  }
  const message = typeof answer.message === "string" && answer.message ? answer.message : `Denied by ${who}.`;
  return { behavior: "deny", message, decisionReason: { type: "other", reason: `denied by ${who}` } };
}
