/**
 * OpenAI-compatible chat completions (OpenAI, Ollama, vLLM, LM Studio, OpenRouter, llama.cpp server) over the
 * SDK's raw stream. Tool calls are stitched by `index` and the servers' known deviations are tolerated: see
 * docs/providers.md. The SDK is imported on first use.
 */
import type { DocumentBlock, ImageBlock, Message, ToolResultBlockParam, ToolResultContentBlock } from "../core/messages.js";
import { CHAT_REASONING_MARK, parseToolArguments, toolInputDelta, type Provider, type ProviderEvent, type ProviderRequest, type StopReason } from "./events.js";
import { classifySdkError, locateServer, ProviderFailure, withRetry, type RetryOptions } from "./retry.js";
import { parseJsonObject, unexpectedBody } from "./wholeBody.js";
import { deferredToolsNote, openAIToolChoice, renderOpenAITools } from "./toolSchemas.js";
import { estimateTokens } from "./models.js";
import { environmentProxyFetch } from "../util/proxyFetch.js";

export interface OpenAIProviderOptions {
  model: string;
  apiKey?: string;
  baseURL?: string;
  /** Where the server is and what set it (`http://… from OPENAI_BASE_URL`), for errors that cannot reach it. */
  server?: string;
  retry?: RetryOptions;
}

export type OpenAIClient = InstanceType<typeof import("openai").default>;

/** One lazily created OpenAI SDK client (shared by chat completions and the Responses API): no SDK load before the first call. */
export function openAIClient(options: { apiKey?: string; baseURL?: string }): () => Promise<OpenAIClient> {
  let client: Promise<OpenAIClient> | undefined;
  return () =>
    (client ??= Promise.all([import("openai"), environmentProxyFetch()]).then(
      ([{ default: OpenAI }, proxied]) =>
        new OpenAI({
          // HTTPS_PROXY / HTTP_PROXY, which Node's own fetch ignores
          ...(proxied ? { fetch: proxied } : {}),
          // Local servers need no key, but the SDK refuses to start without one.
          apiKey: options.apiKey || "no-key",
          baseURL: options.baseURL ?? null,
          maxRetries: 0,
          timeout: 60 * 60 * 1000,
        }),
    ));
}

export function createOpenAIProvider(options: OpenAIProviderOptions): Provider {
  const getClient = openAIClient(options);
  return {
    name: "openai",
    model: options.model,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    stream(request, signal) {
      const body = buildOpenAIRequest(request);
      return withRetry((attemptSignal) => streamAttempt(getClient, body, attemptSignal), (err) => locateServer(classifySdkError(err), options.server), options.retry, signal);
    },
  };
}

type ChatMessage = Record<string, unknown> & { role: string };

export function buildOpenAIRequest(request: ProviderRequest): Record<string, unknown> {
  const system = [typeof request.system === "string" ? request.system : (request.system ?? []).map((b) => b.text).join("\n\n"), deferredToolsNote(request.deferredToolNames)]
    .filter(Boolean)
    .join("\n\n");
  const messages: ChatMessage[] = [...(system ? [{ role: "system", content: system }] : []), ...request.messages.flatMap(toChatMessages)];
  const tools = renderOpenAITools(request.tools ?? []);
  // Reasoning models take max_completion_tokens and refuse max_tokens; compatible servers know max_tokens. A router's
  // name for one (OpenRouter's `openai/gpt-5`, `openai/o3-mini`) is the same model behind a vendor prefix.
  const limitKey = /^(?:[\w.-]+\/)?(o\d|gpt-5)/.test(request.model) ? "max_completion_tokens" : "max_tokens";
  return {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(request.maxTokens ? { [limitKey]: request.maxTokens } : {}),
    ...(tools.length ? { tools } : {}),
    ...(request.toolChoice && tools.length ? { tool_choice: openAIToolChoice(request.toolChoice, (name) => ({ type: "function", function: { name } })) } : {}),
  };
}

/** One core message → chat messages: tool results become `role: "tool"` messages, in order, before any text. */
function toChatMessages(message: Message): ChatMessage[] {
  if (typeof message.content === "string") return [{ role: message.role, content: message.content }];
  const blocks = message.content as Array<Record<string, unknown>>;
  if (message.role === "assistant") {
    const text = blocks.flatMap((b) => (b.type === "text" ? [String(b.text)] : [])).join("");
    const toolCalls = blocks
      .filter((b) => b.type === "tool_use")
      .map((b) => ({ id: String(b.id), type: "function", function: { name: String(b.name), arguments: JSON.stringify(b.input ?? {}) } }));
    // content may be null only beside tool_calls; some servers reject a null content on its own.
    const reply: ChatMessage = { role: "assistant", content: text || (toolCalls.length ? null : ""), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
    return [toolCalls.length ? withReasoning(reply, blocks) : reply];
  }
  const out: ChatMessage[] = [];
  const texts: string[] = [];
  // A prompt with images goes as content parts (text and image_url); text alone stays one string.
  const parts: Array<Record<string, unknown>> = [];
  // Tool messages carry text only: a tool result's images (screenshots, images Read shows) follow in a user message.
  const resultImages: Array<Record<string, unknown>> = [];
  for (const block of blocks) {
    if (block.type === "tool_result") {
      const result = block as unknown as ToolResultBlockParam;
      const images = typeof result.content === "string" ? [] : result.content.filter((c): c is ImageBlock => c.type === "image" && c.source.type === "base64");
      out.push({ role: "tool", tool_call_id: result.tool_use_id, content: toolResultText(result, images.length > 0) });
      if (images.length) {
        resultImages.push({ type: "text", text: `The image${images.length > 1 ? "s" : ""} of tool result ${result.tool_use_id}:` });
        for (const image of images) resultImages.push({ type: "image_url", image_url: { url: `data:${image.source.media_type};base64,${image.source.data}` } });
      }
    } else if (block.type === "text") {
      texts.push(String(block.text));
      parts.push({ type: "text", text: String(block.text) });
    } else if (block.type === "image" || block.type === "document") {
      const media = block as unknown as ImageBlock | DocumentBlock;
      if (media.type === "image" && media.source.type === "base64") parts.push({ type: "image_url", image_url: { url: `data:${media.source.media_type};base64,${media.source.data}` } });
      else {
        const note = contentText(media);
        texts.push(note);
        parts.push({ type: "text", text: note });
      }
    }
  }
  if (resultImages.length) out.push({ role: "user", content: [...resultImages, ...parts] });
  else if (parts.some((p) => p.type === "image_url")) out.push({ role: "user", content: parts });
  else if (texts.length) out.push({ role: "user", content: texts.join("\n\n") });
  return out;
}

/**
 * A tool-call turn goes back with the reasoning the server sent for it, in the field it came in: DeepSeek refuses
 * a tool-call turn without its reasoning_content, OpenRouter keeps signed and encrypted reasoning in
 * reasoning_details, Mistral takes its thinking parts. Reasoning from any other API (an Anthropic signature) stays out.
 */
function withReasoning(reply: ChatMessage, blocks: ReadonlyArray<Record<string, unknown>>): ChatMessage {
  const thinking = blocks.filter((b) => b.type === "thinking" && typeof b.signature === "string" && b.signature.startsWith(CHAT_REASONING_MARK));
  const origins = thinking.flatMap((b): ReasoningOrigin[] => {
    try {
      const origin = JSON.parse(String(b.signature).slice(CHAT_REASONING_MARK.length)) as ReasoningOrigin;
      return origin && typeof origin.field === "string" ? [origin] : [];
    } catch {
      return [];
    }
  });
  if (!origins.length) return reply;
  const text = thinking.map((b) => String(b.thinking ?? "")).join("");
  const field = origins[0].field;
  switch (field) {
    case "reasoning_details":
      return { ...reply, reasoning_details: origins.flatMap((o) => o.details ?? []) };
    case "content_parts":
      return { ...reply, content: [{ type: "thinking", thinking: [{ type: "text", text }] }, ...(typeof reply.content === "string" && reply.content ? [{ type: "text", text: reply.content }] : [])] };
    default:
      return { ...reply, [field]: text };
  }
}

/**
 * Tool messages carry text only: binary documents become a note saying what was left out; images a note that
 * they follow in the next user message (`imagesFollow`), else that they were left out.
 */
function toolResultText(result: ToolResultBlockParam, imagesFollow = false): string {
  const parts =
    typeof result.content === "string"
      ? [result.content]
      : result.content.map((c) => (imagesFollow && c.type === "image" && c.source.type === "base64" ? `[An image (${c.source.media_type}) follows in the next user message.]` : contentText(c)));
  const text = parts.join("\n");
  return result.is_error ? `Error: ${text}` : text;
}

function contentText(block: ToolResultContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "tool_reference":
      return `Tool ${block.tool_name} is now available.`;
    case "image":
      return `[An image (${block.source.media_type}, ${block.source.data.length} base64 characters) was left out: this API receives tool results as text only.]`;
    case "document":
      return block.source.type === "text"
        ? block.source.data
        : `[A document${block.title ? ` "${block.title}"` : ""} (${block.source.media_type}) was left out: this API receives tool results as text only.]`;
  }
}

interface ToolCallState {
  id: string;
  name: string;
  args: string;
  started: boolean;
  done: boolean;
  /** The arguments arrived as an object (Ollama): complete, further string fragments are ignored. */
  objectArgs: boolean;
}

interface ChunkToolCall {
  index?: number;
  id?: string | null;
  type?: string;
  function?: { name?: string | null; arguments?: string | Record<string, unknown> | null };
}

/** A content part (Mistral sends content as a list: `text`, and `thinking` whose own content is a list of text parts). */
type ContentPart = { type?: string; text?: unknown; thinking?: unknown };

/** One entry of OpenRouter's `reasoning_details`: text (maybe signed), a summary, or encrypted data. */
type ReasoningDetail = { type?: string; index?: number; text?: string | null; summary?: string | null; data?: string | null; signature?: string | null; [key: string]: unknown };

interface ChunkUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

interface Delta {
  content?: string | ContentPart[] | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  reasoning_details?: ReasoningDetail[] | null;
  refusal?: string | null;
  tool_calls?: ChunkToolCall[] | null;
}

interface Chunk {
  id?: string;
  model?: string;
  choices?: Array<{ delta?: Delta; finish_reason?: string | null; usage?: ChunkUsage | null }>;
  usage?: ChunkUsage | null;
  /** Groq reports usage here instead of `usage`. */
  x_groq?: { usage?: ChunkUsage | null } | null;
}

/** Where the server put its reasoning; it goes back the same way (see `reasoningForHistory`). */
type ReasoningField = "reasoning_content" | "reasoning" | "reasoning_details" | "content_parts";


interface ReasoningOrigin {
  field: ReasoningField;
  details?: ReasoningDetail[];
}

async function* streamAttempt(getClient: () => Promise<OpenAIClient>, body: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
  const client = await getClient();
  // The response beside the stream: a server that ignores `stream: true` answers with one JSON body, read as a whole.
  const { data, response } = await client.chat.completions.create(body as never, { signal }).withResponse();
  const source = await chunksOf(data as unknown as AsyncIterable<Chunk>, response, signal, client);
  const calls: ToolCallState[] = [];
  let started = false;
  let finishReason: string | null | undefined;
  let usage: ChunkUsage | null | undefined;
  let outputChars = 0;
  let refused = false;
  // Stable per message: a call without an id gets one from the completion id and its index.
  let idBase = "";
  let thinkingIndex: number | undefined;
  let origin: ReasoningOrigin | undefined;
  let textIndex: number | undefined;
  let blockCount = 0;

  function* finish(call: ToolCallState): Generator<ProviderEvent> {
    if (call.done) return;
    call.done = true;
    if (!call.started) {
      call.started = true;
      yield { type: "tool_call_start", id: call.id, name: call.name, index: blockCount++ };
    }
    const parsed = call.name ? parseToolArguments(call.args) : { ok: false as const, message: "The tool call has no tool name. Send the call again naming the tool." };
    yield parsed.ok
      ? { type: "tool_call_complete", id: call.id, name: call.name, input: parsed.input }
      : { type: "tool_call_error", id: call.id, name: call.name, raw: call.args, message: parsed.message };
  }

  function* thinking(text: string, field: ReasoningField): Generator<ProviderEvent> {
    thinkingIndex ??= blockCount++;
    origin ??= { field };
    outputChars += text.length;
    if (text) yield { type: "thinking_delta", index: thinkingIndex, thinking: text };
  }

  /** The thinking block is over (text or a call follows, or the stream ended): its origin becomes its signature. */
  function* closeThinking(): Generator<ProviderEvent> {
    if (thinkingIndex === undefined || !origin) return;
    yield { type: "thinking_signature", index: thinkingIndex, signature: CHAT_REASONING_MARK + JSON.stringify(origin) };
    thinkingIndex = undefined;
    origin = undefined;
  }

  function* text(value: string): Generator<ProviderEvent> {
    if (!value) return;
    yield* closeThinking();
    textIndex ??= blockCount++;
    outputChars += value.length;
    yield { type: "text_delta", index: textIndex, text: value };
  }

  for await (const chunk of source) {
    if (!started) {
      started = true;
      idBase = (chunk.id ?? `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`).replace(/[^A-Za-z0-9_-]/g, "_");
      yield { type: "message_start", ...(chunk.id ? { id: chunk.id } : {}), model: chunk.model ?? String(body.model) };
    }
    const choice = chunk.choices?.[0];
    usage = chunk.usage ?? chunk.x_groq?.usage ?? choice?.usage ?? usage;
    if (!choice) continue;
    const delta = choice.delta ?? {};
    // vLLM, DeepSeek and llama.cpp send reasoning_content; OpenRouter and Ollama send reasoning, and OpenRouter
    // also reasoning_details (the same text, or only summaries or encrypted data): shown once, kept whole.
    const reasoningText = delta.reasoning_content ?? delta.reasoning;
    if (reasoningText) yield* thinking(reasoningText, delta.reasoning_content ? "reasoning_content" : "reasoning");
    if (Array.isArray(delta.reasoning_details) && delta.reasoning_details.length) {
      const shown = reasoningText ? "" : delta.reasoning_details.map((d) => (typeof d.text === "string" ? d.text : typeof d.summary === "string" ? d.summary : "")).join("");
      yield* thinking(shown, "reasoning_details");
      origin!.field = "reasoning_details";
      origin!.details = mergeDetails(origin!.details ?? [], delta.reasoning_details);
    }
    if (typeof delta.content === "string") yield* text(delta.content);
    else if (Array.isArray(delta.content)) {
      for (const part of delta.content) {
        if (part?.type === "thinking") yield* thinking(partsText(part.thinking), "content_parts");
        else if (part?.type === "text" && typeof part.text === "string") yield* text(part.text);
      }
    }
    // OpenAI's structured refusal: what the model said is the answer, and the turn ends as a refusal.
    if (typeof delta.refusal === "string" && delta.refusal) {
      refused = true;
      yield* text(delta.refusal);
    }
    if (delta.tool_calls?.length) yield* closeThinking();
    for (const [position, part] of (delta.tool_calls ?? []).entries()) {
      const index = part.index ?? position;
      let call = calls[index];
      if (!call) {
        // Calls arrive one after another: a new index means the earlier ones are complete and may start.
        for (const earlier of calls) if (earlier) yield* finish(earlier);
        call = calls[index] = { id: part.id || `call_${idBase}_${index}`, name: "", args: "", started: false, done: false, objectArgs: false };
      }
      if (call.done) continue;
      if (part.function?.name) call.name += part.function.name;
      if (part.id && !call.started) call.id = part.id;
      if (!call.started && call.name) {
        call.started = true;
        yield { type: "tool_call_start", id: call.id, name: call.name, index: blockCount++ };
      }
      const args = part.function?.arguments;
      if (args && typeof args === "object") {
        call.args = JSON.stringify(args);
        call.objectArgs = true;
        outputChars += call.args.length;
      } else if (typeof args === "string" && args && !call.objectArgs) {
        call.args += args;
        outputChars += args.length;
      } else continue;
      if (call.started) yield toolInputDelta(call.id, call.args);
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (signal.aborted) return;
  if (!started) throw new ProviderFailure({ kind: "server", retryable: true, message: "The model server answered the streaming request with an empty stream (no chunks)." });
  yield* closeThinking();
  // The stream ended normally ([DONE], or a server that closes without it): every pending call completes now.
  for (const call of calls) if (call) yield* finish(call);
  const hasToolCalls = calls.some(Boolean);
  yield {
    type: "usage",
    usage: usage
      ? {
          // A server that reports more cached tokens than prompt tokens must not make the count negative.
          input: Math.max(0, (usage.prompt_tokens ?? 0) - (usage.prompt_tokens_details?.cached_tokens ?? 0)),
          output: usage.completion_tokens ?? 0,
          cacheRead: usage.prompt_tokens_details?.cached_tokens ?? 0,
          cacheWrite: 0,
          source: "api",
        }
      : { input: estimateTokens(JSON.stringify(body.messages)), output: Math.ceil(outputChars / 4), cacheRead: 0, cacheWrite: 0, source: "estimate" },
  };
  yield { type: "stop", reason: refused && !hasToolCalls ? "refusal" : mapFinishReason(finishReason, hasToolCalls), complete: true };
}

/** Mistral's thinking content: a string, or a list of text parts. */
function partsText(value: unknown): string {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) return "";
  return value.map((p: ContentPart) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "")).join("");
}

/** Streamed reasoning_details arrive in pieces: pieces of one entry (same index and type) are joined. */
function mergeDetails(into: ReasoningDetail[], pieces: readonly ReasoningDetail[]): ReasoningDetail[] {
  for (const piece of pieces) {
    if (!piece || typeof piece !== "object") continue;
    const same = into.find((d) => d.type === piece.type && (d.index ?? 0) === (piece.index ?? 0));
    if (!same) {
      into.push({ ...piece });
      continue;
    }
    for (const key of ["text", "summary", "data"] as const) if (typeof piece[key] === "string") same[key] = (same[key] ?? "") + piece[key];
    for (const [key, value] of Object.entries(piece)) if (!["text", "summary", "data", "index", "type"].includes(key) && value != null) same[key] = value;
  }
  return into;
}

/**
 * The chunks of a 200 response: an event stream as the SDK reads it; a complete chat completion (a server or proxy
 * that ignored `stream: true`) as one chunk holding the whole message; anything else is an error saying what arrived.
 */
async function chunksOf(stream: AsyncIterable<Chunk>, response: Response, signal: AbortSignal, client: OpenAIClient): Promise<AsyncIterable<Chunk> | Iterable<Chunk>> {
  const contentType = response.headers.get("content-type") ?? "";
  if (!contentType || /event-stream/i.test(contentType)) return stream;
  const raw = await response.text();
  const whole = parseJsonObject(raw);
  if (whole && Array.isArray(whole.choices)) return [completionAsChunk(whole)];
  if (whole?.error) throw new (await import("openai")).APIError(undefined, whole.error as object, undefined, response.headers);
  if (/^(data|event):/m.test(raw)) {
    // An event stream under another content type (text/plain).
    const { Stream } = await import("openai/streaming");
    const controller = new AbortController();
    signal.addEventListener("abort", () => controller.abort(), { once: true });
    return Stream.fromSSEResponse<Chunk>(new Response(raw, { headers: { "content-type": "text/event-stream" } }), controller, client);
  }
  throw new ProviderFailure({ kind: "bad_request", retryable: false, message: unexpectedBody(response.status, contentType, raw, "a chat completion") });
}

/** A non-streamed completion, as the single chunk a stream of it would add up to. */
function completionAsChunk(completion: Record<string, unknown>): Chunk {
  const choices = completion.choices as Array<{ message?: Record<string, unknown>; finish_reason?: string | null }>;
  const first = choices[0];
  const message = first?.message ?? {};
  const toolCalls = Array.isArray(message.tool_calls) ? (message.tool_calls as ChunkToolCall[]).map((call, index) => ({ index, ...call })) : undefined;
  return {
    ...(typeof completion.id === "string" ? { id: completion.id } : {}),
    ...(typeof completion.model === "string" ? { model: completion.model } : {}),
    usage: (completion.usage as ChunkUsage | undefined) ?? (completion.x_groq as Chunk["x_groq"])?.usage ?? null,
    choices: first ? [{ delta: { ...(message as Delta), tool_calls: toolCalls ?? null }, finish_reason: first.finish_reason ?? null }] : [],
  };
}
/** `stop` or no finish_reason with tool calls present still means the model wants its tools run. */
function mapFinishReason(reason: string | null | undefined, hasToolCalls: boolean): StopReason {
  if (hasToolCalls && (reason === "tool_calls" || reason === "function_call" || reason === "stop" || !reason)) return "tool_use";
  switch (reason) {
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    default:
      return "end_turn";
  }
}
