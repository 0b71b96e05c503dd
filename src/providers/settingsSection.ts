import { z } from "zod";
import type { ModelOverrides } from "./models.js";

const positiveInt = z.number().int().positive();

/** `models` in settings.json: `{"my-local-model": {"contextWindow": 32768, "maxOutputTokens": 4096}}`. */
export const modelsSettingsSection = {
  key: "models",
  schema: z.record(z.string().min(1), z.looseObject({ contextWindow: positiveInt.optional(), maxOutputTokens: positiveInt.optional() })),
};

/**
 * `provider` in settings.json: `{"name": "openai", "model": "qwen3:8b", "smallModel": "qwen3:1.7b", "baseURL": "http://127.0.0.1:11434/v1"}`,
 * or `{"name": "vertex", "region": "us-east5", "projectId": "my-project"}`. Keys and credentials stay in the environment.
 */
export const providerSettingsSection = {
  key: "provider",
  schema: z.looseObject({
    name: z.enum(["anthropic", "openai", "openai-responses", "bedrock", "vertex"]).optional(),
    /** With `name: "openai"`: which OpenAI API. Unset, codex and `-pro` models on OpenAI's own server use responses. */
    api: z.enum(["chat", "responses"]).optional(),
    model: z.string().trim().min(1).optional(),
    /** The model for side questions (WebFetch's answer step, summaries); see DEFAULT_SMALL_MODELS. */
    smallModel: z.string().trim().min(1).optional(),
    baseURL: z.url().optional(),
    /** Bedrock: the AWS region (after AWS_REGION); Vertex AI: the location (after CLOUD_ML_REGION). */
    region: z.string().trim().min(1).optional(),
    /** Vertex AI: the Google Cloud project (after ANTHROPIC_VERTEX_PROJECT_ID). */
    projectId: z.string().trim().min(1).optional(),
  }),
};

export type ProviderSettings = z.infer<typeof providerSettingsSection.schema>;

/** The merged settings' `models` section, or `{}` when absent or (already reported at load) malformed. */
export function readModelOverrides(settings: Readonly<Record<string, unknown>>): ModelOverrides {
  const parsed = modelsSettingsSection.schema.safeParse(settings.models ?? {});
  return parsed.success ? parsed.data : {};
}

/** The merged settings' `provider` section, or `{}` when absent or malformed. */
export function readProviderSettings(settings: Readonly<Record<string, unknown>>): ProviderSettings {
  const parsed = providerSettingsSection.schema.safeParse(settings.provider ?? {});
  return parsed.success ? parsed.data : {};
}
