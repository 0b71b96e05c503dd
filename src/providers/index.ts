/**
 * The model providers: one event stream (events.ts) over each API's wire format. Which provider, model, base
 * URL and key come from options (CLI flags), then the environment, then the `provider` settings section.
 */
import type { Provider, ProviderName } from "./events.js";
import { createAnthropicProvider } from "./anthropic.js";
import { createOpenAIProvider } from "./openai.js";
import { createOpenAIResponsesProvider } from "./openaiResponses.js";
import { onlyOnResponsesAPI } from "./openaiResponsesRequest.js";
import { retryOptionsFromEnv, type RetryOptions } from "./retry.js";
import { readProviderSettings } from "./settingsSection.js";

export * from "./events.js";
export { parsePartialJson } from "./partialJson.js";
export { createAnthropicProvider, buildAnthropicRequest, type AnthropicProviderOptions } from "./anthropic.js";
export { createOpenAIProvider, buildOpenAIRequest, type OpenAIProviderOptions } from "./openai.js";
export { createOpenAIResponsesProvider, type OpenAIResponsesProviderOptions } from "./openaiResponses.js";
export { buildResponsesRequest, REASONING_SIGNATURE_PREFIX, onlyOnResponsesAPI } from "./openaiResponsesRequest.js";
export { withRetry, ProviderFailure, classifySdkError, classifyStatus, parseRetryAfter, retryDelay, retryOptionsFromEnv, type RetryOptions, type Attempt } from "./retry.js";
export {
  lookupModel,
  getModelInfo,
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

export const PROVIDER_NAMES: readonly ProviderName[] = ["anthropic", "openai", "openai-responses"];

export const DEFAULT_MODELS: Readonly<Record<ProviderName, string>> = { anthropic: "claude-sonnet-4-5", openai: "gpt-4o", "openai-responses": "gpt-5" };

/** A small fast model per provider for side questions; an OpenAI-compatible server may host one model only, so its main one. */
export const DEFAULT_SMALL_MODELS: Readonly<Record<ProviderName, string | undefined>> = { anthropic: "claude-haiku-4-5", openai: undefined, "openai-responses": undefined };

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
}

const KEY_VARS: Record<ProviderName, string> = { anthropic: "ANTHROPIC_API_KEY", openai: "OPENAI_API_KEY", "openai-responses": "OPENAI_API_KEY" };
const URL_VARS: Record<ProviderName, string> = { anthropic: "ANTHROPIC_BASE_URL", openai: "OPENAI_BASE_URL", "openai-responses": "OPENAI_BASE_URL" };
const DEFAULT_URLS: Record<ProviderName, string> = { anthropic: "https://api.anthropic.com", openai: "https://api.openai.com/v1", "openai-responses": "https://api.openai.com/v1" };
const MODEL_VARS: Record<ProviderName, string> = { anthropic: "ANTHROPIC_MODEL", openai: "OPENAI_MODEL", "openai-responses": "OPENAI_MODEL" };

/**
 * Options, then environment (`TOOLGATE_PROVIDER`, `TOOLGATE_MODEL` or the provider's `*_MODEL`, `*_BASE_URL`,
 * `*_API_KEY`), then settings. Without a choice anywhere, OpenAI is picked only when just OpenAI variables are set.
 */
export function resolveProviderConfig(
  options: ProviderSelection = {},
  env: NodeJS.ProcessEnv = process.env,
  settings: Readonly<Record<string, unknown>> = {},
): ResolvedProviderConfig {
  const fromSettings = readProviderSettings(settings);
  const envProvider = PROVIDER_NAMES.find((name) => name === env.TOOLGATE_PROVIDER);
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
  const [model, modelSource] = pick(options.model, env.TOOLGATE_MODEL || env[MODEL_VARS[chosen]], fromSettings.model) ?? [DEFAULT_MODELS[chosen], "default"];
  const baseURL = pick(options.baseURL, env[URL_VARS[chosen]], fromSettings.baseURL);
  const api = chosen === "openai" ? responsesAPIReason(fromSettings.api, model, baseURL?.[0]) : undefined;
  const provider: ProviderName = api ? "openai-responses" : chosen;
  const smallModel = pick(options.smallModel, env.TOOLGATE_SMALL_MODEL, fromSettings.smallModel)?.[0] ?? DEFAULT_SMALL_MODELS[provider] ?? model;
  const apiKey = options.apiKey ? ["option", options.apiKey] : env[KEY_VARS[provider]] ? [KEY_VARS[provider], env[KEY_VARS[provider]]!] : undefined;
  return {
    provider,
    model,
    smallModel,
    ...(baseURL ? { baseURL: baseURL[0] } : {}),
    ...(apiKey ? { apiKey: apiKey[1] } : {}),
    sources: { provider: providerSource, model: modelSource, ...(baseURL ? { baseURL: baseURL[1] } : {}), ...(apiKey ? { apiKey: apiKey[0] } : {}), ...(api ? { api } : {}) },
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
  const server = config.baseURL
    ? `${config.baseURL} from ${config.sources.baseURL === "env" ? URL_VARS[config.provider] : config.sources.baseURL === "option" ? "--base-url" : "settings provider.baseURL"}`
    : `${DEFAULT_URLS[config.provider]}, the default (${URL_VARS[config.provider]} changes it)`;
  const common = { model: config.model, retry, server, ...(config.baseURL ? { baseURL: config.baseURL } : {}), ...(config.apiKey ? { apiKey: config.apiKey } : {}) };
  if (config.provider === "openai-responses") return createOpenAIResponsesProvider(common);
  return config.provider === "openai" ? createOpenAIProvider(common) : createAnthropicProvider(common);
}
