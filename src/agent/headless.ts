/**
 * Headless mode (`toolgate -p`): prompts in (an argument, stdin text, or stream-json lines), the agent loop, and
 * one of three outputs: the final text, one JSON result, or stream-json (one JSON object per line, flushed as
 * written, always ending with a `result` line). Claude Code's shapes where it has one.
 */
import { randomUUID } from "node:crypto";
import readline from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { AnyTool, CanUseToolFn, McpClientInfo, ToolUseContext } from "../core/Tool.js";
import type { Message, TextBlock, UserMessage } from "../core/messages.js";
import type { PermissionDecision } from "../core/permissionTypes.js";
import { formatError } from "../core/errors.js";
import { applyPermissionUpdate, describeSuggestion, parsePermissionUpdates } from "../permissions/index.js";
import { rewindFiles } from "../core/context.js";
import type { Provider } from "../providers/index.js";
import { query, type AgentEvent, type AgentResult, type AgentStopReason } from "./query.js";
import { estimateCostUSD } from "./cost.js";
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
  /** The prompt (text input); with stream-json input, prompts come from `input`. */
  prompt?: string;
  input: Readable;
  inputFormat: InputFormat;
  output: Writable;
  /** Diagnostics for the user (text and json formats with --verbose); never the model's output. */
  diagnostics: Writable;
  outputFormat: OutputFormat;
  verbose?: boolean;
  includePartialMessages?: boolean;
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

/** Exit code for the process: 0 success, 130 interrupted, 1 anything else. */
export function exitCodeFor(result: AgentResult | undefined): number {
  if (!result) return 1;
  if (result.reason === "completed") return 0;
  return result.reason === "aborted" ? 130 : 1;
}

/** Writes one line and waits until it is handed to the OS, so a reader sees it at once and nothing is lost at exit. */
function writeLine(stream: Writable, value: unknown): Promise<void> {
  return new Promise((resolve) => {
    stream.write(`${JSON.stringify(value)}\n`, () => resolve());
  });
}

interface PendingControl {
  resolve(response: Record<string, unknown> | undefined): void;
}

export async function runHeadless(options: HeadlessOptions): Promise<AgentResult> {
  const { session, provider, output } = options;
  const sessionId = session.context.sessionId;
  const streaming = options.outputFormat === "stream-json";
  const messages: Message[] = options.messages ?? [];
  const compactionState: CompactionState = { failures: 0 };
  const pendingControls = new Map<string, PendingControl>();
  let current: AbortController | undefined;
  const totals = { turns: 0, durationMs: 0, denials: [] as AgentResult["permissionDenials"], input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const startedAt = Date.now();

  const emit = (value: Record<string, unknown>) => (streaming ? writeLine(output, { ...value, session_id: sessionId }) : Promise.resolve());
  const diagnose = (text: string) => {
    if (!streaming && options.verbose) options.diagnostics.write(`[toolgate] ${text}\n`);
  };

  // Rules an answer asked to remember, and what could not be: the same lines as the loop's notices.
  const notify = (level: "info" | "warning", message: string) => {
    void emit({ type: "system", subtype: "notice", level, message });
    if (!streaming) options.diagnostics.write(`[toolgate] ${level}: ${message}\n`);
  };

  // Who answers "ask": a control request on stdout (stream-json input), the permission prompt tool, else deny.
  const askOutside = async (tool: AnyTool, input: Record<string, unknown>, toolUseID: string, decision: PermissionDecision): Promise<PermissionDecision | undefined> => {
    const timeoutMs = options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS;
    if (options.inputFormat === "stream-json" && streaming) {
      const requestId = randomUUID();
      const answer = new Promise<Record<string, unknown> | undefined>((resolve) => {
        const timer = setTimeout(() => {
          pendingControls.delete(requestId);
          resolve(undefined);
        }, timeoutMs);
        pendingControls.set(requestId, {
          resolve: (response) => {
            clearTimeout(timer);
            pendingControls.delete(requestId);
            resolve(response);
          },
        });
      });
      await emit({
        type: "control_request",
        request_id: requestId,
        request: { subtype: "can_use_tool", tool_name: tool.name, input, tool_use_id: toolUseID, permission_suggestions: decision.behavior === "ask" ? (decision.suggestions ?? []) : [], message: decision.behavior === "ask" ? decision.message : "" },
      });
      const response = await answer;
      if (!response) return { behavior: "deny", message: `No answer to the permission request for ${tool.name} within ${Math.round(timeoutMs / 1000)} s, so the call was denied.`, decisionReason: { type: "other", reason: "permission request timed out" } };
      return answerToDecision(response, input, "the controlling client", session.context, notify);
    }
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
      await emit({ type: "system", subtype: "auto_mode", tool_use_id: toolUseID, tool_name: tool.name, decision: verdict.behavior, reason: verdict.reason });
      diagnose(`auto mode ${verdict.behavior === "allow" ? "allowed" : "denied"} ${tool.name}: ${verdict.reason}`);
      if (verdict.behavior === "allow") return { behavior: "allow", updatedInput: input, decisionReason: { type: "other", reason: `auto mode: ${verdict.reason}` } };
      return {
        behavior: "deny",
        message: `Auto mode denied this ${tool.name} call: ${verdict.reason}. Do not retry it unchanged; find another way or ask the user.`,
        decisionReason: { type: "other", reason: `auto mode: ${verdict.reason}` },
      };
    }
    return (await askOutside(tool, input, toolUseID, decision)) ?? fallback(tool, input, context, assistantMessage, toolUseID, decision);
  };

  const tools = session.context.options.refreshTools?.() ?? session.context.options.tools;
  await emit({
    type: "system",
    subtype: "init",
    cwd: session.context.getCwd(),
    tools: tools.map((t) => t.name),
    mcp_servers: (session.mcp?.clients ?? []).map((c) => ({ name: c.name, status: c.status })),
    model: provider.model,
    provider: provider.name,
    permissionMode: session.context.getAppState().toolPermissionContext.mode,
    output_style: "default",
  });

  // One prompt through the loop, with its events printed as the format asks.
  const runPrompt = async (prompt: string | TextBlock[]): Promise<AgentResult> => {
    const manual = typeof prompt === "string" ? /^\/compact(?:\s+([\s\S]*))?$/.exec(prompt.trim()) : null;
    if (manual) return compactByHand(manual[1]?.trim() || undefined);
    current = new AbortController();
    const onOuterAbort = () => current?.abort();
    if (options.signal.aborted) current.abort();
    options.signal.addEventListener("abort", onOuterAbort, { once: true });
    let result: AgentResult | undefined;
    try {
      const compaction = options.compactionThreshold === undefined ? undefined : { threshold: options.compactionThreshold, state: compactionState };
      for await (const event of query(prompt, { provider, context: session.context, canUseTool, system: options.system, messages, maxTurns: options.maxTurns, signal: current.signal, compaction })) {
        if (event.type === "result") result = event.result;
        else await printEvent(event);
      }
      if (result) options.transcript?.result({ reason: result.reason, turns: result.turns, durationMs: result.durationMs });
    } finally {
      options.signal.removeEventListener("abort", onOuterAbort);
    }
    return result!;
  };

  const printEvent = async (event: Exclude<AgentEvent, { type: "result" }>) => {
    switch (event.type) {
      case "stream":
        if (options.includePartialMessages) await emit({ type: "stream_event", event: event.event, parent_tool_use_id: null });
        break;
      case "compact_boundary":
        await reportCompaction(event.outcome, event.trigger, event.messages);
        break;
      case "history_repaired":
        options.transcript?.repaired(event.problems);
        await emit({ type: "system", subtype: "notice", level: "warning", message: `history repaired: ${event.problems.join("; ")}` });
        if (!streaming) options.diagnostics.write(`[toolgate] warning: history repaired: ${event.problems.join("; ")}\n`);
        break;
      case "assistant":
        options.transcript?.append(event.message);
        await emit({ type: "assistant", message: { ...event.message, model: provider.model }, parent_tool_use_id: null });
        break;
      case "user":
        options.transcript?.append(event.message);
        await emit({ type: "user", message: event.message, parent_tool_use_id: null });
        break;
      case "tool":
        if (event.update.type === "status") {
          await emit({ type: "system", subtype: "tool_status", tool_use_id: event.update.toolUseID, tool_name: event.update.toolName, status: event.update.status, ...(event.update.outcome ? { outcome: event.update.outcome } : {}), ...(event.update.explanation ? { explanation: event.update.explanation } : {}) });
          if (event.update.status === "done") diagnose(`${event.update.toolName} ${event.update.outcome} (${event.update.durationMs ?? 0} ms)`);
        } else if (event.update.type === "progress" && options.verbose) {
          await emit({ type: "system", subtype: "tool_progress", tool_use_id: event.update.toolUseID, data: event.update.data });
        }
        break;
      case "change_summary":
        options.transcript?.changes(event);
        await emit({ type: "change_summary", turn: event.turn, message_id: event.messageId, ...changeSummaryJson(event.summary) });
        diagnose(`changes in turn ${event.turn}:\n${formatStat(event.summary).trimEnd()}`);
        break;
      case "notice":
        await emit({ type: "system", subtype: "notice", level: event.level, message: event.message });
        if (!streaming) options.diagnostics.write(`[toolgate] ${event.level}: ${event.message}\n`);
        break;
    }
  };

  const reportCompaction = async (outcome: CompactionOutcome, trigger: "auto" | "manual", newHistory?: Message[]) => {
    if (newHistory) options.transcript?.compacted({ trigger, kind: outcome.kind, tokensBefore: outcome.tokensBefore, tokensAfter: outcome.tokensAfter }, newHistory);
    await emit({ type: "system", subtype: "compact_boundary", trigger, kind: outcome.kind, pre_tokens: outcome.tokensBefore, post_tokens: outcome.tokensAfter, message: outcome.message });
    if (!streaming) options.diagnostics.write(`[toolgate] ${outcome.kind === "failed" ? "warning: " : ""}compaction (${trigger}): ${outcome.message}, ${outcome.tokensBefore} → ${outcome.tokensAfter} tokens\n`);
  };

  /** `/compact [focus]` as a prompt: summarise now, whatever the size. */
  const compactByHand = async (focus: string | undefined): Promise<AgentResult> => {
    const started = Date.now();
    const outcome = await compactHistory({ messages, provider, context: session.context, system: options.system, threshold: options.compactionThreshold ?? Number.MAX_SAFE_INTEGER, state: compactionState, force: true, focus, signal: options.signal });
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

  const resultLine = (result: AgentResult) => {
    const cost = estimateCostUSD(provider.model, result.usage);
    return {
      type: "result",
      subtype: RESULT_SUBTYPES[result.reason],
      is_error: result.reason !== "completed",
      stop_reason: result.reason,
      duration_ms: result.durationMs,
      num_turns: result.turns,
      result: result.reason === "completed" ? result.text : (result.error ?? result.text),
      ...(cost === undefined ? {} : { total_cost_usd: cost }),
      usage: {
        input_tokens: result.usage.inputTokens,
        output_tokens: result.usage.outputTokens,
        cache_read_input_tokens: result.usage.cacheReadInputTokens,
        cache_creation_input_tokens: result.usage.cacheCreationInputTokens,
        source: result.usage.source,
      },
      permission_denials: result.permissionDenials.map((d) => ({ tool_name: d.toolName, tool_use_id: d.toolUseID, tool_input: d.toolInput })),
      session_id: sessionId,
    };
  };

  let last: AgentResult | undefined;
  try {
    if (options.inputFormat === "text") {
      last = await runPrompt(options.prompt ?? "");
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
    if (options.inputFormat === "stream-json") await emit(resultLine(last));
  }

  if (options.inputFormat === "text") {
    if (streaming) await emit(resultLine(last));
    else if (options.outputFormat === "json") await writeLine(output, resultLine(last));
    else await new Promise<void>((resolve) => output.write(last!.reason === "completed" ? `${last!.text}\n` : "", () => resolve()));
    if (options.outputFormat === "text" && last.reason !== "completed") options.diagnostics.write(`toolgate: ${last.error ?? last.reason}\n`);
  }
  return last;

  /** stream-json input: user messages run one after another in one conversation; control requests act at once. */
  async function runStreamJsonInput(): Promise<AgentResult> {
    const lines = readline.createInterface({ input: options.input, crlfDelay: Infinity });
    const queue: Array<string | TextBlock[]> = [];
    let inputDone = false;
    let wakeRunner: (() => void) | undefined;
    let lastResult: AgentResult | undefined;

    const reader = (async () => {
      for await (const line of lines) {
        try {
          if (!line.trim()) continue;
          let parsed: unknown;
          try {
            parsed = JSON.parse(line);
          } catch (err) {
            await emit({ type: "system", subtype: "input_error", message: `stdin line is not JSON (${(err as Error).message}); it was ignored` });
            continue;
          }
          if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
            await emit({ type: "system", subtype: "input_error", message: `stdin line is JSON but not an object (${parsed === null ? "null" : Array.isArray(parsed) ? "an array" : `a ${typeof parsed}`}); it was ignored` });
            continue;
          }
          const value = parsed as Record<string, unknown>;
          if (value.type === "user") {
            const prompt = userPrompt(value.message);
            if (prompt === undefined) {
              await emit({ type: "system", subtype: "input_error", message: 'a user line needs message.content: a string or text blocks; it was ignored' });
              continue;
            }
            queue.push(prompt);
            wakeRunner?.();
          } else if (value.type === "control_request") {
            await handleControlRequest(value);
          } else if (value.type === "control_response") {
            const response = value.response as Record<string, unknown> | undefined;
            const id = typeof response?.request_id === "string" ? response.request_id : undefined;
            const pending = id ? pendingControls.get(id) : undefined;
            if (pending) pending.resolve(response!.subtype === "success" ? ((response!.response as Record<string, unknown> | undefined) ?? {}) : { behavior: "deny", message: String(response!.error ?? "the client answered with an error") });
          } else {
            await emit({ type: "system", subtype: "input_error", message: `unknown input line type ${JSON.stringify(value.type)}; expected user, control_request or control_response` });
          }
        } catch (err) {
          // A line we failed on must not end the run without its result line.
          await emit({ type: "system", subtype: "input_error", message: `toolgate could not handle a stdin line (${formatError(err)}); it was ignored` });
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
      const result = await runPrompt(queue.shift()!);
      account(result);
      lastResult = result;
      await emit(resultLine(result));
      if (options.signal.aborted) break;
    }
    // Questions nobody can answer any more are denied, never left hanging.
    for (const pending of pendingControls.values()) pending.resolve(undefined);
    if (options.signal.aborted) lines.close();
    await Promise.race([reader, new Promise((r) => setTimeout(r, 0))]);
    if (!lastResult) {
      lastResult = { reason: options.signal.aborted ? "aborted" : "completed", turns: 0, durationMs: Date.now() - startedAt, usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, source: "api" }, permissionDenials: [], text: "" };
      await emit(resultLine(lastResult));
    }
    return lastResult;
  }

  async function handleControlRequest(value: Record<string, unknown>): Promise<void> {
    const requestId = typeof value.request_id === "string" ? value.request_id : "";
    const request = (value.request ?? {}) as Record<string, unknown>;
    if (request.subtype === "compact") {
      const result = await compactByHand(typeof request.focus === "string" ? request.focus : undefined);
      await emit({ type: "control_response", response: result.reason === "completed" ? { subtype: "success", request_id: requestId } : { subtype: "error", request_id: requestId, error: result.error } });
      return;
    }
    if (request.subtype === "rewind_files") {
      // Files back to how they were before that assistant message changed them (checkpoints survive a resume).
      try {
        const result = rewindFiles(session.context, String(request.message_id ?? ""));
        await emit({ type: "control_response", response: { subtype: "success", request_id: requestId, response: { restored: result.restored, deleted: result.deleted, errors: result.errors } } });
      } catch (err) {
        await emit({ type: "control_response", response: { subtype: "error", request_id: requestId, error: formatError(err) } });
      }
      return;
    }
    if (request.subtype === "interrupt") {
      current?.abort();
      await emit({ type: "control_response", response: { subtype: "success", request_id: requestId } });
      return;
    }
    await emit({ type: "control_response", response: { subtype: "error", request_id: requestId, error: `unsupported control request ${JSON.stringify(request.subtype)} (supported: interrupt, compact, rewind_files)` } });
  }
}

function userPrompt(message: unknown): string | TextBlock[] | undefined {
  const content = (message as UserMessage | undefined)?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content) && content.every((b) => b && typeof b === "object" && b.type === "text" && typeof (b as TextBlock).text === "string")) return content as TextBlock[];
  return undefined;
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
