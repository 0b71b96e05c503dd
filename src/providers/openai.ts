/**
 * OpenAI-compatible chat completions (OpenAI, Ollama, vLLM, LM Studio, OpenRouter, llama.cpp server) over the
 * SDK's raw stream. Tool calls are stitched by `index` and the servers' known deviations are tolerated: see
 * docs/providers.md. The SDK is imported on first use.
 */
import type { DocumentBlock, ImageBlock, Message, ToolResultBlockParam, ToolResultContentBlock } from "../core/messages.js";
import { parseToolArguments, toolInputDelta, type Provider, type ProviderEvent, type ProviderRequest, type StopReason, type ToolChoice } from "./events.js";
import { classifySdkError, locateServer, withRetry, type RetryOptions } from "./retry.js";
import { deferredToolsNote, renderOpenAITools } from "./toolSchemas.js";
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

type OpenAIClient = InstanceType<typeof import("openai").default>;

export function createOpenAIProvider(options: OpenAIProviderOptions): Provider {
  let client: Promise<OpenAIClient> | undefined;
  const getClient = () =>
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
  // Reasoning models take max_completion_tokens and refuse max_tokens; compatible servers know max_tokens.
  const limitKey = /^(o\d|gpt-5)/.test(request.model) ? "max_completion_tokens" : "max_tokens";
  return {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(request.maxTokens ? { [limitKey]: request.maxTokens } : {}),
    ...(tools.length ? { tools } : {}),
    ...(request.toolChoice && tools.length ? { tool_choice: toolChoiceForOpenAI(request.toolChoice) } : {}),
  };
}

function toolChoiceForOpenAI(choice: ToolChoice): unknown {
  switch (choice.type) {
    case "auto":
    case "none":
      return choice.type;
    case "any":
      return "required";
    case "tool":
      return { type: "function", function: { name: choice.name } };
  }
}

/** One core message → chat messages: tool results become `role: "tool"` messages, in order, before any text. */
function toChatMessages(message: Message): ChatMessage[] {
  if (typeof message.content === "string") return [{ role: message.role, content: message.content }];
  const blocks = message.content as Array<Record<string, unknown>>;
  if (message.role === "assistant") {
    const text = blocks.flatMap((b) => (b.type === "text" ? [String(b.text)] : [])).join("");
    // Thinking blocks are not sent back: chat completions has no field for them (DeepSeek rejects reasoning_content).
    const toolCalls = blocks
      .filter((b) => b.type === "tool_use")
      .map((b) => ({ id: String(b.id), type: "function", function: { name: String(b.name), arguments: JSON.stringify(b.input ?? {}) } }));
    // content may be null only beside tool_calls; some servers reject a null content on its own.
    return [{ role: "assistant", content: text || (toolCalls.length ? null : ""), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }];
  }
  const out: ChatMessage[] = [];
  const texts: string[] = [];
  // A prompt with images goes as content parts (text and image_url); text alone stays one string.
  const parts: Array<Record<string, unknown>> = [];
  for (const block of blocks) {
    if (block.type === "tool_result") {
      const result = block as unknown as ToolResultBlockParam;
      out.push({ role: "tool", tool_call_id: result.tool_use_id, content: toolResultText(result) });
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
  if (parts.some((p) => p.type === "image_url")) out.push({ role: "user", content: parts });
  else if (texts.length) out.push({ role: "user", content: texts.join("\n\n") });
  return out;
}

/** Tool messages carry text only: images and binary documents become a note saying what was left out. */
function toolResultText(result: ToolResultBlockParam): string {
  const parts = typeof result.content === "string" ? [result.content] : result.content.map(contentText);
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

interface Chunk {
  id?: string;
  model?: string;
  choices?: Array<{ delta?: { content?: string | null; reasoning_content?: string | null; reasoning?: string | null; tool_calls?: ChunkToolCall[] | null }; finish_reason?: string | null }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } | null } | null;
}

async function* streamAttempt(getClient: () => Promise<OpenAIClient>, body: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
  const client = await getClient();
  const stream = await client.chat.completions.create(body as never, { signal });
  const calls: ToolCallState[] = [];
  let started = false;
  let finishReason: string | null | undefined;
  let usage: Chunk["usage"];
  let outputChars = 0;
  // Stable per message: a call without an id gets one from the completion id and its index.
  let idBase = "";
  let thinkingIndex: number | undefined;
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

  for await (const chunk of stream as unknown as AsyncIterable<Chunk>) {
    if (!started) {
      started = true;
      idBase = (chunk.id ?? `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`).replace(/[^A-Za-z0-9_-]/g, "_");
      yield { type: "message_start", ...(chunk.id ? { id: chunk.id } : {}), model: chunk.model ?? String(body.model) };
    }
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta ?? {};
    // vLLM, DeepSeek and llama.cpp send reasoning_content; OpenRouter and Ollama send reasoning.
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) {
      thinkingIndex ??= blockCount++;
      outputChars += reasoning.length;
      yield { type: "thinking_delta", index: thinkingIndex, thinking: reasoning };
    }
    if (delta.content) {
      textIndex ??= blockCount++;
      outputChars += delta.content.length;
      yield { type: "text_delta", index: textIndex, text: delta.content };
    }
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
  // The stream ended normally ([DONE], or a server that closes without it): every pending call completes now.
  for (const call of calls) if (call) yield* finish(call);
  const hasToolCalls = calls.some(Boolean);
  yield {
    type: "usage",
    usage: usage
      ? {
          input: (usage.prompt_tokens ?? 0) - (usage.prompt_tokens_details?.cached_tokens ?? 0),
          output: usage.completion_tokens ?? 0,
          cacheRead: usage.prompt_tokens_details?.cached_tokens ?? 0,
          cacheWrite: 0,
          source: "api",
        }
      : { input: estimateTokens(JSON.stringify(body.messages)), output: Math.ceil(outputChars / 4), cacheRead: 0, cacheWrite: 0, source: "estimate" },
  };
  yield { type: "stop", reason: mapFinishReason(finishReason, hasToolCalls), complete: true };
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
