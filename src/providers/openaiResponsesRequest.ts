/**
 * A neutral request as an OpenAI Responses API body: `instructions`, `input` items, `tools`. Nothing is stored on
 * OpenAI's side (`store: false`), so every turn sends the whole conversation, reasoning items included: they come
 * back in thinking blocks whose signature carries the item (see REASONING_SIGNATURE_PREFIX).
 */
import type { DocumentBlock, ImageBlock, Message, ToolResultBlockParam, ToolResultContentBlock } from "../core/messages.js";
import type { ProviderRequest, ToolChoice, ToolDefinition } from "./events.js";
import { deferredToolsNote, openAIToolChoice, qualifiesForStrict } from "./toolSchemas.js";
import { APPLY_PATCH_LARK_GRAMMAR } from "./applyPatchGrammar.js";

/**
 * A thinking block made from a Responses reasoning item has this prefix and then the item as JSON in its
 * `signature`: the neutral block keeps what the API must get back verbatim (id, summary, encrypted_content).
 * Other providers never produce it, so a thinking block from anywhere else is recognised and left out.
 */
export const REASONING_SIGNATURE_PREFIX = "openai-responses-reasoning:";

export interface ReasoningItem {
  type: "reasoning";
  id: string;
  summary: Array<{ type: string; text: string }>;
  encrypted_content?: string | null;
  [key: string]: unknown;
}

export function reasoningSignature(item: ReasoningItem): string {
  return REASONING_SIGNATURE_PREFIX + JSON.stringify(item);
}

/** The reasoning item a thinking block carries, or undefined for one that is not ours or cannot be sent back. */
export function reasoningItemFromSignature(signature: unknown): ReasoningItem | undefined {
  if (typeof signature !== "string" || !signature.startsWith(REASONING_SIGNATURE_PREFIX)) return undefined;
  try {
    const item = JSON.parse(signature.slice(REASONING_SIGNATURE_PREFIX.length)) as ReasoningItem;
    // Without its encrypted content a reasoning item refers to stored state, which store:false never keeps.
    return item?.type === "reasoning" && typeof item.id === "string" && item.encrypted_content ? item : undefined;
  } catch {
    return undefined;
  }
}

/** Reasoning models take `reasoning` and return encrypted reasoning items; the others refuse the parameter. */
export function isReasoningModel(model: string): boolean {
  return /^(?:openai\/)?(?:o\d|gpt-5(?![.\d]*-chat)|codex)|codex/i.test(model);
}

/**
 * Models trained on the freeform apply_patch tool (GPT-5 and the codex models): to them a local apply_patch is
 * declared as a custom tool with the patch grammar, and its calls arrive as raw patch text.
 */
export function expectsFreeformApplyPatch(model: string): boolean {
  return /^(?:openai\/)?gpt-5|codex/i.test(model);
}

/** Models OpenAI serves only over the Responses API: the codex models and the `-pro` reasoning models. */
export function onlyOnResponsesAPI(model: string): boolean {
  return /codex|^(?:openai\/)?(?:o\d+|gpt-5(?:\.\d+)?)-pro(?:-|$)/i.test(model);
}

export const APPLY_PATCH_TOOL = "apply_patch";

type Item = Record<string, unknown>;

/**
 * The Responses API body. When apply_patch goes as a custom tool (`patchKey`: the input property that holds the
 * patch), the history is written to match, its calls as custom_tool_call items, so a request agrees with itself.
 */
export function buildResponsesRequest(request: ProviderRequest): Record<string, unknown> {
  const patchKey = freeformPatchKey(request);
  const tools = (request.tools ?? []).map((def) => (patchKey && def.name === APPLY_PATCH_TOOL ? customPatchTool(def) : functionTool(def)));
  const instructions = [typeof request.system === "string" ? request.system : (request.system ?? []).map((b) => b.text).join("\n\n"), deferredToolsNote(request.deferredToolNames)]
    .filter(Boolean)
    .join("\n\n");
  const reasoning = isReasoningModel(request.model);
  const effort = request.thinking ? effortFor(request.thinking.budgetTokens) : undefined;
  return {
    model: request.model,
    ...(instructions ? { instructions } : {}),
    input: toInputItems(request.messages, patchKey),
    stream: true,
    store: false,
    ...(reasoning ? { reasoning: { ...(effort ? { effort } : {}), summary: "auto" }, include: ["reasoning.encrypted_content"] } : {}),
    ...(request.maxTokens ? { max_output_tokens: request.maxTokens } : {}),
    ...(tools.length ? { tools, parallel_tool_calls: true } : {}),
    ...(request.toolChoice && tools.length ? { tool_choice: toolChoiceFor(request.toolChoice, patchKey) } : {}),
  };
}

/**
 * Whether this request declares apply_patch as a custom tool: the model expects it and the local tool takes the
 * patch in one string property, whose name is returned (`input` for toolgate's own tool).
 */
export function freeformPatchKey(request: Pick<ProviderRequest, "model" | "tools">): string | undefined {
  const tool = expectsFreeformApplyPatch(request.model) ? request.tools?.find((d) => d.name === APPLY_PATCH_TOOL) : undefined;
  return tool && patchInputKey(tool);
}

/** The one string property of the local apply_patch schema that takes the patch (`input` for toolgate's own). */
function patchInputKey(def: ToolDefinition): string | undefined {
  const properties = (def.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const keys = Object.keys(properties);
  return keys.length === 1 && properties[keys[0]]?.type === "string" ? keys[0] : undefined;
}

/** The Responses API takes `strict: true` when it is left out, so a schema that does not qualify says false. */
function functionTool(def: ToolDefinition): Item {
  return { type: "function", name: def.name, description: def.description, parameters: def.inputSchema, strict: qualifiesForStrict(def.inputSchema) };
}

function customPatchTool(def: ToolDefinition): Item {
  return { type: "custom", name: def.name, description: def.description, format: { type: "grammar", syntax: "lark", definition: APPLY_PATCH_LARK_GRAMMAR } };
}

/** A thinking budget in tokens as the API's effort levels. */
function effortFor(budgetTokens: number): "low" | "medium" | "high" {
  return budgetTokens < 4096 ? "low" : budgetTokens < 16384 ? "medium" : "high";
}

/** A named choice says which kind of tool it is: the patch tool sent as a custom tool is one. */
function toolChoiceFor(choice: ToolChoice, patchKey: string | undefined): unknown {
  return openAIToolChoice(choice, (name) => ({ type: patchKey && name === APPLY_PATCH_TOOL ? "custom" : "function", name }));
}

function toInputItems(messages: readonly Message[], patchKey: string | undefined): Item[] {
  const items: Item[] = [];
  // Results answer calls by id; a call sent as custom_tool_call is answered with custom_tool_call_output.
  const customCalls = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") items.push(...assistantItems(message.content, patchKey, customCalls));
    else items.push(...userItems(message.content, customCalls));
  }
  return items;
}

function assistantItems(content: Message["content"], patchKey: string | undefined, customCalls: Set<string>): Item[] {
  if (typeof content === "string") return content ? [outputMessage(content)] : [];
  const items: Item[] = [];
  let text = "";
  const flushText = () => {
    if (text) items.push(outputMessage(text));
    text = "";
  };
  for (const block of content as Array<Record<string, unknown>>) {
    if (block.type === "text") {
      text += String(block.text);
      continue;
    }
    if (block.type === "thinking") {
      // Thinking that came from elsewhere (another provider, a resumed session) has no item to send back.
      const item = reasoningItemFromSignature(block.signature);
      if (item) {
        flushText();
        items.push(item);
      }
      continue;
    }
    if (block.type !== "tool_use") continue;
    flushText();
    const id = String(block.id);
    const input = (block.input ?? {}) as Record<string, unknown>;
    if (patchKey && block.name === APPLY_PATCH_TOOL && typeof input[patchKey] === "string") {
      customCalls.add(id);
      items.push({ type: "custom_tool_call", call_id: id, name: APPLY_PATCH_TOOL, input: input[patchKey] });
    } else {
      items.push({ type: "function_call", call_id: id, name: String(block.name), arguments: JSON.stringify(input) });
    }
  }
  flushText();
  return items;
}

function outputMessage(text: string): Item {
  return { type: "message", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] };
}

/** Tool results first, in order, as the calls' outputs; then what the person wrote, as one user message. */
function userItems(content: Message["content"], customCalls: ReadonlySet<string>): Item[] {
  if (typeof content === "string") return [{ role: "user", content: [{ type: "input_text", text: content }] }];
  const items: Item[] = [];
  const parts: Item[] = [];
  for (const block of content as Array<Record<string, unknown>>) {
    if (block.type === "tool_result") {
      const result = block as unknown as ToolResultBlockParam;
      items.push({ type: customCalls.has(result.tool_use_id) ? "custom_tool_call_output" : "function_call_output", call_id: result.tool_use_id, output: toolOutput(result) });
    } else if (block.type === "text" || block.type === "image" || block.type === "document") {
      parts.push(inputPart(block as unknown as ToolResultContentBlock));
    }
  }
  if (parts.length) items.push({ role: "user", content: parts });
  return items;
}

/** Text alone as a string; with images or files, the list of parts (the Responses API takes them in outputs). */
function toolOutput(result: ToolResultBlockParam): string | Item[] {
  const blocks: ToolResultContentBlock[] = typeof result.content === "string" ? [{ type: "text", text: result.content }] : result.content;
  const parts = blocks.map(inputPart);
  if (result.is_error) {
    const first = parts[0];
    if (first?.type === "input_text") parts[0] = { ...first, text: `Error: ${String(first.text)}` };
    else parts.unshift({ type: "input_text", text: "Error:" });
  }
  if (parts.every((p) => p.type === "input_text")) return parts.map((p) => String(p.text)).join("\n");
  return parts;
}

function inputPart(block: ToolResultContentBlock): Item {
  switch (block.type) {
    case "text":
      return { type: "input_text", text: block.text };
    case "tool_reference":
      return { type: "input_text", text: `Tool ${block.tool_name} is now available.` };
    case "image":
      return imagePart(block);
    case "document":
      return documentPart(block);
  }
}

function imagePart(block: ImageBlock): Item {
  return { type: "input_image", image_url: `data:${block.source.media_type};base64,${block.source.data}`, detail: "auto" };
}

function documentPart(block: DocumentBlock): Item {
  if (block.source.type === "text") return { type: "input_text", text: block.title ? `${block.title}:\n${block.source.data}` : block.source.data };
  return { type: "input_file", filename: block.title ?? "document.pdf", file_data: `data:${block.source.media_type};base64,${block.source.data}` };
}
