/**
 * OpenAI's Responses API (`POST /responses`), where OpenAI's reasoning and codex models work best: reasoning items
 * round-trip with their encrypted content (nothing is stored server-side), function calls stream by item, and
 * apply_patch goes as a freeform custom tool to the models trained on it. The request side is in
 * openaiResponsesRequest.ts; this file reads the stream. The SDK is imported on first use.
 */
import { parseToolArguments, toolInputDelta, type Provider, type ProviderErrorKind, type ProviderEvent, type StopReason } from "./events.js";
import { classifySdkError, locateServer, ProviderFailure, withRetry, type RetryOptions } from "./retry.js";
import { buildResponsesRequest, freeformPatchKey, reasoningSignature, type ReasoningItem } from "./openaiResponsesRequest.js";
import { estimateTokens } from "./models.js";
import { openAIClient, type OpenAIClient } from "./openai.js";

export interface OpenAIResponsesProviderOptions {
  model: string;
  apiKey?: string;
  baseURL?: string;
  /** Where the server is and what set it, for errors that cannot reach it. */
  server?: string;
  retry?: RetryOptions;
}


export function createOpenAIResponsesProvider(options: OpenAIResponsesProviderOptions): Provider {
  const getClient = openAIClient(options);
  return {
    name: "openai-responses",
    model: options.model,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    stream(request, signal) {
      const body = buildResponsesRequest(request);
      const patchKey = freeformPatchKey(request);
      return withRetry((attemptSignal) => streamAttempt(getClient, body, patchKey, attemptSignal), (err) => locateServer(classifySdkError(err), options.server), options.retry, signal);
    },
  };
}

/** The stream's events, loosely: only the fields read here. */
interface RawEvent {
  type: string;
  response?: RawResponse;
  item?: RawItem;
  item_id?: string;
  output_index?: number;
  summary_index?: number;
  delta?: string;
  arguments?: string;
  input?: string;
  code?: string | null;
  message?: string;
}

interface RawResponse {
  id?: string;
  model?: string;
  status?: string;
  output?: RawItem[];
  error?: { code?: string | null; message?: string } | null;
  incomplete_details?: { reason?: string } | null;
  usage?: { input_tokens?: number; output_tokens?: number; input_tokens_details?: { cached_tokens?: number } | null } | null;
}

interface RawItem {
  type: string;
  id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  input?: string;
  content?: Array<{ type: string; text?: string; refusal?: string }>;
  summary?: Array<{ type: string; text: string }>;
  encrypted_content?: string | null;
}

async function* streamAttempt(getClient: () => Promise<OpenAIClient>, body: Record<string, unknown>, patchKey: string | undefined, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
  const client = await getClient();
  const { data, response } = await client.responses.create(body as never, { signal }).withResponse();
  // A server (or proxy) may answer a streaming request with the whole response as JSON: read it as its events.
  const json = /json/i.test(response.headers.get("content-type") ?? "");
  const events = json ? eventsOfResponse((await response.json()) as RawResponse) : (data as unknown as AsyncIterable<RawEvent>);
  try {
    yield* translate(events, body, patchKey);
  } catch (err) {
    throw streamedErrorFailure(err) ?? err;
  }
}

/**
 * OpenAI sends a mid-stream `error` event as `{type: "error", error: {code, message}}`, which the SDK throws as an
 * APIError without a status: judged here by its code, like response.failed, rather than as an unknown failure.
 */
function streamedErrorFailure(err: unknown): ProviderFailure | undefined {
  const e = err as { status?: unknown; error?: { code?: string | null; type?: string; message?: string } };
  if (err instanceof ProviderFailure || typeof e?.status === "number" || !e?.error || typeof e.error !== "object") return undefined;
  return serverFailure(e.error.code ?? e.error.type, `The model server reported an error: ${e.error.message ?? "no message"}`);
}

/** The events a stream would have carried for a complete response body. */
function* eventsOfResponse(response: RawResponse): Generator<RawEvent> {
  if (!Array.isArray(response.output) && response.error) {
    yield { type: "response.failed", response };
    return;
  }
  yield { type: "response.created", response };
  for (const [output_index, item] of (response.output ?? []).entries()) {
    yield { type: "response.output_item.added", output_index, item };
    yield { type: "response.output_item.done", output_index, item };
  }
  yield { type: response.status === "incomplete" ? "response.incomplete" : response.status === "failed" ? "response.failed" : "response.completed", response };
}

interface ItemState {
  kind: "message" | "reasoning" | "function" | "custom" | "other";
  index: number;
  callId: string;
  name: string;
  /** The function call's arguments, or the custom tool call's raw input, so far. */
  input: string;
  done: boolean;
  /** Text (message) or thinking (reasoning) arrived as deltas, so the item's done event repeats it. */
  streamed: boolean;
  summaryIndex?: number;
}

async function* translate(events: AsyncIterable<RawEvent> | Iterable<RawEvent>, body: Record<string, unknown>, patchKey: string | undefined): AsyncGenerator<ProviderEvent> {
  const items = new Map<string, ItemState>();
  const byIndex = new Map<number, ItemState>();
  let started = false;
  let refused = false;
  let toolCalls = 0;
  let outputChars = 0;

  const stateOf = (event: RawEvent): ItemState | undefined => (event.item_id !== undefined ? items.get(event.item_id) : undefined) ?? (event.output_index !== undefined ? byIndex.get(event.output_index) : undefined);

  function* start(response?: RawResponse): Generator<ProviderEvent> {
    if (started) return;
    started = true;
    yield { type: "message_start", ...(response?.id ? { id: response.id } : {}), model: response?.model ?? String(body.model) };
  }

  function* complete(state: ItemState, finalInput: string | undefined): Generator<ProviderEvent> {
    if (state.done) return;
    state.done = true;
    if (finalInput !== undefined) state.input = finalInput;
    toolCalls++;
    if (state.kind === "custom") {
      yield { type: "tool_call_complete", id: state.callId, name: state.name, input: { [patchKey ?? "input"]: state.input } };
      return;
    }
    const parsed = parseToolArguments(state.input);
    yield parsed.ok
      ? { type: "tool_call_complete", id: state.callId, name: state.name, input: parsed.input }
      : { type: "tool_call_error", id: state.callId, name: state.name, raw: state.input, message: parsed.message };
  }

  function* text(state: ItemState | undefined, delta: string | undefined, kind: "text" | "thinking"): Generator<ProviderEvent> {
    if (!state || !delta) return;
    state.streamed = true;
    outputChars += delta.length;
    yield kind === "text" ? { type: "text_delta", index: state.index, text: delta } : { type: "thinking_delta", index: state.index, thinking: delta };
  }

  for await (const event of events) {
    switch (event.type) {
      case "response.created":
      case "response.in_progress":
      case "response.queued":
        yield* start(event.response);
        break;
      case "response.output_item.added": {
        yield* start();
        const item = event.item;
        if (!item) break;
        const index = event.output_index ?? byIndex.size;
        const kind = item.type === "message" ? "message" : item.type === "reasoning" ? "reasoning" : item.type === "function_call" ? "function" : item.type === "custom_tool_call" ? "custom" : "other";
        const state: ItemState = { kind, index, callId: item.call_id ?? item.id ?? `call_${index}`, name: item.name ?? "", input: (kind === "custom" ? item.input : item.arguments) ?? "", done: false, streamed: false };
        if (item.id) items.set(item.id, state);
        byIndex.set(index, state);
        if (kind === "function" || kind === "custom") yield { type: "tool_call_start", id: state.callId, name: state.name, index };
        break;
      }
      case "response.output_text.delta":
        yield* text(stateOf(event), event.delta, "text");
        break;
      case "response.refusal.delta":
        refused = true;
        yield* text(stateOf(event), event.delta, "text");
        break;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const state = stateOf(event);
        // Each summary part is a paragraph of its own.
        if (state && event.summary_index !== undefined && state.summaryIndex !== undefined && event.summary_index !== state.summaryIndex) yield* text(state, "\n\n", "thinking");
        if (state && event.summary_index !== undefined) state.summaryIndex = event.summary_index;
        yield* text(state, event.delta, "thinking");
        break;
      }
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta": {
        const state = stateOf(event);
        if (!state || state.done || !event.delta) break;
        state.input += event.delta;
        outputChars += event.delta.length;
        yield toolInputDelta(state.callId, state.kind === "custom" ? JSON.stringify({ [patchKey ?? "input"]: state.input }) : state.input);
        break;
      }
      case "response.function_call_arguments.done": {
        const state = stateOf(event);
        if (state) yield* complete(state, event.arguments);
        break;
      }
      case "response.custom_tool_call_input.done": {
        const state = stateOf(event);
        if (state) yield* complete(state, event.input);
        break;
      }
      case "response.output_item.done": {
        const item = event.item;
        const state = (item?.id ? items.get(item.id) : undefined) ?? (event.output_index !== undefined ? byIndex.get(event.output_index) : undefined);
        if (!item || !state) break;
        if (state.kind === "function" || state.kind === "custom") yield* complete(state, state.kind === "custom" ? item.input : item.arguments);
        else if (state.kind === "message" && !state.streamed) {
          for (const part of item.content ?? []) {
            if (part.type === "refusal") refused = true;
            yield* text(state, part.type === "refusal" ? part.refusal : part.text, "text");
          }
        } else if (state.kind === "reasoning") {
          if (!state.streamed) yield* text(state, (item.summary ?? []).map((s) => s.text).filter(Boolean).join("\n\n"), "thinking");
          // The whole item, verbatim, is what the next request must send back.
          if (item.encrypted_content) yield { type: "thinking_signature", index: state.index, signature: reasoningSignature(item as ReasoningItem) };
        }
        break;
      }
      case "response.completed":
      case "response.incomplete": {
        yield* start(event.response);
        const response = event.response ?? {};
        const incomplete = event.type === "response.incomplete";
        // Calls the stream never closed take their final arguments from the response; a cut-off one stays out.
        if (!incomplete) {
          for (const state of byIndex.values()) {
            if ((state.kind !== "function" && state.kind !== "custom") || state.done) continue;
            const item = response.output?.find((o) => o.call_id === state.callId);
            yield* complete(state, state.kind === "custom" ? item?.input : item?.arguments);
          }
        }
        yield { type: "usage", usage: usageOf(response, body, outputChars) };
        yield { type: "stop", reason: stopReason(incomplete ? response.incomplete_details?.reason : undefined, incomplete, refused, toolCalls), complete: true };
        return;
      }
      case "response.failed": {
        const error = event.response?.error;
        throw serverFailure(error?.code, error?.message ? `The response failed: ${error.message}` : "The response failed without saying why.");
      }
      case "error":
        // The documented flat shape; OpenAI's own nests it under `error`, which the SDK throws (above).
        throw serverFailure(event.code, `The model server reported an error: ${event.message ?? "no message"}`);
    }
  }
  // Ended without response.completed: withRetry tells an abort from a dropped connection.
}

function usageOf(response: RawResponse, body: Record<string, unknown>, outputChars: number): Extract<ProviderEvent, { type: "usage" }>["usage"] {
  const usage = response.usage;
  if (!usage) return { input: estimateTokens(JSON.stringify(body.input ?? "")), output: Math.ceil(outputChars / 4), cacheRead: 0, cacheWrite: 0, source: "estimate" };
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  return { input: Math.max(0, (usage.input_tokens ?? 0) - cached), output: usage.output_tokens ?? 0, cacheRead: cached, cacheWrite: 0, source: "api" };
}

function stopReason(incompleteReason: string | undefined, incomplete: boolean, refused: boolean, toolCalls: number): StopReason {
  if (incomplete) return incompleteReason === "content_filter" ? "refusal" : "max_tokens";
  if (refused) return "refusal";
  return toolCalls ? "tool_use" : "end_turn";
}

/** A failure the server reported inside a 200 stream, judged by its code: rate limits and server errors are retried. */
function serverFailure(code: string | null | undefined, message: string): ProviderFailure {
  const c = code ?? "";
  const [kind, retryable]: [ProviderErrorKind, boolean] =
    c === "rate_limit_exceeded"
      ? ["rate_limit", true]
      : /overloaded/.test(c)
        ? ["overloaded", true]
        : /server_error|internal|unavailable|timeout/.test(c)
          ? ["server", true]
          : c
            ? ["bad_request", false]
            : ["unknown", false];
  return new ProviderFailure({ kind, retryable, message: c ? `${message} (${c})` : message });
}
