/**
 * Claude on Google Vertex AI through Anthropic's Vertex SDK (`@anthropic-ai/vertex-sdk`): the Messages request
 * and stream of anthropic.ts, sent to `…/projects/<p>/locations/<r>/publishers/anthropic/models/<m>:streamRawPredict`
 * with a Google OAuth token. Credentials come from google-auth-library's Application Default Credentials
 * (GOOGLE_APPLICATION_CREDENTIALS, gcloud's ADC file, the metadata server), which read process.env themselves.
 * The SDK is imported on the first request.
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

type VertexOptions = NonNullable<ConstructorParameters<typeof import("@anthropic-ai/vertex-sdk").AnthropicVertex>[0]>;

export interface VertexProviderOptions {
  model: string;
  /** A region (us-east5, europe-west1), a multi-region (us, eu) or global. */
  region: string;
  /** Without one, the project of the credentials (a service-account key's project_id, gcloud's quota project). */
  projectId?: string;
  /** A gateway or private endpoint instead of Google's (the base includes `/v1`). */
  baseURL?: string;
  /** Send no credentials: the gateway at `baseURL` authenticates to Google itself (`CLAUDE_CODE_SKIP_VERTEX_AUTH`). */
  skipAuth?: boolean;
  /** google-auth-library credentials set up by the caller (impersonation, custom transport) instead of ADC. */
  googleAuth?: VertexOptions["googleAuth"];
  /** Where the endpoint is and what set it, for errors that cannot reach it. */
  server?: string;
  retry?: RetryOptions;
  promptCaching?: boolean;
}

/** What the environment and settings say about Vertex AI, for createProvider and doctor. */
export interface VertexSetup {
  kind: "vertex";
  region: Sourced<string>;
  projectId?: Sourced<string>;
  skipAuth: boolean;
}

/** Claude Code's fallback region, where Claude models were first served on Vertex AI. */
export const DEFAULT_VERTEX_REGION = "us-east5";

const PROJECT_VARS = ["ANTHROPIC_VERTEX_PROJECT_ID", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"] as const;

/** Region: `CLOUD_ML_REGION`, settings `provider.region`, us-east5. Project: the variables above, then settings `provider.projectId`. */
export function resolveVertexSetup(env: NodeJS.ProcessEnv, settings: ProviderSettings): VertexSetup {
  const regionVar = env.CLOUD_ML_REGION?.trim();
  const region: Sourced<string> = regionVar
    ? { value: regionVar, source: "CLOUD_ML_REGION" }
    : settings.region
      ? { value: settings.region, source: "settings provider.region" }
      : { value: DEFAULT_VERTEX_REGION, source: "default" };
  const projectVar = PROJECT_VARS.find((name) => env[name]?.trim());
  const projectId: Sourced<string> | undefined = projectVar
    ? { value: env[projectVar]!.trim(), source: projectVar }
    : settings.projectId
      ? { value: settings.projectId, source: "settings provider.projectId" }
      : undefined;
  return { kind: "vertex", region, ...(projectId ? { projectId } : {}), skipAuth: envFlag(env.CLAUDE_CODE_SKIP_VERTEX_AUTH) };
}

/** The API base of a location, as the Vertex SDK derives it. */
export function vertexEndpoint(region: string): string {
  if (region === "global") return "https://aiplatform.googleapis.com/v1";
  if (region === "us" || region === "eu") return `https://aiplatform.${region}.rep.googleapis.com/v1`;
  return `https://${region}-aiplatform.googleapis.com/v1`;
}

export const DEFAULT_VERTEX_MODEL = "claude-sonnet-4-5@20250929";
export const DEFAULT_VERTEX_SMALL_MODEL = "claude-haiku-4-5@20251001";

/** The version Vertex AI documents for Claude's Messages body (without it the SDK copies its own API version there). */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

const VERTEX_REGION_FORMAT = /^(?:global|us|eu|[a-z]+-[a-z]+\d+)$/;

/** For a gateway that authenticates by itself: no token is fetched and no header added. */
const NO_GOOGLE_AUTH = { projectId: undefined, getRequestHeaders: async () => new Headers() };

export function createVertexProvider(options: VertexProviderOptions): Provider {
  const client = async (): Promise<MessagesClient> => {
    if (!VERTEX_REGION_FORMAT.test(options.region)) {
      // A setting, not the prompt, is at fault: "auth" (access is not set up), not "bad_request", which takes the prompt back.
      throw new ProviderFailure({ kind: "auth", retryable: false, message: `"${options.region}" is not a Vertex AI location: set CLOUD_ML_REGION to a region such as us-east5 or europe-west1, or to global.` });
    }
    const [{ AnthropicVertex }, proxied] = await Promise.all([import("@anthropic-ai/vertex-sdk"), environmentProxyFetch()]);
    const auth: Partial<VertexOptions> = options.skipAuth ? { authClient: NO_GOOGLE_AUTH as unknown as VertexOptions["authClient"] } : options.googleAuth ? { googleAuth: options.googleAuth } : {};
    const vertex = new AnthropicVertex({
      ...(proxied ? { fetch: proxied } : {}),
      region: options.region,
      // Explicit, so the SDK does not read its own variables from process.env behind createProvider's `env`.
      projectId: options.projectId ?? null,
      baseURL: options.baseURL ?? vertexEndpoint(options.region),
      ...auth,
      maxRetries: 0,
      timeout: 60 * 60 * 1000,
    });
    return vertex as unknown as MessagesClient;
  };
  return createMessagesProvider({
    name: "vertex",
    model: options.model,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.promptCaching !== undefined ? { promptCaching: options.promptCaching } : {}),
    client,
    classify: (err) => classifyVertexError(err, options),
    bodyFields: { anthropic_version: VERTEX_ANTHROPIC_VERSION },
    // Vertex AI runs Anthropic's web search (in preview) behind this beta flag.
    webSearch: { headers: { "anthropic-beta": "web-search-2025-03-05" } },
  });
}

/** What to do, said by the credential errors and by doctor. */
export const GOOGLE_CREDENTIALS_HOW =
  "run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file (CLAUDE_CODE_SKIP_VERTEX_AUTH=1 for a gateway that authenticates itself).";
const NO_GOOGLE_CREDENTIALS = `${GOOGLE_CREDENTIALS_HOW} \`toolgate doctor\` shows what is set.`;

export const NO_VERTEX_PROJECT =
  "No Google Cloud project for Vertex AI: set ANTHROPIC_VERTEX_PROJECT_ID (or GOOGLE_CLOUD_PROJECT), or settings provider.projectId; the credentials did not name one.";

const HINTS: ReadonlyArray<readonly [number, RegExp, (o: VertexProviderOptions) => string]> = [
  [401, /./, () => "the Google credentials were refused: run `gcloud auth application-default login` again, or check GOOGLE_APPLICATION_CREDENTIALS"],
  [403, /./, (o) => `the account needs the Vertex AI User role (roles/aiplatform.user) on project ${o.projectId ?? "(the credentials' project)"}, and the Vertex AI API enabled there`],
  [404, /./, (o) => `enable ${o.model} in Model Garden for project ${o.projectId ?? "(the credentials' project)"}, and check that ${o.region} (CLOUD_ML_REGION) serves it`],
  [429, /RESOURCE_EXHAUSTED|quota/i, (o) => `the project's quota for this model in ${o.region} is used up: request more under IAM & Admin > Quotas, or try another region (CLOUD_ML_REGION)`],
];

/** The shared SDK classification, with Google's credential and project failures worded as what to set. */
export function classifyVertexError(err: unknown, options: Pick<VertexProviderOptions, "region" | "server" | "projectId" | "model">): ProviderFailure {
  if (err instanceof ProviderFailure) return err;
  const messages = errorChain(err).map((e) => e.message ?? "");
  if (messages.some((m) => /Could not load the default credentials/i.test(m))) {
    return new ProviderFailure({ kind: "auth", retryable: false, message: `No Google Cloud credentials for Vertex AI: ${NO_GOOGLE_CREDENTIALS}` });
  }
  if (messages.some((m) => /No projectId was given/i.test(m))) return new ProviderFailure({ kind: "auth", retryable: false, message: NO_VERTEX_PROJECT });
  if (/Failed to acquire Google OAuth credentials/i.test(messages[0] ?? "")) {
    // The token endpoint's answer (gaxios' error carries its HTTP status); else what failed underneath.
    const chain = errorChain(err).slice(1) as Array<{ message?: string; status?: unknown; response?: { status?: unknown } }>;
    const httpStatus = (e: (typeof chain)[number]) => (typeof e.response?.status === "number" ? e.response.status : typeof e.status === "number" ? e.status : undefined);
    const cause = chain.find((e) => httpStatus(e) !== undefined) ?? chain.at(-1);
    const status = cause && httpStatus(cause);
    if (status !== undefined && status >= 400 && status < 500) {
      return new ProviderFailure({ kind: "auth", retryable: false, message: `Google refused the credentials for Vertex AI (${cause?.message}): ${NO_GOOGLE_CREDENTIALS}` });
    }
    return new ProviderFailure({ kind: "connection", retryable: true, message: `Could not get a Google access token for Vertex AI: ${cause?.message ?? messages[0]}` });
  }
  const failure = locateServer(classifySdkError(err), options.server);
  // No such host under googleapis.com: the location does not exist, which retrying cannot change.
  if (failure.error.kind === "connection" && failure.error.message.includes(`ENOTFOUND ${options.region}-aiplatform.googleapis.com`)) {
    return new ProviderFailure({ ...failure.error, retryable: false, message: `${failure.error.message} — no Vertex AI endpoint answers for location "${options.region}": set CLOUD_ML_REGION to a location that serves Claude, e.g. us-east5, europe-west1 or global` });
  }
  const hint = HINTS.find(([status, pattern]) => status === failure.error.status && pattern.test(failure.error.message))?.[2];
  return hint ? new ProviderFailure({ ...failure.error, message: `${failure.error.message} — ${hint(options as VertexProviderOptions)}` }, failure.retryAfterMs) : failure;
}

function errorChain(err: unknown): Array<{ message?: string; cause?: unknown }> {
  const chain: Array<{ message?: string; cause?: unknown }> = [];
  for (let e = err as { message?: string; cause?: unknown } | undefined; e && typeof e === "object" && chain.length < 6; e = e.cause as typeof e) chain.push(e);
  return chain;
}

/** Where the request goes and what set it, for error messages. */
export function vertexServer(setup: VertexSetup, baseURL: { url: string; source: string } | undefined): string {
  if (baseURL) return `${baseURL.url} from ${baseURL.source}`;
  return `${vertexEndpoint(setup.region.value)}, for location ${setup.region.value} (${setup.region.source === "default" ? "the default; CLOUD_ML_REGION changes it" : setup.region.source})`;
}

interface CredentialsFile {
  type?: string;
  project_id?: string;
  quota_project_id?: string;
  client_email?: string;
}

/**
 * Which credentials ADC would find first and which project the requests name, without reading any secret: for
 * doctor. `found` is false when nothing local was found (the metadata server may still answer on Google Cloud).
 */
export function describeVertexCredentials(env: NodeJS.ProcessEnv, setup: VertexSetup): { found: boolean; description: string; project?: Sourced<string> } {
  if (setup.skipAuth) return { found: true, description: "none sent (CLAUDE_CODE_SKIP_VERTEX_AUTH: the gateway authenticates)", ...(setup.projectId ? { project: setup.projectId } : {}) };
  const keyFile = env.GOOGLE_APPLICATION_CREDENTIALS?.trim();
  const adcFile = path.join(env.CLOUDSDK_CONFIG || path.join(env.HOME || os.homedir(), ".config", "gcloud"), "application_default_credentials.json");
  const [file, via] = keyFile ? [keyFile, "GOOGLE_APPLICATION_CREDENTIALS"] : [adcFile, "gcloud auth application-default login"];
  let json: CredentialsFile | undefined;
  try {
    json = JSON.parse(fs.readFileSync(file, "utf8")) as CredentialsFile;
  } catch {
    if (keyFile) return { found: false, description: `GOOGLE_APPLICATION_CREDENTIALS names ${keyFile}, which cannot be read as JSON` };
  }
  const fileProject = json?.project_id ?? json?.quota_project_id;
  const project = setup.projectId ?? (json && fileProject ? { value: fileProject, source: file } : undefined);
  if (!json) return { found: false, description: `none found (no GOOGLE_APPLICATION_CREDENTIALS, no ${adcFile}); on Google Cloud the metadata server may still answer. To set them: ${GOOGLE_CREDENTIALS_HOW}`, ...(project ? { project } : {}) };
  const kind = json.type === "service_account" ? `service-account key${json.client_email ? ` of ${json.client_email}` : ""}` : json.type === "authorized_user" ? "user credentials" : json.type === "external_account" ? "workload identity federation" : `${json.type ?? "unknown"} credentials`;
  return { found: true, description: `${kind} in ${file} (${via})`, ...(project ? { project } : {}) };
}
