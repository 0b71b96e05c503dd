/**
 * The model providers: one event stream (events.ts) over each API's wire format. Which provider, model, base
 * URL and key come from options (CLI flags), then the environment, then the `provider` settings section.
 */
import type { Provider, ProviderName } from "./events.js";
import { createAnthropicProvider } from "./anthropic.js";
import { createOpenAIProvider } from "./openai.js";
import { awsEnvCredentials, bedrockDefaultModel, bedrockServer, createBedrockProvider, resolveBedrockSetup, type BedrockSetup } from "./bedrock.js";
import { createVertexProvider, DEFAULT_VERTEX_MODEL, DEFAULT_VERTEX_SMALL_MODEL, resolveVertexSetup, vertexServer, type VertexSetup } from "./vertex.js";
import { envFlag, platformFromEnv } from "./platforms.js";
import { createOpenAIResponsesProvider } from "./openaiResponses.js";
import { onlyOnResponsesAPI } from "./openaiResponsesRequest.js";
import { retryOptionsFromEnv, type RetryOptions } from "./retry.js";
import { readProviderSettings } from "./settingsSection.js";

export * from "./events.js";
export { parsePartialJson } from "./partialJson.js";
export { createAnthropicProvider, buildAnthropicRequest, type AnthropicProviderOptions } from "./anthropic.js";
export { createOpenAIProvider, buildOpenAIRequest, type OpenAIProviderOptions } from "./openai.js";
export { createMessagesProvider, type MessagesClient, type MessagesProviderOptions } from "./anthropic.js";
export { createBedrockProvider, bedrockDefaultModel, bedrockEndpoint, describeBedrockCredentials, type BedrockProviderOptions, type BedrockSetup } from "./bedrock.js";
export { createVertexProvider, vertexEndpoint, describeVertexCredentials, type VertexProviderOptions, type VertexSetup } from "./vertex.js";
export { envFlag, platformFromEnv } from "./platforms.js";
export { createOpenAIResponsesProvider, type OpenAIResponsesProviderOptions } from "./openaiResponses.js";
export { buildResponsesRequest, REASONING_SIGNATURE_PREFIX, onlyOnResponsesAPI } from "./openaiResponsesRequest.js";
export { withRetry, ProviderFailure, classifySdkError, classifyStatus, parseRetryAfter, retryDelay, retryOptionsFromEnv, type RetryOptions, type Attempt } from "./retry.js";
export {
  lookupModel,
  getModelInfo,
  canonicalModelName,
  estimateTokens,
  countContextTokens,
  DEFAULT_MODEL_INFO,
  type ModelInfo,
  type ModelOverrides,
  type ModelInfoSource,
  type TokenCount,
} from "./models.js";
export { modelsSettingsSection, providerSettingsSection, readModelOverrides, readProviderSettings, type ProviderSettings } from "./settingsSection.js";
export {
  toolToAPISchema,
  toolDefinitionsForModel,
  renderAnthropicTools,
  renderOpenAITools,
  qualifiesForStrict,
  deferredToolsNote,
  type ToolAPISchema,
  type OpenAIToolSchema,
} from "./toolSchemas.js";

export const PROVIDER_NAMES: readonly ProviderName[] = ["anthropic", "openai", "openai-responses", "bedrock", "vertex"];

/** Bedrock's default follows the region's geography (bedrockDefaultModel); this is the one for US regions. */
export const DEFAULT_MODELS: Readonly<Record<ProviderName, string>> = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-4o",
  "openai-responses": "gpt-5",
  bedrock: bedrockDefaultModel("us-east-1"),
  vertex: DEFAULT_VERTEX_MODEL,
};

/**
 * A small fast model per provider for side questions; an OpenAI-compatible server may host one model only, so
 * its main one. On Bedrock also the main one, as Claude Code does: Haiku may not be enabled in the account.
 */
export const DEFAULT_SMALL_MODELS: Readonly<Record<ProviderName, string | undefined>> = {
  anthropic: "claude-haiku-4-5",
  openai: undefined,
  "openai-responses": undefined,
  bedrock: undefined,
  vertex: DEFAULT_VERTEX_SMALL_MODEL,
};

export interface ProviderSelection {
  provider?: ProviderName;
  model?: string;
  /** The small model (`TOOLGATE_SMALL_MODEL`, settings `provider.smallModel`). */
  smallModel?: string;
  baseURL?: string;
  apiKey?: string;
}

export type SettingSource = "option" | "env" | "settings" | "default";

export interface ResolvedProviderConfig {
  provider: ProviderName;
  model: string;
  smallModel: string;
  baseURL?: string;
  apiKey?: string;
  /** Where each value came from (for doctor); for the key, the variable's name; `api` why openai became openai-responses. */
  sources: { provider: SettingSource; model: SettingSource; baseURL?: SettingSource; apiKey?: string; api?: "settings" | "model" };
  /** Bedrock's region, Vertex AI's location and project, and whether to skip their authentication. */
  platform?: BedrockSetup | VertexSetup;
}

/** On Bedrock the key is a Bedrock API key; Vertex AI takes Google credentials only. */
const KEY_VARS: Record<ProviderName, string | undefined> = { anthropic: "ANTHROPIC_API_KEY", openai: "OPENAI_API_KEY", "openai-responses": "OPENAI_API_KEY", bedrock: "AWS_BEARER_TOKEN_BEDROCK", vertex: undefined };
const URL_VARS: Record<ProviderName, string> = { anthropic: "ANTHROPIC_BASE_URL", openai: "OPENAI_BASE_URL", "openai-responses": "OPENAI_BASE_URL", bedrock: "ANTHROPIC_BEDROCK_BASE_URL", vertex: "ANTHROPIC_VERTEX_BASE_URL" };
const DEFAULT_URLS: Partial<Record<ProviderName, string>> = { anthropic: "https://api.anthropic.com", openai: "https://api.openai.com/v1", "openai-responses": "https://api.openai.com/v1" };
const MODEL_VARS: Record<ProviderName, string> = { anthropic: "ANTHROPIC_MODEL", openai: "OPENAI_MODEL", "openai-responses": "OPENAI_MODEL", bedrock: "ANTHROPIC_MODEL", vertex: "ANTHROPIC_MODEL" };

/**
 * Options, then environment (`TOOLGATE_PROVIDER`, or Claude Code's `CLAUDE_CODE_USE_BEDROCK` / `_VERTEX`;
 * `TOOLGATE_MODEL` or the provider's `*_MODEL`, `*_BASE_URL`, `*_API_KEY`), then settings. Without a choice
 * anywhere, OpenAI is picked only when just OpenAI variables are set.
 */
export function resolveProviderConfig(
  options: ProviderSelection = {},
  env: NodeJS.ProcessEnv = process.env,
  settings: Readonly<Record<string, unknown>> = {},
): ResolvedProviderConfig {
  const fromSettings = readProviderSettings(settings);
  const envProvider = PROVIDER_NAMES.find((name) => name === env.TOOLGATE_PROVIDER) ?? platformFromEnv(env)?.provider;
  const onlyOpenAI = !env.ANTHROPIC_API_KEY && !env.ANTHROPIC_BASE_URL && Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
  const [chosen, providerSource]: [ProviderName, SettingSource] = options.provider
    ? [options.provider, "option"]
    : envProvider
      ? [envProvider, "env"]
      : fromSettings.name
        ? [fromSettings.name, "settings"]
        : onlyOpenAI
          ? ["openai", "env"]
          : ["anthropic", "default"];
  const pick = (option: string | undefined, envValue: string | undefined, setting: string | undefined): [string, SettingSource] | undefined =>
    option ? [option, "option"] : envValue ? [envValue, "env"] : setting ? [setting, "settings"] : undefined;
  const platform = chosen === "bedrock" ? resolveBedrockSetup(env, fromSettings) : chosen === "vertex" ? resolveVertexSetup(env, fromSettings) : undefined;
  const defaultModel = platform?.kind === "bedrock" ? bedrockDefaultModel(platform.region.value) : DEFAULT_MODELS[chosen];
  const [model, modelSource] = pick(options.model, env.TOOLGATE_MODEL || env[MODEL_VARS[chosen]], fromSettings.model) ?? [defaultModel, "default"];
  const baseURL = pick(options.baseURL, env[URL_VARS[chosen]], fromSettings.baseURL);
  const api = chosen === "openai" ? responsesAPIReason(fromSettings.api, model, baseURL?.[0]) : undefined;
  const provider: ProviderName = api ? "openai-responses" : chosen;
  const smallModel = pick(options.smallModel, env.TOOLGATE_SMALL_MODEL, fromSettings.smallModel)?.[0] ?? DEFAULT_SMALL_MODELS[provider] ?? model;
  const keyVar = KEY_VARS[provider];
  const apiKey = options.apiKey ? ["option", options.apiKey] : keyVar && env[keyVar] ? [keyVar, env[keyVar]!] : undefined;
  return {
    provider,
    model,
    smallModel,
    ...(baseURL ? { baseURL: baseURL[0] } : {}),
    ...(apiKey ? { apiKey: apiKey[1] } : {}),
    sources: { provider: providerSource, model: modelSource, ...(baseURL ? { baseURL: baseURL[1] } : {}), ...(apiKey ? { apiKey: apiKey[0] } : {}), ...(api ? { api } : {}) },
    ...(platform ? { platform } : {}),
  };
}

/**
 * Why the openai provider speaks the Responses API, if it does: settings `provider.api: "responses"`, or a model
 * OpenAI serves only there, on OpenAI's own server (a compatible server's codex-named model may be chat-only).
 */
function responsesAPIReason(api: "chat" | "responses" | undefined, model: string, baseURL: string | undefined): "settings" | "model" | undefined {
  if (api) return api === "responses" ? "settings" : undefined;
  const openAIServer = !baseURL || /^https:\/\/api\.openai\.com(?:\/|$)/.test(baseURL);
  return openAIServer && onlyOnResponsesAPI(model) ? "model" : undefined;
}

export interface CreateProviderOptions extends ProviderSelection {
  env?: NodeJS.ProcessEnv;
  settings?: Readonly<Record<string, unknown>>;
  retry?: RetryOptions;
}

/** A provider for the resolved selection. No network until the first `stream`, and no SDK loaded before it. */
export function createProvider(options: CreateProviderOptions = {}): Provider {
  const env = options.env ?? process.env;
  const config = resolveProviderConfig(options, env, options.settings);
  const retry = { ...retryOptionsFromEnv(env), ...options.retry };
  const baseURL = config.baseURL
    ? { url: config.baseURL, source: config.sources.baseURL === "env" ? URL_VARS[config.provider] : config.sources.baseURL === "option" ? "--base-url" : "settings provider.baseURL" }
    : undefined;
  const platform = config.platform;
  const server =
    platform?.kind === "bedrock"
      ? bedrockServer(platform, baseURL)
      : platform?.kind === "vertex"
        ? vertexServer(platform, baseURL)
        : baseURL
          ? `${baseURL.url} from ${baseURL.source}`
          : `${DEFAULT_URLS[config.provider]}, the default (${URL_VARS[config.provider]} changes it)`;
  // Claude Code's switch, for Bedrock accounts and models without prompt caching.
  const caching = envFlag(env.DISABLE_PROMPT_CACHING) ? { promptCaching: false } : {};
  const common = { model: config.model, retry, server, ...(config.baseURL ? { baseURL: config.baseURL } : {}), ...(config.apiKey ? { apiKey: config.apiKey } : {}) };
  if (platform?.kind === "bedrock") {
    const credentials = awsEnvCredentials(env);
    return createBedrockProvider({ ...common, ...caching, region: platform.region.value, skipAuth: platform.skipAuth, ...(config.apiKey ? { bearerToken: config.apiKey } : {}), ...(credentials ? { credentials } : {}) });
  }
  if (platform?.kind === "vertex") {
    return createVertexProvider({ ...common, ...caching, region: platform.region.value, skipAuth: platform.skipAuth, ...(platform.projectId ? { projectId: platform.projectId.value } : {}) });
  }
  if (config.provider === "openai-responses") return createOpenAIResponsesProvider(common);
  return config.provider === "openai" ? createOpenAIProvider(common) : createAnthropicProvider({ ...common, ...caching });
}
