/**
 * The Claude Agent SDK's `initialize` control request: what it carries (hook callbacks, in-process MCP
 * servers, agents, the system prompt, a JSON schema, MCP servers and settings sent this way) turned into
 * what a toolgate session is built from, and the answer the SDK expects back.
 */
import type { CallbackHook } from "../hooks/index.js";
import { HOOK_EVENTS } from "../settings/types.js";
import type { ScopedMcpServerConfig } from "../mcp/client/config.js";
import { ControlChannelTransport } from "../mcp/client/controlTransport.js";
import { parseInlineAgents, type AgentTypeDefinition } from "./agentTypes.js";
import type { ControlChannel } from "./controlChannel.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export interface SdkInitialize {
  requestId: string;
  hookCallbacks: CallbackHook[];
  /** Whether the request carried hooks (the answer then says they were applied). */
  hadHooks: boolean;
  sdkMcpServers: ScopedMcpServerConfig[];
  /** `mcpServers` as `--mcp-config` JSON text; undefined when none were sent. */
  mcpConfigText?: string;
  /** Replaces toolgate's base prompt: `""` is the SDK's default, a minimal prompt. */
  systemPrompt?: string;
  appendSystemPrompt?: string;
  agents: AgentTypeDefinition[];
  jsonSchema?: Record<string, unknown>;
  /** Settings sent in the request (`settingsDelivery: 'initialize'`), as JSON text. */
  settingsText?: string;
  managedSettingsText?: string;
  disallowedTools: string[];
  additionalDirectories: string[];
  /** Parts of the request that were not usable, for the user. */
  problems: string[];
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);

/** The prompt SDK users get when they set no system prompt (the SDK sends `[""]` for it). */
export const SDK_MINIMAL_SYSTEM_PROMPT = "You are an agent built on the Claude Agent SDK, running in toolgate. Use the tools you are given to do the task, and answer concisely.";

/**
 * Reads an initialize request. `channel` carries what the SDK answers later: hook callbacks and the JSON-RPC
 * of its in-process MCP servers.
 */
export function readSdkInitialize(requestId: string, request: Record<string, unknown>, channel: ControlChannel): SdkInitialize {
  const problems: string[] = [];
  const hookCallbacks: CallbackHook[] = [];
  const hooks = isObject(request.hooks) ? request.hooks : {};
  for (const [event, matchers] of Object.entries(hooks)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      problems.push(`initialize: hooks.${event}: toolgate has no such hook event; its callbacks will not be called`);
      continue;
    }
    for (const entry of Array.isArray(matchers) ? matchers : []) {
      if (!isObject(entry)) continue;
      for (const callbackId of strings(entry.hookCallbackIds)) {
        hookCallbacks.push({
          event: event as CallbackHook["event"],
          ...(typeof entry.matcher === "string" ? { matcher: entry.matcher } : {}),
          label: `SDK callback ${callbackId}`,
          ...(typeof entry.timeout === "number" && entry.timeout > 0 ? { timeoutSeconds: entry.timeout } : {}),
          blockOnFailure: entry.onFailure === "block",
          invoke: (input, toolUseID, signal) => channel.request("hook_callback", { callback_id: callbackId, input, ...(toolUseID ? { tool_use_id: toolUseID } : {}) }, { signal }),
        });
      }
    }
  }

  const sdkMcpServers: ScopedMcpServerConfig[] = strings(request.sdkMcpServers).map((name) => ({
    name,
    source: "the Agent SDK (in-process server)",
    config: {
      type: "sdk",
      transport: () =>
        new ControlChannelTransport(async (message) => {
          const answer = await channel.request("mcp_message", { server_name: name, message });
          return isObject(answer.mcp_response) ? (answer.mcp_response as unknown as JSONRPCMessage) : undefined;
        }),
    },
  }));

  const inline = parseInlineAgents(isObject(request.agents) ? request.agents : {}, "the Agent SDK (initialize)");
  const agents = inline.agents;
  problems.push(...inline.problems.map((p) => `initialize: ${p}; it was ignored`));

  const systemPrompt = Array.isArray(request.systemPrompt) ? strings(request.systemPrompt).join("\n\n") : typeof request.systemPrompt === "string" ? request.systemPrompt : undefined;
  const asJson = (value: unknown) => (isObject(value) ? JSON.stringify(value) : undefined);
  return {
    requestId,
    hookCallbacks,
    hadHooks: Object.keys(hooks).length > 0,
    sdkMcpServers,
    ...(isObject(request.mcpServers) ? { mcpConfigText: JSON.stringify({ mcpServers: request.mcpServers }) } : {}),
    ...(systemPrompt !== undefined ? { systemPrompt: systemPrompt.trim() === "" ? SDK_MINIMAL_SYSTEM_PROMPT : systemPrompt } : {}),
    ...(typeof request.appendSystemPrompt === "string" && request.appendSystemPrompt ? { appendSystemPrompt: request.appendSystemPrompt } : {}),
    agents,
    ...(isObject(request.jsonSchema) ? { jsonSchema: request.jsonSchema } : {}),
    ...(asJson(request.settings) ? { settingsText: asJson(request.settings) } : typeof request.settings === "string" ? { settingsText: request.settings } : {}),
    ...(asJson(request.managedSettings) ? { managedSettingsText: asJson(request.managedSettings) } : {}),
    disallowedTools: strings(request.disallowedTools),
    additionalDirectories: strings(request.additionalDirectories),
    problems,
  };
}
