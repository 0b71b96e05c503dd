/**
 * Claude on Amazon Bedrock through Anthropic's Bedrock SDK (`@anthropic-ai/bedrock-sdk`): the Messages request
 * and stream of anthropic.ts, sent to `/model/<id>/invoke-with-response-stream` and signed with SigV4 (or a
 * Bedrock API key as a Bearer token). Credentials come from the AWS default chain, which the SDK runs; the SDK
 * and the AWS packages are imported on the first request.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Provider } from "./events.js";
import { createMessagesProvider, type MessagesClient } from "./anthropic.js";
import { classifySdkError, locateServer, ProviderFailure, type RetryOptions } from "./retry.js";
import { envFlag, type Sourced } from "./platforms.js";
import type { ProviderSettings } from "./settingsSection.js";
import { environmentProxyFetch } from "../util/proxyFetch.js";

export interface BedrockProviderOptions {
  model: string;
  region: string;
  /** A gateway or private endpoint instead of `https://bedrock-runtime.<region>.amazonaws.com`. */
  baseURL?: string;
  /** A Bedrock API key (`AWS_BEARER_TOKEN_BEDROCK`), sent as a Bearer token instead of a SigV4 signature. */
  bearerToken?: string;
  /** Static keys; without them the SDK runs the AWS default chain (profiles, SSO, web identity, container and instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Send no credentials: the gateway at `baseURL` authenticates to AWS itself (`CLAUDE_CODE_SKIP_BEDROCK_AUTH`). */
  skipAuth?: boolean;
  /** Where the endpoint is and what set it, for errors that cannot reach it. */
  server?: string;
  retry?: RetryOptions;
  promptCaching?: boolean;
}

/** What the environment and settings say about Bedrock, for createProvider and doctor. */
export interface BedrockSetup {
  kind: "bedrock";
  region: Sourced<string>;
  skipAuth: boolean;
}

/** Used when no variable, setting or AWS profile names a region: the Bedrock SDK's and Claude Code's fallback. */
export const DEFAULT_BEDROCK_REGION = "us-east-1";

/**
 * `AWS_REGION`, `AWS_DEFAULT_REGION`, settings `provider.region`, the `region` of the AWS profile in use
 * (`AWS_PROFILE`, else `default`, in `AWS_CONFIG_FILE` or ~/.aws/config), then us-east-1.
 */
export function resolveBedrockSetup(env: NodeJS.ProcessEnv, settings: ProviderSettings): BedrockSetup {
  const fromEnv = (["AWS_REGION", "AWS_DEFAULT_REGION"] as const).find((name) => env[name]?.trim());
  const profileRegion = fromEnv || settings.region ? undefined : readProfileRegion(env);
  const region: Sourced<string> = fromEnv
    ? { value: env[fromEnv]!.trim(), source: fromEnv }
    : settings.region
      ? { value: settings.region, source: "settings provider.region" }
      : (profileRegion ?? { value: DEFAULT_BEDROCK_REGION, source: "default" });
  return { kind: "bedrock", region, skipAuth: envFlag(env.CLAUDE_CODE_SKIP_BEDROCK_AUTH) };
}

/** The runtime endpoint of a region. */
export function bedrockEndpoint(region: string): string {
  return `https://bedrock-runtime.${region}.amazonaws.com`;
}

/**
 * Claude Sonnet 4.5 through the cross-region inference profile of the region's geography (Bedrock serves newer
 * Claude models only through inference profiles, and a `us.` profile cannot be invoked from Europe).
 */
export function bedrockDefaultModel(region: string): string {
  const geography = region.startsWith("us-gov-") ? "us-gov" : region.startsWith("us-") ? "us" : region.startsWith("eu-") ? "eu" : region.startsWith("ap-") ? "apac" : "global";
  return `${geography}.anthropic.claude-sonnet-4-5-20250929-v1:0`;
}

/** Static keys from the environment, which the AWS chain would also try first. */
export function awsEnvCredentials(env: NodeJS.ProcessEnv): BedrockProviderOptions["credentials"] {
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (!accessKeyId || !secretAccessKey) return undefined;
  const sessionToken = env.AWS_SESSION_TOKEN?.trim();
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

const AWS_REGION_FORMAT = /^[a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d{1,2}$/;

/**
 * The version Bedrock documents for Claude's Messages body. Without it the SDK would copy its own API version
 * (2026-10-21, a version of Anthropic's API) into the body; it keeps a version the body already names.
 */
export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

type BedrockClient = InstanceType<typeof import("@anthropic-ai/bedrock-sdk").AnthropicBedrock>;

export function createBedrockProvider(options: BedrockProviderOptions): Provider {
  const client = async (): Promise<MessagesClient> => {
    if (!AWS_REGION_FORMAT.test(options.region)) {
      // A setting, not the prompt, is at fault: "auth" (access is not set up), not "bad_request", which takes the prompt back.
      throw new ProviderFailure({ kind: "auth", retryable: false, message: `"${options.region}" is not an AWS region name: set AWS_REGION to the Bedrock region to use, e.g. us-east-1 or eu-central-1.` });
    }
    const [{ AnthropicBedrock }, proxied] = await Promise.all([import("@anthropic-ai/bedrock-sdk"), environmentProxyFetch()]);
    const { credentials } = options;
    const bedrock: BedrockClient = new AnthropicBedrock({
      ...(proxied ? { fetch: proxied } : {}),
      awsRegion: options.region,
      // Explicit, so the SDK does not read its own variables from process.env behind createProvider's `env`.
      baseURL: options.baseURL ?? bedrockEndpoint(options.region),
      apiKey: options.skipAuth ? null : (options.bearerToken ?? null),
      skipAuth: options.skipAuth ?? false,
      ...(credentials && !options.skipAuth ? { awsAccessKey: credentials.accessKeyId, awsSecretKey: credentials.secretAccessKey, awsSessionToken: credentials.sessionToken ?? null } : {}),
      maxRetries: 0,
      timeout: 60 * 60 * 1000,
    } as ConstructorParameters<typeof AnthropicBedrock>[0] & { awsAccessKey?: string; awsSecretKey?: string });
    return bedrock as unknown as MessagesClient;
  };
  return createMessagesProvider({
    name: "bedrock",
    model: options.model,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.promptCaching !== undefined ? { promptCaching: options.promptCaching } : {}),
    client,
    classify: (err) => classifyBedrockError(err, options),
    bodyFields: { anthropic_version: BEDROCK_ANTHROPIC_VERSION },
    // No webSearch: Bedrock does not run Anthropic's server-side tools, so WebSearch needs an MCP backend there.
  });
}

/** What to set, said by the missing-credentials error and by doctor. */
export const AWS_CREDENTIALS_HOW =
  "set AWS_PROFILE (after `aws sso login --profile NAME` for SSO), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys), or AWS_BEARER_TOKEN_BEDROCK to a Bedrock API key.";

/** Bedrock's refusals, with what to change; matched on the message AWS sends. */
const HINTS: ReadonlyArray<readonly [RegExp, (o: BedrockProviderOptions) => string]> = [
  [/security token included in the request is (?:invalid|expired)|signature we calculated does not match|UnrecognizedClient|ExpiredToken/i, () => "the AWS credentials were refused: check AWS_PROFILE, or AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (`toolgate doctor` shows which are used)"],
  [/not authorized to perform/i, () => "the AWS identity needs bedrock:InvokeModel and bedrock:InvokeModelWithResponseStream on this model or inference profile (see docs/providers.md, Amazon Bedrock)"],
  [/access to the model|model access/i, (o) => `enable access to this model in the Bedrock console (Model access) in ${o.region}`],
  [/on-demand throughput isn.t supported/i, () => "name an inference profile instead (us.anthropic.…, eu.anthropic.…, global.anthropic.…) in ANTHROPIC_MODEL"],
  [/model identifier is invalid|could not resolve the foundation model|model.*not found|not available in this region/i, (o) => `check the model id (ANTHROPIC_MODEL) and that region ${o.region} (AWS_REGION) offers it`],
];

/** The shared SDK classification, with Bedrock's credential failures and refusals worded as what to set. */
export function classifyBedrockError(err: unknown, options: Pick<BedrockProviderOptions, "region" | "server">): ProviderFailure {
  if (err instanceof ProviderFailure) return err;
  const message = (err as { message?: unknown })?.message;
  if (typeof message === "string" && /Failed to resolve AWS credentials/i.test(message)) {
    const cause = innermostCause(err);
    // The chain found nothing, or found something expired: trying again does not change that.
    if (cause?.name === "CredentialsProviderError" || /any providers|expired|sso/i.test(cause?.message ?? "")) {
      const found = /any providers/i.test(cause?.message ?? "") ? "No AWS credentials for Amazon Bedrock" : `The AWS credentials for Amazon Bedrock could not be loaded (${cause?.message})`;
      return new ProviderFailure({ kind: "auth", retryable: false, message: `${found}: ${AWS_CREDENTIALS_HOW} \`toolgate doctor\` shows what is set.` });
    }
    return new ProviderFailure({ kind: "connection", retryable: true, message: `Could not get AWS credentials for Amazon Bedrock: ${cause?.message ?? message}` });
  }
  const failure = withExceptionKind(locateServer(classifySdkError(err), options.server), err);
  // No such host under amazonaws.com: the region does not exist (or has no Bedrock), which retrying cannot change.
  if (failure.error.kind === "connection" && failure.error.message.includes(`ENOTFOUND bedrock-runtime.${options.region}.amazonaws.com`)) {
    return new ProviderFailure({ ...failure.error, retryable: false, message: `${failure.error.message} — no Bedrock endpoint answers for region "${options.region}": set AWS_REGION to a region where Bedrock runs, e.g. us-east-1` });
  }
  const { status } = failure.error;
  if (status === undefined || status < 400 || status >= 500 || status === 429) return failure;
  const hint = HINTS.find(([pattern]) => pattern.test(failure.error.message))?.[1];
  return hint ? new ProviderFailure({ ...failure.error, message: `${failure.error.message} — ${hint(options as BedrockProviderOptions)}` }, failure.retryAfterMs) : failure;
}

/** Bedrock's in-stream exceptions, which arrive as SSE error events typed by the exception's name. */
const EXCEPTION_KINDS: Readonly<Record<string, { kind: ProviderFailure["error"]["kind"]; retryable: boolean }>> = {
  throttlingexception: { kind: "rate_limit", retryable: true },
  servicequotaexceededexception: { kind: "rate_limit", retryable: true },
  serviceunavailableexception: { kind: "overloaded", retryable: true },
  internalserverexception: { kind: "server", retryable: true },
  modelstreamerrorexception: { kind: "server", retryable: true },
  modeltimeoutexception: { kind: "server", retryable: true },
  validationexception: { kind: "bad_request", retryable: false },
  accessdeniedexception: { kind: "auth", retryable: false },
};

function withExceptionKind(failure: ProviderFailure, err: unknown): ProviderFailure {
  if (failure.error.kind !== "unknown") return failure;
  const body = (err as { error?: { type?: unknown; error?: { type?: unknown } } })?.error;
  const type = String(body?.error?.type ?? body?.type ?? "").toLowerCase();
  const known = EXCEPTION_KINDS[type];
  return known ? new ProviderFailure({ ...failure.error, ...known }, failure.retryAfterMs) : failure;
}

function innermostCause(err: unknown): { name?: string; message?: string } | undefined {
  let cause = (err as { cause?: unknown })?.cause as { name?: string; message?: string; cause?: unknown } | undefined;
  for (let depth = 0; cause?.cause && depth < 5; depth++) cause = cause.cause as typeof cause;
  return cause;
}

/** Where the request goes and what set it, for error messages. */
export function bedrockServer(setup: BedrockSetup, baseURL: { url: string; source: string } | undefined): string {
  if (baseURL) return `${baseURL.url} from ${baseURL.source}`;
  return `${bedrockEndpoint(setup.region.value)}, for region ${setup.region.value} (${setup.region.source === "default" ? "the default; AWS_REGION changes it" : setup.region.source})`;
}

/**
 * Which credentials the AWS chain would find first, without reading any secret: for doctor. `found` is false
 * when nothing local was found (an instance or task role may still answer on AWS).
 */
export function describeBedrockCredentials(env: NodeJS.ProcessEnv, setup: BedrockSetup): { found: boolean; description: string } {
  if (setup.skipAuth) return { found: true, description: "none sent (CLAUDE_CODE_SKIP_BEDROCK_AUTH: the gateway authenticates)" };
  if (env.AWS_BEARER_TOKEN_BEDROCK?.trim()) return { found: true, description: "Bedrock API key (AWS_BEARER_TOKEN_BEDROCK), sent as a Bearer token" };
  if (awsEnvCredentials(env)) return { found: true, description: `access key from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY${env.AWS_SESSION_TOKEN?.trim() ? ", with AWS_SESSION_TOKEN" : ""}, SigV4-signed` };
  const files = sharedFiles(env);
  const profile = env.AWS_PROFILE?.trim();
  if (profile) {
    const file = [files.credentials, files.config].find((f) => readIni(f).has(profile));
    return file
      ? { found: true, description: `profile "${profile}" (AWS_PROFILE) in ${file}` }
      : { found: false, description: `profile "${profile}" (AWS_PROFILE) is in neither ${files.config} nor ${files.credentials}` };
  }
  if (env.AWS_WEB_IDENTITY_TOKEN_FILE && env.AWS_ROLE_ARN) return { found: true, description: `web identity role ${env.AWS_ROLE_ARN} (AWS_WEB_IDENTITY_TOKEN_FILE)` };
  if (env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI || env.AWS_CONTAINER_CREDENTIALS_FULL_URI) return { found: true, description: "the container's task role (AWS_CONTAINER_CREDENTIALS_*)" };
  const withDefault = [files.credentials, files.config].find((file) => readIni(file).has("default"));
  if (withDefault) return { found: true, description: `the default profile in ${withDefault}` };
  return { found: false, description: `none found in the environment, ${files.credentials} or ${files.config}; on AWS an instance role may still answer. To use others: ${AWS_CREDENTIALS_HOW}` };
}

function sharedFiles(env: NodeJS.ProcessEnv): { config: string; credentials: string } {
  const home = env.HOME || os.homedir();
  return {
    config: env.AWS_CONFIG_FILE || path.join(home, ".aws", "config"),
    credentials: env.AWS_SHARED_CREDENTIALS_FILE || path.join(home, ".aws", "credentials"),
  };
}

function readProfileRegion(env: NodeJS.ProcessEnv): Sourced<string> | undefined {
  const file = sharedFiles(env).config;
  const profile = env.AWS_PROFILE?.trim() || "default";
  const region = readIni(file).get(profile)?.get("region");
  return region ? { value: region, source: `profile "${profile}" in ${file}` } : undefined;
}

/** Sections of an AWS shared config or credentials file (`[default]`, `[profile NAME]`, `[NAME]`) and their keys. */
function readIni(file: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return sections;
  }
  let current: Map<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s[#;].*$/, "").trim();
    const header = /^\[\s*(?:profile\s+)?([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      current = new Map();
      sections.set(header[1], current);
    } else if (current && /^[^=\s]+\s*=/.test(line)) {
      const at = line.indexOf("=");
      current.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
    }
  }
  return sections;
}
