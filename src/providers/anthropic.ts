/**
 * Anthropic Messages API over the SDK's raw event stream (not its MessageStream helper, which re-parses the
 * partial input JSON on every delta). The same request and stream reading serve Claude on Amazon Bedrock and
 * Google Vertex AI (bedrock.ts, vertex.ts): their SDK clients take the Messages request and yield the same raw
 * events, so a provider here is built over a client factory. SDKs are imported on first use so commands that
 * never talk to a model do not load them.
 */
import type { Message, TextBlock, ToolResultBlockParam, ToolResultContentBlock } from "../core/messages.js";
import { CHAT_REASONING_MARK, parseToolArguments, toolInputDelta, type Provider, type ProviderEvent, type ProviderName, type ProviderRequest, type StopReason, type ToolDefinition, type Usage } from "./events.js";
import { classifySdkError, locateServer, ProviderFailure, withRetry, type RetryOptions } from "./retry.js";
import { parseJsonObject, unexpectedBody } from "./wholeBody.js";
import { REASONING_SIGNATURE_PREFIX } from "./openaiResponsesRequest.js";
import { renderAnthropicTools, deferredToolsNote } from "./toolSchemas.js";
import { canonicalModelName, getModelInfo } from "./models.js";
import { buildWebSearchRequest, parseWebSearchResponse } from "./anthropicWebSearch.js";
import { environmentProxyFetch } from "../util/proxyFetch.js";

export interface AnthropicProviderOptions {
  model: string;
  apiKey?: string;
  baseURL?: string;
  /** Where the server is and what set it (`http://… from OPENAI_BASE_URL`), for errors that cannot reach it. */
  server?: string;
  retry?: RetryOptions;
  /** Mark system, tools and the last message for prompt caching (default true). */
  promptCaching?: boolean;
}

/** What a Messages provider needs of an SDK client: `messages.create`, streaming raw events when the body says so. */
export interface MessagesClient {
  messages: {
    create(body: never, options?: { signal?: AbortSignal; maxRetries?: number; headers?: Record<string, string> }): Promise<unknown> & {
      /** The parsed result and the raw response beside it (the SDKs' APIPromise). */
      withResponse(): Promise<{ data: unknown; response: Response }>;
    };
  };
}

export interface MessagesProviderOptions {
  name: ProviderName;
  model: string;
  baseURL?: string;
  retry?: RetryOptions;
  promptCaching?: boolean;
  /** Called on the first request (and again after it rejected): imports the SDK and builds its client. */
  client: () => Promise<MessagesClient>;
  /** Turns what a request threw into a failure the retry policy judges, worded for the user. */
  classify: (err: unknown) => ProviderFailure;
  /** The platform's server-side web search, with any headers it needs; absent where the platform has none. */
  webSearch?: { headers?: Record<string, string> };
  /** Fields every request body carries on this platform (Bedrock's and Vertex's `anthropic_version`). */
  bodyFields?: Record<string, unknown>;
}

const EPHEMERAL = { type: "ephemeral" } as const;

type AnthropicClient = InstanceType<typeof import("@anthropic-ai/sdk").default>;

export function createAnthropicProvider(options: AnthropicProviderOptions): Provider {
  const client = () =>
    Promise.all([import("@anthropic-ai/sdk"), environmentProxyFetch()]).then(
      ([{ default: Anthropic }, proxied]): AnthropicClient =>
        new Anthropic({
          // HTTPS_PROXY / HTTP_PROXY, which Node's own fetch ignores
          ...(proxied ? { fetch: proxied } : {}),
          apiKey: options.apiKey ?? null,
          baseURL: options.baseURL ?? null,
          maxRetries: 0,
          // The stall watchdog judges idleness; this only bounds a request that never completes at all.
          timeout: 60 * 60 * 1000,
          // The SDK sends the key as a Bearer token; proxies that expect Anthropic's own header get it too.
          ...(options.apiKey && options.baseURL ? { defaultHeaders: { "x-api-key": options.apiKey } } : {}),
        }),
    );
  return createMessagesProvider({
    name: "anthropic",
    model: options.model,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.promptCaching !== undefined ? { promptCaching: options.promptCaching } : {}),
    client,
    classify: (err) => locateServer(classifySdkError(err), options.server),
    webSearch: {},
  });
}

/** A provider over any client that speaks the Messages API: the request is built and the stream read here. */
export function createMessagesProvider(options: MessagesProviderOptions): Provider {
  let client: Promise<MessagesClient> | undefined;
  const getClient = () => {
    // A factory that failed (a missing setting) is asked again next time rather than failing forever.
    client ??= options.client().catch((err: unknown) => {
      client = undefined;
      throw err;
    });
    return client;
  };
  const search = options.webSearch;
  return {
    name: options.name,
    model: options.model,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    stream(request, signal) {
      const body = { ...buildAnthropicRequest(request, options.promptCaching !== false), ...options.bodyFields };
      return continuingPausedTurns(body, (next, turn) => withRetry((attemptSignal) => streamAttempt(getClient, next, attemptSignal, turn), options.classify, options.retry, signal));
    },
    ...(search && {
      async webSearch(request, signal) {
        const body = { ...buildWebSearchRequest(request), ...options.bodyFields };
        const content: unknown[] = [];
        // A long search pauses the turn (stop_reason pause_turn): it goes on when its content is sent back as is.
        for (let round = 0; ; round++) {
          let response: { content?: unknown; stop_reason?: unknown };
          try {
            const client = await getClient();
            // Non-streaming: the searches run on the platform's side and the answer is short.
            const messages = content.length ? [...(body.messages as unknown[]), { role: "assistant", content }] : body.messages;
            response = (await client.messages.create({ ...body, messages } as never, { signal, maxRetries: options.retry?.maxRetries ?? 2, ...(search.headers ? { headers: search.headers } : {}) })) as typeof response;
          } catch (err) {
            throw new Error(`Web search through ${request.model} failed: ${options.classify(err).message}`);
          }
          if (Array.isArray(response?.content)) content.push(...(response.content as unknown[]));
          if (response?.stop_reason !== "pause_turn") break;
          if (round >= MAX_PAUSE_CONTINUATIONS) throw new Error(`Web search through ${request.model} paused ${round + 1} times without finishing; try a narrower query.`);
        }
        return parseWebSearchResponse({ content }, request.model);
      },
    }),
  };
}

const TEXT_EDITOR_TOOL_NAME = "str_replace_based_edit_tool";

/**
 * Anthropic's text editor tool type for a Claude model that has one under the name str_replace_based_edit_tool
 * (Claude 4 and later, Sonnet 3.7); undefined for any other model, which gets our schema as an ordinary tool.
 */
export function nativeTextEditorType(model: string): string | undefined {
  // Bedrock's and Vertex's ids of a Claude model name the same model (canonicalModelName).
  const id = canonicalModelName(model);
  const generation = /^claude-(?:opus|sonnet|haiku)-(\d+)(?:[-.]|$)/.exec(id);
  if (generation && Number(generation[1]) >= 4) return "text_editor_20250728";
  if (/^claude-3-7-sonnet(?:-|$)/.test(id)) return "text_editor_20250124";
  return undefined;
}

const COMPUTER_TOOL_NAME = "computer";

/** Anthropic's computer-use tool types, newest first, with the beta each needs. */
const COMPUTER_TOOL_BETAS: Readonly<Record<string, string>> = {
  computer_20251124: "computer-use-2025-11-24",
  computer_20250124: "computer-use-2025-01-24",
};

/**
 * Anthropic's computer-use tool type for a Claude model trained on one: computer_20251124 (with zoom) for Opus
 * 4.5 and later and any Claude 5; computer_20250124 for the other Claude 4 models and Sonnet 3.7; undefined for
 * any other model, which gets the computer tool as an ordinary tool with the same actions.
 */
export function nativeComputerType(model: string): string | undefined {
  const id = canonicalModelName(model);
  const version = /^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d)(?:-|$)|$|-)/.exec(id);
  if (version) {
    const major = Number(version[2]);
    const minor = Number(version[3] ?? 0);
    if (major >= 5 || (major === 4 && minor >= 5 && version[1] === "opus") || (major === 4 && minor >= 6)) return "computer_20251124";
    if (major === 4) return "computer_20250124";
    return undefined;
  }
  if (/^claude-3-7-sonnet(?:-|$)/.test(id)) return "computer_20250124";
  return undefined;
}

/** The anthropic-beta header a request body needs (the computer-use tool types are in beta), if any. */
export function betaHeadersFor(body: Record<string, unknown>): Record<string, string> | undefined {
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ type?: unknown }>) : [];
  const betas = [...new Set(tools.map((t) => (typeof t.type === "string" ? COMPUTER_TOOL_BETAS[t.type] : undefined)).filter((b): b is string => Boolean(b)))];
  return betas.length ? { "anthropic-beta": betas.join(",") } : undefined;
}

function nativeComputerTool(type: string, def: ToolDefinition): Record<string, unknown> {
  return {
    type,
    name: COMPUTER_TOOL_NAME,
    display_width_px: def.display!.width,
    display_height_px: def.display!.height,
    ...(def.display!.number !== undefined ? { display_number: def.display!.number } : {}),
    ...(type === "computer_20251124" ? { enable_zoom: true } : {}),
  };
}

/** The Messages API request body for a neutral request. Exported for tests and for the schema bench. */
export function buildAnthropicRequest(request: ProviderRequest, caching = true): Record<string, unknown> {
  const note = deferredToolsNote(request.deferredToolNames);
  const systemBlocks: Array<Record<string, unknown>> = [
    ...(typeof request.system === "string" ? (request.system ? [{ type: "text", text: request.system }] : []) : (request.system ?? []).map((b) => ({ ...b }))),
    ...(note ? [{ type: "text", text: note }] : []),
  ];
  if (caching && systemBlocks.length) systemBlocks[systemBlocks.length - 1].cache_control = EPHEMERAL;
  const textEditor = nativeTextEditorType(request.model);
  // The text editor goes as Anthropic's own tool type to the Claude models trained on it: the API supplies its
  // schema, the one the model knows (the inputs are the same as ours).
  const computer = nativeComputerType(request.model);
  const defs = request.tools ?? [];
  // The computer tool likewise, with the screen size the model sees (the API supplies the actions' schema).
  const tools: Array<Record<string, unknown>> = renderAnthropicTools(defs).map((tool, i) =>
    textEditor && tool.name === TEXT_EDITOR_TOOL_NAME ? { type: textEditor, name: tool.name } : computer && tool.name === COMPUTER_TOOL_NAME && defs[i].display ? nativeComputerTool(computer, defs[i]) : { ...tool },
  );
  if (caching && tools.length) tools[tools.length - 1] = { ...tools[tools.length - 1], cache_control: EPHEMERAL };
  const messages = request.messages.map(toAnthropicMessage);
  if (caching) markLastMessage(messages);
  const requested = request.maxTokens ?? getModelInfo(request.model).maxOutputTokens;
  // The API refuses a thinking budget that is not below max_tokens: the answer keeps room after the thinking.
  const maxTokens = request.thinking && request.thinking.budgetTokens >= requested ? request.thinking.budgetTokens + 4096 : requested;
  return {
    model: request.model,
    max_tokens: maxTokens,
    messages,
    stream: true,
    ...(systemBlocks.length ? { system: systemBlocks } : {}),
    ...(tools.length ? { tools } : {}),
    ...(request.toolChoice && tools.length ? { tool_choice: request.toolChoice } : {}),
    ...(request.thinking ? { thinking: { type: "enabled", budget_tokens: request.thinking.budgetTokens } } : {}),
  };
}

type WireMessage = { role: string; content: Array<Record<string, unknown>> };

function toAnthropicMessage(message: Message): WireMessage {
  if (typeof message.content === "string") return { role: message.role, content: [{ type: "text", text: message.content }] };
  const content = (message.content as Array<Record<string, unknown>>)
    // Reasoning another API sent (a session that changed provider) has no Anthropic signature, and the API
    // refuses a thinking block without a valid one.
    .filter((block) => !(block.type === "thinking" && !isAnthropicSignature(block.signature)))
    .map((block) => (block.type === "tool_result" ? toolResultForAnthropic(block as unknown as ToolResultBlockParam) : { ...block }));
  return { role: message.role, content };
}

function isAnthropicSignature(signature: unknown): boolean {
  return typeof signature === "string" && signature !== "" && !signature.startsWith(CHAT_REASONING_MARK) && !signature.startsWith(REASONING_SIGNATURE_PREFIX);
}

/** A tool_reference (ToolSearch loaded a tool) becomes text: the loaded tool's schema is in `tools` already. */
function toolResultForAnthropic(block: ToolResultBlockParam): Record<string, unknown> {
  if (typeof block.content === "string") return { ...block };
  const content = block.content.map((c: ToolResultContentBlock) => (c.type === "tool_reference" ? ({ type: "text", text: `Tool ${c.tool_name} is now available.` } satisfies TextBlock) : c));
  return { ...block, content };
}

/** Exactly one message-level cache breakpoint, on the last block of the last message. */
function markLastMessage(messages: WireMessage[]): void {
  const last = messages[messages.length - 1];
  if (!last || last.content.length === 0) return;
  const i = last.content.length - 1;
  const block = last.content[i];
  // Thinking blocks cannot carry cache_control.
  if (block.type === "thinking" || block.type === "redacted_thinking") return;
  last.content[i] = { ...block, cache_control: EPHEMERAL };
}

interface BlockState {
  kind: "text" | "thinking" | "tool" | "other";
  id?: string;
  name?: string;
  json?: string;
}

/** How many times a paused turn (`pause_turn`, a long server-side tool run) is continued before giving up. */
export const MAX_PAUSE_CONTINUATIONS = 5;

/** What one response left for continuing it: its blocks as the API sent them, and whether it paused. */
interface TurnState {
  blocks: Array<Record<string, unknown> | undefined>;
  paused: boolean;
}

/**
 * A turn the API paused (`stop_reason: pause_turn`) goes on in a new request carrying the paused content back
 * unchanged, as the API asks; the caller sees one message. Block indexes continue across the requests, usage adds
 * up, and `context` keeps the size of the conversation itself: server-side tool results count as input but are
 * not kept in the history, so they must not make it look full.
 */
async function* continuingPausedTurns(body: Record<string, unknown>, request: (body: Record<string, unknown>, turn: TurnState) => AsyncIterable<ProviderEvent>): AsyncGenerator<ProviderEvent> {
  const paused: Array<Record<string, unknown>> = [];
  let offset = 0;
  let total: Usage | undefined;
  for (let round = 0; ; round++) {
    const turn: TurnState = { blocks: [], paused: false };
    const next = paused.length ? { ...body, messages: [...(body.messages as unknown[]), { role: "assistant", content: paused }] } : body;
    let highest = -1;
    for await (const event of request(next, turn)) {
      if (event.type === "message_start" && round > 0) continue;
      if ("index" in event && typeof event.index === "number") highest = Math.max(highest, event.index);
      if (event.type === "usage") {
        total = total ? { ...event.usage, input: total.input + event.usage.input, output: total.output + event.usage.output, cacheRead: total.cacheRead + event.usage.cacheRead, cacheWrite: total.cacheWrite + event.usage.cacheWrite, ...(total.context !== undefined ? { context: total.context } : {}) } : event.usage;
        yield { type: "usage", usage: { ...total } };
        continue;
      }
      if (event.type === "stop" && event.complete && turn.paused) {
        if (round < MAX_PAUSE_CONTINUATIONS) break;
        yield { type: "error", error: { kind: "server", retryable: false, message: `The model paused its turn ${round + 1} times (a long server-side tool run) without finishing it; toolgate stopped continuing it.` } };
        yield { type: "stop", reason: "error", complete: false };
        return;
      }
      yield offset && "index" in event && typeof event.index === "number" ? { ...event, index: event.index + offset } : event;
      if (event.type === "stop") return;
    }
    if (!turn.paused) return;
    paused.push(...turn.blocks.filter((b): b is Record<string, unknown> => Boolean(b)));
    offset += highest + 1;
  }
}

async function* streamAttempt(getClient: () => Promise<MessagesClient>, body: Record<string, unknown>, signal: AbortSignal, turn: TurnState): AsyncGenerator<ProviderEvent> {
  const client = await getClient();
  // The response beside the stream: a server that ignores `stream: true` answers with one JSON message.
  const headers = betaHeadersFor(body);
  const { data, response } = await client.messages.create(body as never, { signal, ...(headers ? { headers } : {}) }).withResponse();
  const source = await eventsOf(data as unknown as AsyncIterable<RawEvent>, response);
  const blocks = new Map<number, BlockState>();
  const usage: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, source: "api" };
  let stopReason: StopReason = "end_turn";
  turn.blocks = [];
  turn.paused = false;
  for await (const event of source) {
    record(turn, event);
    switch (event.type) {
      case "message_start": {
        const u = event.message.usage ?? {};
        usage.input = u.input_tokens ?? 0;
        usage.output = u.output_tokens ?? 0;
        usage.cacheRead = u.cache_read_input_tokens ?? 0;
        usage.cacheWrite = u.cache_creation_input_tokens ?? 0;
        // The prompt as sent; the final input count may add results of server-side tools run during the answer.
        const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
        if (prompt > 0) usage.context = prompt;
        yield { type: "message_start", id: event.message.id, model: event.message.model ?? String(body.model) };
        break;
      }
      case "content_block_start": {
        const block = event.content_block;
        if (block.type === "text") {
          blocks.set(event.index, { kind: "text" });
          if (block.text) yield { type: "text_delta", index: event.index, text: block.text };
        } else if (block.type === "thinking") {
          blocks.set(event.index, { kind: "thinking" });
          if (block.thinking) yield { type: "thinking_delta", index: event.index, thinking: block.thinking };
          if (block.signature) yield { type: "thinking_signature", index: event.index, signature: block.signature };
        } else if (block.type === "redacted_thinking") {
          blocks.set(event.index, { kind: "other" });
          yield { type: "redacted_thinking", index: event.index, data: String(block.data ?? "") };
        } else if (block.type === "tool_use") {
          const id = String(block.id);
          const name = String(block.name);
          // A start may carry the whole input (non-streaming proxies); input_json_delta text follows otherwise.
          const initial = block.input && typeof block.input === "object" && Object.keys(block.input).length ? JSON.stringify(block.input) : "";
          blocks.set(event.index, { kind: "tool", id, name, json: initial });
          yield { type: "tool_call_start", id, name, index: event.index };
        } else blocks.set(event.index, { kind: "other" });
        break;
      }
      case "content_block_delta": {
        const state = blocks.get(event.index);
        const delta = event.delta;
        if (delta.type === "text_delta") yield { type: "text_delta", index: event.index, text: String(delta.text) };
        else if (delta.type === "thinking_delta") yield { type: "thinking_delta", index: event.index, thinking: String(delta.thinking) };
        else if (delta.type === "signature_delta") yield { type: "thinking_signature", index: event.index, signature: String(delta.signature) };
        else if (delta.type === "input_json_delta" && state?.kind === "tool") {
          state.json += String(delta.partial_json ?? "");
          yield toolInputDelta(state.id!, state.json!);
        }
        break;
      }
      case "content_block_stop": {
        const state = blocks.get(event.index);
        if (state?.kind === "tool") {
          const parsed = parseToolArguments(state.json ?? "");
          yield parsed.ok
            ? { type: "tool_call_complete", id: state.id!, name: state.name!, input: parsed.input }
            : { type: "tool_call_error", id: state.id!, name: state.name!, raw: state.json ?? "", message: parsed.message };
        }
        break;
      }
      case "message_delta": {
        const u = event.usage ?? {};
        if (u.output_tokens != null) usage.output = u.output_tokens;
        if (u.input_tokens != null) usage.input = u.input_tokens;
        if (u.cache_read_input_tokens != null) usage.cacheRead = u.cache_read_input_tokens;
        if (u.cache_creation_input_tokens != null) usage.cacheWrite = u.cache_creation_input_tokens;
        if (event.delta?.stop_reason === "pause_turn") turn.paused = true;
        else if (event.delta?.stop_reason) stopReason = mapStopReason(event.delta.stop_reason);
        break;
      }
      case "message_stop":
        yield { type: "usage", usage: { ...usage } };
        yield { type: "stop", reason: stopReason, complete: true };
        return;
    }
  }
  // Ended without message_stop: withRetry tells an abort from a dropped connection.
}

/** Keeps each block as the API sent it, deltas applied, for sending a paused turn back unchanged. */
function record(turn: TurnState, event: RawEvent): void {
  if (event.type === "content_block_start") {
    turn.blocks[event.index] = { ...event.content_block } as Record<string, unknown>;
    return;
  }
  if (event.type !== "content_block_delta" && event.type !== "content_block_stop") return;
  const block = turn.blocks[event.index];
  if (!block) return;
  if (event.type === "content_block_stop") {
    if (typeof block.__json === "string") {
      const parsed = parseToolArguments(block.__json);
      block.input = parsed.ok ? parsed.input : {};
      delete block.__json;
    }
    return;
  }
  const delta = event.delta as Record<string, unknown>;
  if (delta.type === "text_delta") block.text = String(block.text ?? "") + String(delta.text ?? "");
  else if (delta.type === "thinking_delta") block.thinking = String(block.thinking ?? "") + String(delta.thinking ?? "");
  else if (delta.type === "signature_delta") block.signature = String(block.signature ?? "") + String(delta.signature ?? "");
  else if (delta.type === "citations_delta") block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
  else if (delta.type === "input_json_delta") block.__json = String(block.__json ?? "") + String(delta.partial_json ?? "");
}

/**
 * The events of a 200 response: an event stream as the SDK reads it; a complete message (a server or proxy that
 * ignored `stream: true`) as the events a stream of it would have sent; anything else is an error saying what arrived.
 */
async function eventsOf(stream: AsyncIterable<RawEvent>, response: Response): Promise<AsyncIterable<RawEvent> | Iterable<RawEvent>> {
  const contentType = response.headers.get("content-type") ?? "";
  // Anything the SDK reads as a stream (SSE, or Bedrock's binary event stream) stays with it.
  if (!contentType || !/json|text\/html|text\/plain|xml/i.test(contentType)) return stream;
  const raw = await response.text();
  const whole = parseJsonObject(raw);
  if (whole && Array.isArray(whole.content) && (whole.type === "message" || whole.role === "assistant")) return messageAsEvents(whole);
  if (whole?.type === "error" || whole?.error) throw new (await import("@anthropic-ai/sdk")).APIError(undefined, whole, undefined, response.headers);
  throw new ProviderFailure({ kind: "bad_request", retryable: false, message: unexpectedBody(response.status, contentType, raw, "a message") });
}

function messageAsEvents(message: Record<string, unknown>): RawEvent[] {
  const content = message.content as Array<RawEvent & { type: string }>;
  const usage = (message.usage ?? {}) as RawUsage;
  return [
    { type: "message_start", message: { ...(typeof message.id === "string" ? { id: message.id } : {}), ...(typeof message.model === "string" ? { model: message.model } : {}), usage } },
    ...content.flatMap((block, index): RawEvent[] => [
      { type: "content_block_start", index, content_block: block as never },
      { type: "content_block_stop", index },
    ]),
    { type: "message_delta", delta: { stop_reason: typeof message.stop_reason === "string" ? message.stop_reason : null }, usage },
    { type: "message_stop" },
  ];
}

function mapStopReason(reason: string): StopReason {
  switch (reason) {
    case "tool_use":
    case "max_tokens":
    case "stop_sequence":
    case "refusal":
      return reason;
    case "model_context_window_exceeded":
      return "max_tokens";
    default:
      return "end_turn";
  }
}

interface RawUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** The raw stream's events, loosely: only the fields read here, so servers that omit some still work. */
type RawEvent =
  | { type: "message_start"; message: { id?: string; model?: string; usage?: RawUsage } }
  | { type: "content_block_start"; index: number; content_block: { type: string; text?: string; thinking?: string; signature?: string; data?: string; id?: string; name?: string; input?: unknown } }
  | { type: "content_block_delta"; index: number; delta: { type: string; text?: string; thinking?: string; signature?: string; partial_json?: string } }
  | { type: "content_block_stop"; index: number }
  | { type: "message_delta"; delta?: { stop_reason?: string | null }; usage?: RawUsage }
  | { type: "message_stop" }
  | { type: "ping" };
