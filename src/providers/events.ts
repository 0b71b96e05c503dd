/**
 * The one event stream every provider yields, whatever its wire format, and the request a provider takes.
 * Messages stay in core's neutral shapes (core/messages.ts); each provider translates at its edge.
 */
import type { AssistantContentBlock, AssistantMessage, Message, TextBlock, ToolResultBlockParam } from "../core/messages.js";
import type { ToolDefinition } from "../core/apiSchema.js";
import type { WebSearchResults } from "../core/Tool.js";
import { parsePartialJson } from "./partialJson.js";

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | "aborted" | "error";

export type ProviderErrorKind =
  | "rate_limit"
  | "overloaded"
  | "server"
  | "connection"
  | "stall"
  | "auth"
  | "bad_request"
  | "aborted"
  | "unknown";

export interface ProviderError {
  kind: ProviderErrorKind;
  /** HTTP status, when the server answered with one. */
  status?: number;
  retryable: boolean;
  message: string;
  /** How long the server asked to wait before another request (retry-after), when it said. */
  retryAfterMs?: number;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** "api" when the server reported it, "estimate" when counted from characters. */
  source: "api" | "estimate";
  /**
   * Tokens of the prompt as sent, when the billed input is more than the conversation: results of server-side
   * tools (web search) count as input but are not kept in the history. Context-size decisions use this.
   */
  context?: number;
}

export type ProviderEvent =
  | { type: "message_start"; id?: string; model: string }
  | { type: "text_delta"; index: number; text: string }
  | { type: "thinking_delta"; index: number; thinking: string }
  | { type: "thinking_signature"; index: number; signature: string }
  /** A whole redacted thinking block: opaque, sent back unchanged. */
  | { type: "redacted_thinking"; index: number; data: string }
  | { type: "tool_call_start"; id: string; name: string; index: number }
  /** `partialJson` is everything so far; `partial` a best-effort parse of it for the UI, computed on first read. */
  | { type: "tool_input_delta"; id: string; partialJson: string; readonly partial: unknown }
  | { type: "tool_call_complete"; id: string; name: string; input: Record<string, unknown> }
  /** The arguments did not parse: the caller answers this call with an is_error tool_result. */
  | { type: "tool_call_error"; id: string; name: string; raw: string; message: string }
  /** Totals for this message so far (each usage event supersedes the previous one). */
  | { type: "usage"; usage: Usage }
  /** Attempt `attempt` of `attempts` failed; the next starts after `delayMs`. */
  | { type: "retry"; attempt: number; attempts: number; delayMs: number; reason: string; error: ProviderError }
  | { type: "error"; error: ProviderError }
  /** Always the last event. `complete` is false when the message was cut short (abort or error). */
  | { type: "stop"; reason: StopReason; complete: boolean };

export type { ToolDefinition };

export type ToolChoice = { type: "auto" } | { type: "any" } | { type: "none" } | { type: "tool"; name: string };

export interface ProviderRequest {
  model: string;
  system?: string | TextBlock[];
  messages: readonly Message[];
  tools?: readonly ToolDefinition[];
  /** Deferred tools, announced by name only until ToolSearch loads them. */
  deferredToolNames?: readonly string[];
  toolChoice?: ToolChoice;
  maxTokens?: number;
  /** Extended thinking with this token budget (Anthropic); ignored where the API has no such switch. */
  thinking?: { budgetTokens: number };
}

export interface Provider {
  readonly name: ProviderName;
  readonly model: string;
  readonly baseURL?: string;
  /** Never throws past the iterator: failures become an `error` event, and the last event is always `stop`. */
  stream(request: ProviderRequest, signal?: AbortSignal): AsyncIterable<ProviderEvent>;
  /** The API's own server-side web search, for providers that have one (Anthropic). Rejects on failure. */
  webSearch?(request: WebSearchRequest, signal?: AbortSignal): Promise<WebSearchResults>;
}

/** One server-side web search: the model searches (up to `maxUses` times) and summarizes with citations. */
export interface WebSearchRequest {
  model: string;
  query: string;
  allowedDomains?: string[];
  blockedDomains?: string[];
  maxUses?: number;
  maxTokens?: number;
}

/**
 * `openai` is chat completions (any OpenAI-compatible server); `openai-responses` is OpenAI's Responses API;
 * bedrock and vertex are Claude on Amazon Bedrock and Google Vertex AI: Anthropic's Messages API behind each
 * platform's SDK.
 */
export type ProviderName = "anthropic" | "openai" | "openai-responses" | "bedrock" | "vertex";

/**
 * A thinking block that came from a chat-completions server carries, as its signature, this prefix and JSON
 * saying which field the reasoning came in (and OpenRouter's details verbatim), so it can be sent back as it came.
 * Anthropic signatures never start with it.
 */
export const CHAT_REASONING_MARK = "toolgate-chat-reasoning:";

export function toolInputDelta(id: string, partialJson: string): Extract<ProviderEvent, { type: "tool_input_delta" }> {
  let parsed: { value: unknown } | undefined;
  return {
    type: "tool_input_delta",
    id,
    partialJson,
    // Lazy: parsing the prefix on every delta would be quadratic for a long input nobody renders.
    get partial() {
      parsed ??= { value: parsePartialJson(partialJson) };
      return parsed.value;
    },
  };
}

/** Parse a tool call's complete argument text: "" is `{}`, anything but a JSON object is an error. */
export function parseToolArguments(raw: string): { ok: true; input: Record<string, unknown> } | { ok: false; message: string } {
  if (raw.trim() === "") return { ok: true, input: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return { ok: false, message: `The tool call's arguments are not valid JSON (${(err as Error).message}). Send the call again with a complete JSON object.` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, message: "The tool call's arguments must be a JSON object. Send the call again with a JSON object." };
  }
  return { ok: true, input: value as Record<string, unknown> };
}

/** The is_error tool_result that answers a tool call whose arguments did not parse, so the model can resend it. */
export function toolCallErrorResult(event: Extract<ProviderEvent, { type: "tool_call_error" }>): ToolResultBlockParam {
  const raw = event.raw.length > 2000 ? `${event.raw.slice(0, 2000)}… (${event.raw.length} characters)` : event.raw;
  return { type: "tool_result", tool_use_id: event.id, is_error: true, content: `${event.message}\nThe arguments received were: ${raw || "(nothing)"}` };
}

/**
 * Builds the assistant message from events as they arrive. Thinking blocks keep their signature (and redacted
 * ones their data) verbatim, as the API requires them back; a tool call that never completed is left out so
 * no tool_use is sent without a result. A tool call whose arguments failed to parse is kept with `{}` input:
 * the caller answers it with an is_error tool_result.
 */
export class MessageAssembler {
  id: string | undefined;
  model: string | undefined;
  usage: Usage | undefined;
  stop: { reason: StopReason; complete: boolean } | undefined;
  readonly errors: ProviderError[] = [];
  readonly toolErrors: Array<Extract<ProviderEvent, { type: "tool_call_error" }>> = [];
  private blocks: Array<{ key: string; block: AssistantContentBlock | undefined }> = [];

  push(event: ProviderEvent): void {
    switch (event.type) {
      case "message_start":
        this.id = event.id;
        this.model = event.model;
        break;
      case "text_delta": {
        const block = this.open(`text:${event.index}`, () => ({ type: "text", text: "" }));
        block.text = (block.text as string) + event.text;
        break;
      }
      case "thinking_delta": {
        const block = this.open(`thinking:${event.index}`, () => ({ type: "thinking", thinking: "", signature: "" }));
        block.thinking = (block.thinking as string) + event.thinking;
        break;
      }
      case "thinking_signature": {
        const block = this.open(`thinking:${event.index}`, () => ({ type: "thinking", thinking: "", signature: "" }));
        block.signature = (block.signature as string) + event.signature;
        break;
      }
      case "redacted_thinking":
        this.blocks.push({ key: `redacted:${event.index}`, block: { type: "redacted_thinking", data: event.data } });
        break;
      case "tool_call_start":
        this.blocks.push({ key: `tool:${event.id}`, block: undefined });
        break;
      case "tool_call_complete":
      case "tool_call_error": {
        const input = event.type === "tool_call_complete" ? event.input : {};
        if (event.type === "tool_call_error") this.toolErrors.push(event);
        const slot = this.blocks.find((b) => b.key === `tool:${event.id}`);
        const block = { type: "tool_use" as const, id: event.id, name: event.name, input };
        if (slot) slot.block = block;
        else this.blocks.push({ key: `tool:${event.id}`, block });
        break;
      }
      case "usage":
        this.usage = event.usage;
        break;
      case "error":
        this.errors.push(event.error);
        break;
      case "stop":
        this.stop = { reason: event.reason, complete: event.complete };
        break;
      case "retry":
      case "tool_input_delta":
        break;
    }
  }

  message(): AssistantMessage {
    const content = this.blocks.flatMap((b) => (b.block ? [b.block] : []));
    return { role: "assistant", ...(this.id ? { id: this.id } : {}), content };
  }

  private open(key: string, make: () => { type: string; [k: string]: unknown }): { type: string; [k: string]: unknown } {
    const last = this.blocks[this.blocks.length - 1];
    if (last?.key === key && last.block) return last.block as { type: string; [k: string]: unknown };
    const block = make();
    this.blocks.push({ key, block });
    return block;
  }
}

export interface AssembledMessage {
  message: AssistantMessage;
  stop: { reason: StopReason; complete: boolean };
  usage?: Usage;
  errors: ProviderError[];
  toolErrors: Array<Extract<ProviderEvent, { type: "tool_call_error" }>>;
}

/** Drain a provider stream into the final assistant message and how the stream ended. */
export async function assembleMessage(events: AsyncIterable<ProviderEvent> | Iterable<ProviderEvent>): Promise<AssembledMessage> {
  const assembler = new MessageAssembler();
  for await (const event of events) assembler.push(event);
  return {
    message: assembler.message(),
    // A stream that ended without its stop event was cut short.
    stop: assembler.stop ?? { reason: "error", complete: false },
    ...(assembler.usage ? { usage: assembler.usage } : {}),
    errors: assembler.errors,
    toolErrors: assembler.toolErrors,
  };
}
