/**
 * The agent loop: call the model, run each tool call as soon as its block is complete, send the results back,
 * and repeat until the model stops. Every stop has a named reason, and whatever happens, every tool_use in the
 * history gets exactly one tool_result, so the next request is always valid.
 */
import { randomUUID } from "node:crypto";
import type { CanUseToolFn, HookNotice, ToolUseContext } from "../core/Tool.js";
import type { AssistantContentBlock, AssistantMessage, Message, TextBlock, ToolResultBlockParam, ToolUseBlock, UserMessage } from "../core/messages.js";

type UserBlock = Exclude<UserMessage["content"], string>[number];
import { createStreamingToolExecutor, createToolSpeculator, speculationEnabled, type ExecutorUpdate } from "../core/executor/index.js";
import type { SpeculationReport } from "../core/Tool.js";
import { formatError } from "../core/errors.js";
import {
  MessageAssembler,
  toolDefinitionsForModel,
  type Provider,
  type ProviderError,
  type ProviderEvent,
  type StopReason,
  type Usage,
} from "../providers/index.js";
import { createRepeatGuard, repeatedCallNotice, REPEAT_LIMIT } from "./repeatGuard.js";
import { repairHistory, textOf } from "./history.js";
import { withRecentScreenshots } from "../computer/history.js";
import { compactHistory, MAX_FAILED_COMPACTIONS, type CompactionOutcome, type CompactionState } from "./compact.js";
import { countContextTokens, estimateTokens, getModelInfo } from "../providers/index.js";
import { summarizeMessageChanges, type ChangeSummary } from "./changes.js";
import { estimateCostUSD } from "./cost.js";
import { todoReminder } from "./todos.js";
import { EXIT_PLAN_MODE_TOOL_NAME, planModeReminder } from "../tools/ExitPlanMode/prompt.js";

export type AgentStopReason = "completed" | "max_turns" | "aborted" | "prompt_too_long" | "error" | "hook_stopped";

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  /** "estimate" when any turn's usage was counted from characters rather than reported by the API. */
  source: "api" | "estimate";
}

export interface PermissionDenial {
  toolName: string;
  toolUseID: string;
  toolInput: unknown;
}

export interface AgentResult {
  reason: AgentStopReason;
  /** Model requests made. */
  turns: number;
  durationMs: number;
  usage: UsageTotals;
  permissionDenials: PermissionDenial[];
  /** The text of the model's last message. */
  text: string;
  /** What went wrong, for `error`, `prompt_too_long` and `hook_stopped`. */
  error?: string;
}

export type AgentEvent =
  /** A provider event as it streams (text and tool input deltas), for `--include-partial-messages` and the UI. */
  | { type: "stream"; turn: number; event: ProviderEvent }
  /** The model's finished message (also a cut-short one, with what arrived). */
  | { type: "assistant"; turn: number; message: AssistantMessage; request?: ModelRequestInfo }
  /** A message sent to the model: the prompt, tool results, a continuation request. */
  | { type: "user"; message: UserMessage }
  /** Tool status, progress and results as they happen. */
  | { type: "tool"; update: ExecutorUpdate }
  /** The history was compacted (or compaction failed); `messages` is the new history when it succeeded. */
  | { type: "compact_boundary"; outcome: CompactionOutcome; trigger: "auto" | "manual"; messages?: Message[] }
  /** The history broke the tool_use/tool_result pairing (a crash, a caller's edit) and was repaired before a request. */
  | { type: "history_repaired"; problems: string[] }
  /** What the tools of the turn's assistant message changed on disk (only for a turn that changed files). */
  | { type: "change_summary"; turn: number; messageId: string; summary: ChangeSummary }
  /**
   * The model server refused the request that carried the prompt (HTTP 4xx, nothing answered): the prompt was
   * taken back out of the history, so the session can go on; the transcript keeps it off the history's chain.
   */
  | { type: "prompt_refused"; message: UserMessage; reason: string }
  /** `--fallback-model`: the primary model was overloaded or unknown, so the request is tried again on `to`. */
  | { type: "model_fallback"; from: string; to: string; reason: string }
  /**
   * A call started speculatively while its block streamed (`started`), or what became of it (`hit`: its result
   * is the call's; `miss` / `discarded`: thrown away, the call ran as usual). For --verbose and telemetry.
   */
  | { type: "speculation"; phase: "started"; toolUseID: string; toolName: string }
  | ({ type: "speculation"; phase: "settled" } & SpeculationReport)
  /** For the user, not the model: hook messages, retries, the repeated-call guard. */
  | { type: "notice"; level: "info" | "warning" | "error"; message: string }
  | { type: "result"; result: AgentResult };

/** The model request an assistant message came from: its model, usage, stop reason and wall time. */
export interface ModelRequestInfo {
  model: string;
  usage?: Usage;
  stopReason: StopReason;
  durationMs: number;
}

export interface QueryOptions {
  provider: Provider;
  context: ToolUseContext;
  canUseTool: CanUseToolFn;
  /** System prompt sections (see buildSystemPrompt). */
  system: readonly string[];
  /** The conversation so far; the loop appends to it, so a caller keeps it across prompts. */
  messages: Message[];
  maxTurns?: number;
  maxTokens?: number;
  /** Extended thinking with this budget (providers that have it); absent: none. */
  thinking?: { budgetTokens: number };
  /** Interrupts the model stream and every running tool. */
  signal?: AbortSignal;
  /**
   * Interactive sessions: asked when the model makes the same call for the third time in a row; "stop" ends
   * the turn. Headless (absent): the model is told it is repeating itself.
   */
  onRepeatedCall?: (info: { toolName: string; count: number }) => Promise<"continue" | "stop">;
  /** Automatic compaction: when the next request would reach `threshold` tokens. Absent: never compacts. */
  compaction?: { threshold: number; state: CompactionState };
  /**
   * `--fallback-model`: tried in order for a request the model failed as overloaded (529) or not found (404), after
   * its retries and before any of its answer arrived; the one that answers serves the rest of this prompt.
   */
  fallbackProviders?: readonly Provider[];
  /** Set when this loop is a subagent: SubagentStop hooks (matched on this type) run instead of Stop, and UserPromptSubmit does not run. */
  subagentType?: string;
}

/** How many times in a row the loop asks the model to go on after it hit its output limit. */
export const MAX_OUTPUT_RECOVERIES = 3;

const INTERRUPTED = "The user interrupted this tool call before it finished; it may have partly run.";

function text(value: string): TextBlock {
  return { type: "text", text: value };
}

function isToolUse(block: AssistantContentBlock): block is ToolUseBlock {
  return block.type === "tool_use";
}

function lastText(message: AssistantMessage | undefined): string {
  return textOf(message?.content ?? []);
}

function addUsage(totals: UsageTotals, usage: Usage | undefined): void {
  if (!usage) return;
  totals.inputTokens += usage.input;
  totals.outputTokens += usage.output;
  totals.cacheReadInputTokens += usage.cacheRead;
  totals.cacheCreationInputTokens += usage.cacheWrite;
  if (usage.source === "estimate") totals.source = "estimate";
}

/** A request the API refused because the conversation no longer fits the model's window. */
function isPromptTooLong(error: ProviderError): boolean {
  return error.kind === "bad_request" && /prompt is too long|context length|context window|maximum context|too many tokens/i.test(error.message);
}

function formatDelay(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** Removes the prompt when it is still the last message (the refused request answered nothing after it). */
function takeBackRefusedPrompt(messages: Message[], prompt: UserMessage): boolean {
  if (messages.at(-1) !== prompt) return false;
  messages.pop();
  return true;
}

/** Plan mode, and the model has ExitPlanMode to leave it with (a subagent does not). */
function inPlanModeWithExit(context: ToolUseContext): boolean {
  if (context.getAppState().toolPermissionContext.mode !== "plan") return false;
  const tools = context.options.refreshTools?.() ?? context.options.tools;
  return tools.some((t) => t.name === EXIT_PLAN_MODE_TOOL_NAME);
}

/** Wraps a prompt as the first user message, with hook context after it. */
function promptMessage(prompt: string | UserBlock[], hookContext: string[]): UserMessage {
  const content: UserBlock[] = typeof prompt === "string" ? [text(prompt)] : [...prompt];
  for (const extra of hookContext) content.push(text(`<system-reminder>\n${extra}\n</system-reminder>`));
  return { role: "user", content };
}

/** Tokens a prompt takes: its text counted, an image at its usual cost (the API scales images down). */
const IMAGE_TOKENS = 1_600;
function promptTokenEstimate(message: UserMessage): number {
  if (typeof message.content === "string") return estimateTokens(message.content);
  let tokens = 0;
  for (const block of message.content) {
    if (block.type === "text") tokens += estimateTokens(block.text);
    else if (block.type === "image") tokens += IMAGE_TOKENS;
    else if (block.type === "document") tokens += estimateTokens(block.source.data);
  }
  return tokens;
}

function notices(list: readonly HookNotice[]): AgentEvent[] {
  return list.map((n) => ({ type: "notice", level: n.level, message: `${n.hookEvent} hook${n.command ? ` (${n.command})` : ""}: ${n.message}` }));
}

/**
 * One user prompt through to the model's final answer. Yields events as they happen and ends with exactly one
 * `result` event (also on errors and interrupts); it does not throw for anything the model, a tool or the
 * network does.
 */
export async function* query(prompt: string | UserBlock[], options: QueryOptions): AsyncGenerator<AgentEvent, AgentResult> {
  const started = performance.now();
  const usage: UsageTotals = { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, source: "api" };
  const permissionDenials: PermissionDenial[] = [];
  let turns = 0;
  let lastAssistant: AssistantMessage | undefined;

  // One controller for this prompt: the caller's signal reaches the model stream and every tool through it.
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  let context: ToolUseContext = { ...options.context, abortController: controller };

  const finish = (reason: AgentStopReason, error?: string): AgentResult => {
    return {
      reason,
      turns,
      durationMs: Math.round(performance.now() - started),
      usage,
      permissionDenials,
      text: lastText(lastAssistant),
      ...(error === undefined ? {} : { error }),
    };
  };

  try {
    // UserPromptSubmit: a hook may refuse the prompt (it never reaches the model) or add context to it.
    const submitted = options.subagentType !== undefined ? undefined : await context.hookRunner?.userPromptSubmit?.({ context, prompt: typeof prompt === "string" ? prompt : textOf(prompt) });
    if (submitted) yield* notices(submitted.notices);
    if (submitted?.block || submitted?.preventContinuation) {
      const reason = submitted.block?.reason ?? submitted.preventContinuation!.reason;
      const result = finish("hook_stopped", `A UserPromptSubmit hook refused the prompt: ${reason}`);
      yield { type: "result", result };
      return result;
    }
    try {
      context.telemetry?.userPrompt({ text: typeof prompt === "string" ? prompt : textOf(prompt) });
    } catch {
      // telemetry is best effort
    }
    const first = promptMessage(prompt, submitted?.additionalContext ?? []);
    if (inPlanModeWithExit(context) && Array.isArray(first.content)) first.content.push(text(planModeReminder()));
    // A prompt larger than a whole request may be is refused here, before it is sent or becomes history, so
    // the session stays usable (the API would refuse it, and every later request of the session with it).
    const promptTokens = promptTokenEstimate(first);
    const limit = options.compaction?.threshold ?? getModelInfo(options.provider.model).contextWindow;
    if (promptTokens > limit) {
      const size = Buffer.byteLength(JSON.stringify(first.content));
      const result = finish(
        "prompt_too_long",
        `The prompt was not sent: it is about ${promptTokens} tokens (${(size / 1_048_576).toFixed(1)} MB), and ${options.provider.model} takes at most ${limit} tokens in a request. Shorten it, or put the text in a file and ask the model to read the parts it needs.`,
      );
      yield { type: "result", result };
      return result;
    }
    options.messages.push(first);
    yield { type: "user", message: first };

    const guard = createRepeatGuard(() => context.options.refreshTools?.() ?? context.options.tools);
    let outputRecoveries = 0;
    let stopHookActive = false;
    let retriedAfterCompaction = false;

    for (;;) {
      if (controller.signal.aborted) return yield* end(finish("aborted"));
      if (options.maxTurns !== undefined && turns >= options.maxTurns) return yield* end(finish("max_turns", `Stopped after ${turns} model requests (--max-turns ${options.maxTurns}).`));
      turns++;

      const problems = repairHistory(options.messages);
      if (problems.length) yield { type: "history_repaired", problems };
      if (options.compaction) yield* maybeCompact(options, context, controller.signal, false);

      const tools = context.options.refreshTools?.() ?? context.options.tools;
      const definitions = await toolDefinitionsForModel(tools, context.getAppState().loadedDeferredTools);
      // The providers add the note on the deferred tools to the system prompt (deferredToolNames).
      const system = [...options.system];

      const assistant: AssistantMessage = { role: "assistant", id: undefined, content: [] };
      // Tool updates arrive while the model still streams: gather them and hand them out between provider events.
      const pending: (ExecutorUpdate | Extract<AgentEvent, { type: "speculation" }>)[] = [];
      let wake: (() => void) | undefined;
      // Tools get their own abort: an interrupt lets calls of tools that `block` finish and cancels the rest.
      const toolContext: ToolUseContext = { ...context, abortController: new AbortController(), speculativeCalls: undefined };
      const speculator = speculationEnabled(context.options.settings)
        ? createToolSpeculator({
            context: toolContext,
            signal: controller.signal,
            assistantMessage: assistant,
            onStart: (info) => {
              pending.push({ type: "speculation", phase: "started", ...info });
              wake?.();
            },
            onReport: (report) => {
              pending.push({ type: "speculation", phase: "settled", ...report });
              wake?.();
            },
          })
        : undefined;
      toolContext.speculativeCalls = speculator;
      const executor = createStreamingToolExecutor(toolContext, options.canUseTool, { assistantMessage: assistant });
      const onInterrupt = () => executor.interrupt(INTERRUPTED);
      if (controller.signal.aborted) onInterrupt();
      else controller.signal.addEventListener("abort", onInterrupt, { once: true });
      const assembler = new MessageAssembler();
      const started: string[] = [];
      const finishedCalls = new Set<string>();
      const callErrors = new Map<string, string>();
      const calls = new Map<string, { name: string; input: unknown }>();
      const repeatNotices: string[] = [];
      let stopForRepeat = false;

      let pumpDone = false;
      const pump = (async () => {
        for await (const update of executor.updates) {
          pending.push(update);
          wake?.();
        }
      })().finally(() => {
        pumpDone = true;
        wake?.();
      });
      const drain = function* (): Generator<AgentEvent> {
        while (pending.length) {
          const update = pending.shift()!;
          if (update.type === "speculation") {
            yield update;
            continue;
          }
          if (update.type === "result") {
            speculator?.resultArrived(update.toolUseID);
            if (update.outcome === "denied") {
              const call = calls.get(update.toolUseID);
              permissionDenials.push({ toolName: call?.name ?? update.tool?.name ?? "?", toolUseID: update.toolUseID, toolInput: call?.input });
            }
            yield* notices(update.notices);
          }
          yield { type: "tool", update };
        }
      };

      const requestStarted = performance.now();
      try {
        const stream = options.provider.stream(
          { model: options.provider.model, system: system.map(text), messages: withRecentScreenshots(options.messages), tools: definitions.tools, deferredToolNames: definitions.deferredToolNames, ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}), ...(options.thinking ? { thinking: options.thinking } : {}) },
          controller.signal,
        )[Symbol.asyncIterator]();
        let next = stream.next();
        for (;;) {
          // Tool updates must flow while the model stream is quiet too (a stall, a long tool input).
          const woken = new Promise<"wake">((resolve) => (wake = () => resolve("wake")));
          const step = await Promise.race([next, woken]);
          wake = undefined;
          yield* drain();
          if (step === "wake") continue;
          if (step.done) break;
          next = stream.next();
          const event = step.value;
          assembler.push(event);
          if (event.type === "message_start" && event.id) assistant.id = event.id;
          yield { type: "stream", turn: turns, event };
          if (event.type === "retry") yield { type: "notice", level: "warning", message: `model request failed (attempt ${event.attempt} of ${event.attempts}): ${event.reason}; retrying in ${formatDelay(event.delayMs)}` };
          if (event.type === "tool_call_start") {
            started.push(event.id);
            speculator?.blockStarted(event.id, event.name);
          }
          if (event.type === "tool_input_delta") speculator?.inputDelta(event.id, event.partialJson);
          if (event.type === "tool_call_complete") {
            finishedCalls.add(event.id);
            speculator?.blockCompleted(event.id, event.input);
            calls.set(event.id, { name: event.name, input: event.input });
            assistant.id ??= `msg_${randomUUID()}`;
            const count = guard.record(event.name, event.input);
            if (count >= REPEAT_LIMIT) {
              if (options.onRepeatedCall && (await options.onRepeatedCall({ toolName: event.name, count })) === "stop") stopForRepeat = true;
              else repeatNotices.push(repeatedCallNotice(event.name, count));
            }
            if (stopForRepeat) {
              speculator?.blockFailed(event.id);
              callErrors.set(event.id, "The user stopped this call: the same call was repeated too often.");
            }
            else executor.addTool({ type: "tool_use", id: event.id, name: event.name, input: event.input });
          }
          if (event.type === "tool_call_error") {
            speculator?.blockFailed(event.id);
            finishedCalls.add(event.id);
            guard.reset();
            callErrors.set(event.id, event.message);
          }
        }
      } catch (err) {
        // Providers never throw past their iterator; if one does, it is a fault of ours, reported as an error stop.
        assembler.push({ type: "error", error: { kind: "unknown", retryable: false, message: formatError(err) } });
        assembler.push({ type: "stop", reason: "error", complete: false });
      }

      speculator?.messageEnded();
      const assembled = assembler.message();
      assistant.content = assembled.content;
      assistant.id ??= assembled.id ?? `msg_${randomUUID()}`;
      addUsage(usage, assembler.usage);
      if (options.compaction && assembler.usage) options.compaction.state.lastUsage = { usage: assembler.usage, messageCount: options.messages.length + (assembled.content.length ? 1 : 0) };
      const stop = assembler.stop ?? { reason: "error" as const, complete: false };
      reportModelRequest(context, options.provider.model, assembler.usage, stop.reason, assembler.errors.at(-1)?.kind, performance.now() - requestStarted);

      // A cut-short message: its unfinished calls are cancelled, the finished ones still get their results.
      if (!stop.complete && !controller.signal.aborted) executor.abort("The model's response was cut short, so this call was stopped.");
      executor.finish();

      // The message is history the moment it is complete, before its tools finish: a crash then loses no call.
      const hasToolUse = assistant.content.some(isToolUse);
      if (assistant.content.length > 0) {
        lastAssistant = assistant;
        options.messages.push(assistant);
        yield { type: "assistant", turn: turns, message: assistant, request: { model: options.provider.model, ...(assembler.usage ? { usage: assembler.usage } : {}), stopReason: stop.reason, durationMs: Math.round(performance.now() - requestStarted) } };
      }
      while (!pumpDone || pending.length) {
        if (!pending.length) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        yield* drain();
      }
      await pump;
      speculator?.dispose();
      yield* drain();
      controller.signal.removeEventListener("abort", onInterrupt);

      let preventContinuation: { reason: string } | undefined;
      if (hasToolUse) {
        const executed = await executor.result();
        context = { ...executed.context, abortController: controller };
        preventContinuation = executed.preventContinuation;
        const executedContent = typeof executed.message.content === "string" ? [text(executed.message.content)] : executed.message.content;
        const byId = new Map(executedContent.flatMap((b) => (b.type === "tool_result" ? [[b.tool_use_id, b] as const] : [])));
        const extra = executedContent.filter((b) => b.type !== "tool_result");
        const results: UserBlock[] = assistant.content.filter(isToolUse).flatMap((b): ToolResultBlockParam[] => {
          const failed = callErrors.has(b.id) && stop.reason === "max_tokens" ? `Your response reached the output token limit while you were writing this call, so its input is incomplete. Make the call again with smaller content (for example, write a big file in several parts).` : callErrors.get(b.id);
          const result = byId.get(b.id);
          if (result) return [result];
          return [{ type: "tool_result", tool_use_id: b.id, content: `<tool_use_error>${failed ?? INTERRUPTED}</tool_use_error>`, is_error: true }];
        });
        for (const notice of repeatNotices) results.push(text(`<system-reminder>\n${notice}\n</system-reminder>`));
        const reminder = todoReminder(options.messages, context.todos?.get() ?? [], tools);
        if (reminder) results.push(text(reminder));
        const reply: UserMessage = { role: "user", content: [...results, ...extra] };
        options.messages.push(reply);
        yield { type: "user", message: reply };
        yield* changeSummary(context, turns, assistant.id);
      }

      if (!stop.complete) {
        if (controller.signal.aborted || stop.reason === "aborted") return yield* end(finish("aborted"));
        const error = assembler.errors.at(-1);
        // Nothing of the message arrived, so the same request can go to the next fallback model; it keeps that model for the prompt.
        const [to, ...laterFallbacks] = options.fallbackProviders ?? [];
        if (error && to && (error.kind === "overloaded" || error.status === 404) && assistant.content.length === 0) {
          yield { type: "model_fallback", from: options.provider.model, to: to.model, reason: error.message };
          yield { type: "notice", level: "warning", message: `${options.provider.model} failed (${error.message}); trying the request again on the fallback model ${to.model}` };
          options.provider = to;
          options.fallbackProviders = laterFallbacks;
          turns--;
          continue;
        }
        if (error && isPromptTooLong(error)) {
          // The estimate missed: compact now and try the request once more.
          if (options.compaction && !retriedAfterCompaction && options.compaction.state.failures < MAX_FAILED_COMPACTIONS) {
            retriedAfterCompaction = true;
            const before = options.messages.length;
            yield* maybeCompact(options, context, controller.signal, true);
            if (options.messages.length !== before) {
              turns--;
              continue;
            }
          }
          if (takeBackRefusedPrompt(options.messages, first)) yield { type: "prompt_refused", message: first, reason: error.message };
          return yield* end(finish("prompt_too_long", error.message));
        }
        // A request the server refuses for what it carries is refused again when the session goes on; when it
        // carried only the new prompt, the prompt is taken back so `--continue` and the next prompt still work.
        if (error?.kind === "bad_request" && takeBackRefusedPrompt(options.messages, first)) yield { type: "prompt_refused", message: first, reason: error.message };
        return yield* end(finish("error", error?.message ?? "The model's response ended without finishing."));
      }
      if (stopForRepeat) return yield* end(finish("hook_stopped", "Stopped by the user: the model kept repeating the same call."));
      if (preventContinuation) return yield* end(finish("hook_stopped", preventContinuation.reason));
      if (hasToolUse) {
        outputRecoveries = 0;
        continue;
      }

      // The output limit cut the message (maybe mid tool call): ask the model to go on, a few times at most.
      if (stop.reason === "max_tokens" && outputRecoveries < MAX_OUTPUT_RECOVERIES) {
        outputRecoveries++;
        const cutCall = started.some((id) => !finishedCalls.has(id));
        yield {
          type: "notice",
          level: "warning",
          message: `The model's answer reached its output token limit${cutCall ? " in the middle of a tool call, which was dropped" : ""}; asking it to continue (${outputRecoveries} of ${MAX_OUTPUT_RECOVERIES}).`,
        };
        const ask: UserMessage = {
          role: "user",
          content: [
            text(
              cutCall
                ? "Your last response reached the output token limit while you were writing a tool call, so that call was dropped. Continue from where you stopped, and make large content smaller (for example, write a big file in several parts)."
                : "Your last response reached the output token limit. Continue exactly where you stopped, without repeating what you already wrote.",
            ),
          ],
        };
        options.messages.push(ask);
        yield { type: "user", message: ask };
        continue;
      }

      // A refusal (the model declined, or a server's content filter stopped the answer) is said to the person,
      // who would otherwise see an empty or half answer as a success.
      if (stop.reason === "refusal") {
        yield {
          type: "notice",
          level: "warning",
          message: `The model stopped with a refusal: it declined this request, or the server's content filter cut the answer${lastText(assistant) ? "" : " (it gave no answer)"}.`,
        };
      }

      // The model is done. A Stop hook may send it back to work, with a reason it reads.
      const stopped =
        options.subagentType !== undefined
          ? await context.hookRunner?.subagentStop?.({ context, agentType: options.subagentType, agentId: context.agentId ?? "", stopHookActive })
          : await context.hookRunner?.stop?.({ context, stopHookActive });
      if (stopped) yield* notices(stopped.notices);
      if (stopped?.preventContinuation) return yield* end(finish("hook_stopped", stopped.preventContinuation.reason));
      if (stopped?.block && !controller.signal.aborted) {
        stopHookActive = true;
        const again: UserMessage = { role: "user", content: [text(`A ${options.subagentType !== undefined ? "SubagentStop" : "Stop"} hook asked you to continue: ${stopped.block.reason}`)] };
        options.messages.push(again);
        yield { type: "user", message: again };
        continue;
      }
      return yield* end(finish(stop.reason === "max_tokens" ? "error" : "completed", stop.reason === "max_tokens" ? `The model reached its output limit ${MAX_OUTPUT_RECOVERIES + 1} times in a row.` : undefined));
    }
  } catch (err) {
    // A fault in the loop itself: the history is still made valid before reporting it.
    const problems = repairHistory(options.messages);
    if (problems.length) yield { type: "history_repaired", problems };
    return yield* end(finish("error", `toolgate failed in the agent loop: ${formatError(err)}`));
  } finally {
    // Also when the caller stops iterating early: nothing of this prompt stays attached to its signal.
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** Compacts when the next request would not fit (or when `force`), and says what happened. */
async function* maybeCompact(options: QueryOptions, context: ToolUseContext, signal: AbortSignal, force: boolean): AsyncGenerator<AgentEvent> {
  const compaction = options.compaction!;
  const { state, threshold } = compaction;
  if (state.failures >= MAX_FAILED_COMPACTIONS) return;
  const tokens = countContextTokens(options.messages, state.lastUsage).tokens + estimateTokens(options.system.join("\n"));
  if (!force && tokens < threshold) return;
  const outcome = await compactHistory({ messages: options.messages, provider: options.provider, context, system: options.system, threshold, state, force, signal, trigger: "auto" });
  if (outcome.kind === "failed") {
    state.failures++;
    yield { type: "compact_boundary", outcome, trigger: "auto" };
    if (state.failures >= MAX_FAILED_COMPACTIONS) {
      yield { type: "notice", level: "error", message: `compaction failed ${MAX_FAILED_COMPACTIONS} times in a row; it will not be tried again in this session (${outcome.message})` };
    }
    return;
  }
  state.failures = 0;
  yield { type: "compact_boundary", outcome, trigger: "auto", messages: [...options.messages] };
}

/** The turn's change summary, when its tools changed files; a failure to compute it is a warning, never a stop. */
function* changeSummary(context: ToolUseContext, turn: number, messageId: string): Generator<AgentEvent> {
  if (!context.fileHistory.changedFiles(messageId).length) return;
  let summary: ChangeSummary;
  try {
    summary = summarizeMessageChanges(context.fileHistory, messageId, context.getCwd());
  } catch (err) {
    yield { type: "notice", level: "warning", message: `could not summarise the changes of this turn: ${formatError(err)}` };
    return;
  }
  if (!summary.files.length) return;
  try {
    context.telemetry?.linesChanged({ added: summary.added, removed: summary.removed, files: summary.files.length });
  } catch {
    // telemetry is best effort
  }
  yield { type: "change_summary", turn, messageId, summary };
}

function reportModelRequest(context: ToolUseContext, model: string, usage: Usage | undefined, stopReason: string, errorKind: string | undefined, durationMs: number): void {
  if (!context.telemetry) return;
  const totals: UsageTotals = { inputTokens: usage?.input ?? 0, outputTokens: usage?.output ?? 0, cacheReadInputTokens: usage?.cacheRead ?? 0, cacheCreationInputTokens: usage?.cacheWrite ?? 0, source: usage?.source ?? "api" };
  const costUSD = estimateCostUSD(model, totals);
  try {
    context.telemetry.modelRequest({
      model,
      inputTokens: totals.inputTokens,
      outputTokens: totals.outputTokens,
      cacheReadTokens: totals.cacheReadInputTokens,
      cacheCreationTokens: totals.cacheCreationInputTokens,
      ...(costUSD === undefined ? {} : { costUSD }),
      durationMs: Math.round(durationMs),
      stopReason,
      ...(errorKind ? { errorKind } : {}),
    });
  } catch {
    // telemetry is best effort
  }
}

function* end(result: AgentResult): Generator<AgentEvent, AgentResult> {
  yield { type: "result", result };
  return result;
}
