/**
 * Claude on Google Vertex AI through the real `@anthropic-ai/vertex-sdk` client and google-auth-library, against
 * a local Vertex stand-in (cloudServers.ts) that checks the path and body, and plays Google's token endpoint for
 * a service account whose key the test made.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { GoogleAuth } from "google-auth-library";
import { afterEach, describe, expect, it } from "vitest";
import { createProvider, createVertexProvider, describeVertexCredentials, resolveProviderConfig, type ProviderEvent, type VertexSetup } from "../../src/providers/index.js";
import { makeServiceAccount, startVertexServer } from "./cloudServers.js";
import { FAST_RETRY, run } from "./support.js";

const MODEL = "claude-sonnet-4-5@20250929";
const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";

function errorOf(events: ProviderEvent[]) {
  return events.find((e): e is Extract<ProviderEvent, { type: "error" }> => e.type === "error")?.error;
}

// google-auth-library reads its variables (GOOGLE_APPLICATION_CREDENTIALS, HOME for gcloud's file) from process.env.
const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

function isolateGoogleEnv(): string {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-nogcloud-"));
  for (const key of ["GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "ANTHROPIC_VERTEX_PROJECT_ID", "CLOUD_ML_REGION"]) delete process.env[key];
  // No gcloud ADC file, and no probing for a metadata server off Google Cloud.
  Object.assign(process.env, { CLOUDSDK_CONFIG: empty, HOME: empty, METADATA_SERVER_DETECTION: "none" });
  return empty;
}

/**
 * google-auth-library 10 sends a service account's token request to https://oauth2.googleapis.com/token whatever
 * the key file's token_uri says; this transport sends that URL to the local server instead (nothing else changes).
 */
function authRoutedTo(tokenUrl: string) {
  return new GoogleAuth({
    scopes: "https://www.googleapis.com/auth/cloud-platform",
    clientOptions: {
      transporterOptions: {
        fetchImplementation: ((input: string | URL | Request, init?: RequestInit) => {
          const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
          return fetch(url === GOOGLE_TOKEN_URL ? tokenUrl : input, init);
        }) as typeof fetch,
      },
    },
  });
}

describe("Vertex AI provider", () => {
  it("streams from …:streamRawPredict with a Bearer token exchanged for the service account's RS256-signed JWT", async () => {
    isolateGoogleEnv();
    const placeholder = await startVertexServer({ turns: [] });
    const account = makeServiceAccount(`${placeholder.url}/token`, "sa-project");
    const server = await startVertexServer(
      { turns: [{ content: [{ type: "text", text: "Reading." }, { type: "tool_use", id: "toolu_v1", name: "Read", input: { file_path: "a.txt" } }], chunks: 2, usage: { input_tokens: 50, output_tokens: 9 } }] },
      account,
    );
    // The ADC chain finds the key through GOOGLE_APPLICATION_CREDENTIALS.
    process.env.GOOGLE_APPLICATION_CREDENTIALS = account.file;
    const provider = createVertexProvider({ model: MODEL, region: "us-east5", projectId: "my-project", baseURL: `${server.url}/v1`, googleAuth: authRoutedTo(`${server.url}/token`), retry: FAST_RETRY });
    const { message, stop } = await run(provider);
    expect(stop).toEqual({ reason: "tool_use", complete: true });
    expect(message.content).toEqual([
      { type: "text", text: "Reading." },
      { type: "tool_use", id: "toolu_v1", name: "Read", input: { file_path: "a.txt" } },
    ]);

    const [token] = server.tokenRequests();
    expect(token.grantType).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    expect(token.header).toMatchObject({ alg: "RS256" });
    expect(token.signatureValid).toBe(true);
    expect(token.claims).toMatchObject({ iss: account.clientEmail, aud: GOOGLE_TOKEN_URL, scope: "https://www.googleapis.com/auth/cloud-platform" });

    const [request] = server.requests();
    expect(request.rawPath).toBe(`/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/${MODEL}:streamRawPredict`);
    expect(request.headers.authorization).toBe(`Bearer ${server.accessToken}`);
    expect(request.headers["anthropic-version"]).toBeUndefined();
    expect(request.body.anthropic_version).toBe("vertex-2023-10-16");
    expect(request.body).not.toHaveProperty("model");
    expect(request.body).toMatchObject({ stream: true, max_tokens: 1024, messages: [{ role: "user" }] });
  });

  it("without a project id it uses the service account's project", async () => {
    isolateGoogleEnv();
    const placeholder = await startVertexServer({ turns: [] });
    const account = makeServiceAccount(`${placeholder.url}/token`, "from-the-key");
    const server = await startVertexServer({ turns: [{ content: [{ type: "text", text: "ok" }] }] }, account);
    process.env.GOOGLE_APPLICATION_CREDENTIALS = account.file;
    const provider = createVertexProvider({ model: MODEL, region: "global", baseURL: `${server.url}/v1`, googleAuth: authRoutedTo(`${server.url}/token`), retry: FAST_RETRY });
    await run(provider);
    expect(server.requests()[0].rawPath).toBe(`/v1/projects/from-the-key/locations/global/publishers/anthropic/models/${MODEL}:streamRawPredict`);
  });

  it("is selected like Claude Code: CLAUDE_CODE_USE_VERTEX, CLOUD_ML_REGION, ANTHROPIC_VERTEX_PROJECT_ID, ANTHROPIC_VERTEX_BASE_URL, CLAUDE_CODE_SKIP_VERTEX_AUTH", async () => {
    isolateGoogleEnv();
    const server = await startVertexServer({ turns: [{ content: [{ type: "text", text: "via gateway" }] }] });
    const env = { CLAUDE_CODE_USE_VERTEX: "1", CLOUD_ML_REGION: "europe-west1", ANTHROPIC_VERTEX_PROJECT_ID: "proj-1", ANTHROPIC_VERTEX_BASE_URL: `${server.url}/v1`, CLAUDE_CODE_SKIP_VERTEX_AUTH: "1" };
    const provider = createProvider({ env, retry: FAST_RETRY });
    expect([provider.name, provider.model]).toEqual(["vertex", MODEL]);
    expect(typeof provider.webSearch).toBe("function");
    const { message } = await run(provider);
    expect(message.content).toEqual([{ type: "text", text: "via gateway" }]);
    const [request] = server.requests();
    expect(request.rawPath).toBe(`/v1/projects/proj-1/locations/europe-west1/publishers/anthropic/models/${MODEL}:streamRawPredict`);
    expect(request.headers.authorization).toBeUndefined();
    expect(server.tokenRequests()).toHaveLength(0);
  });

  it("web search goes to rawPredict with the web-search beta flag", async () => {
    isolateGoogleEnv();
    const server = await startVertexServer({ turns: [{ content: [{ type: "text", text: "nothing found" }] }] });
    const provider = createVertexProvider({ model: MODEL, region: "us-east5", projectId: "p", baseURL: `${server.url}/v1`, skipAuth: true, retry: FAST_RETRY });
    // The stand-in serves streamRawPredict only: the search request reaching it at all is what is checked here.
    await expect(provider.webSearch!({ model: MODEL, query: "q" })).rejects.toThrow(/Web search through .* failed: .*404/);
    const [request] = server.requests();
    expect(request.rawPath).toBe(`/v1/projects/p/locations/us-east5/publishers/anthropic/models/${MODEL}:rawPredict`);
    expect(request.headers["anthropic-beta"]).toBe("web-search-2025-03-05");
    expect(request.body).toMatchObject({ anthropic_version: "vertex-2023-10-16", tools: [{ type: "web_search_20250305" }] });
  });

  it("no Google credentials: one auth line naming what to run or set, nothing sent", async () => {
    isolateGoogleEnv();
    const server = await startVertexServer({ turns: [] });
    const provider = createVertexProvider({ model: MODEL, region: "us-east5", projectId: "p", baseURL: `${server.url}/v1`, retry: FAST_RETRY });
    const { events } = await run(provider);
    const error = errorOf(events)!;
    expect(error).toMatchObject({ kind: "auth", retryable: false });
    expect(error.message).toMatch(/^No Google Cloud credentials for Vertex AI: run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS/);
    expect(error.message).not.toContain("\n");
    expect(events.some((e) => e.type === "retry")).toBe(false);
    expect(server.requests()).toHaveLength(0);
  });

  it("no project anywhere: says to set ANTHROPIC_VERTEX_PROJECT_ID", async () => {
    isolateGoogleEnv();
    const server = await startVertexServer({ turns: [] });
    const provider = createVertexProvider({ model: MODEL, region: "us-east5", baseURL: `${server.url}/v1`, skipAuth: true, retry: FAST_RETRY });
    const { events } = await run(provider);
    expect(errorOf(events)).toMatchObject({ kind: "auth", retryable: false, message: expect.stringMatching(/^No Google Cloud project for Vertex AI: set ANTHROPIC_VERTEX_PROJECT_ID/) });
    expect(server.requests()).toHaveLength(0);
  });

  it("a refused token exchange, a permission error, a model not enabled, a malformed region: each one clear line", async () => {
    isolateGoogleEnv();
    const placeholder = await startVertexServer({ turns: [] });
    const stranger = makeServiceAccount(`${placeholder.url}/token`);
    const account = makeServiceAccount(`${placeholder.url}/token`);
    const server = await startVertexServer(
      {
        turns: [
          { status: 403, body: { error: { code: 403, message: "Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5'.", status: "PERMISSION_DENIED" } } },
          { status: 404, body: { error: { code: 404, message: "Publisher Model `projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929` not found.", status: "NOT_FOUND" } } },
        ],
      },
      account,
    );
    // A key the token endpoint does not know: the JWT's signature does not verify.
    process.env.GOOGLE_APPLICATION_CREDENTIALS = stranger.file;
    const refused = await run(createVertexProvider({ model: MODEL, region: "us-east5", projectId: "p", baseURL: `${server.url}/v1`, googleAuth: authRoutedTo(`${server.url}/token`), retry: FAST_RETRY }));
    expect(errorOf(refused.events)).toMatchObject({ kind: "auth", retryable: false, message: expect.stringMatching(/^Google refused the credentials for Vertex AI \(invalid_grant: Invalid JWT Signature\.\)/) });

    const gateway = { model: MODEL, region: "us-east5", projectId: "p", baseURL: `${server.url}/v1`, skipAuth: true, retry: FAST_RETRY };
    const denied = errorOf((await run(createVertexProvider(gateway))).events)!;
    expect(denied).toMatchObject({ kind: "auth", status: 403, retryable: false });
    expect(denied.message).toContain("needs the Vertex AI User role (roles/aiplatform.user) on project p");
    const missing = errorOf((await run(createVertexProvider(gateway))).events)!;
    expect(missing).toMatchObject({ kind: "bad_request", status: 404 });
    expect(missing.message).toContain(`enable ${MODEL} in Model Garden for project p, and check that us-east5 (CLOUD_ML_REGION) serves it`);
    const badRegion = errorOf((await run(createVertexProvider({ ...gateway, region: "US East" }))).events)!;
    expect(badRegion).toMatchObject({ kind: "auth", message: expect.stringContaining("set CLOUD_ML_REGION") });
    expect(server.requests()).toHaveLength(2);
  });
});

describe("Vertex AI selection", () => {
  it("region CLOUD_ML_REGION, settings, us-east5; project ANTHROPIC_VERTEX_PROJECT_ID, GOOGLE_CLOUD_PROJECT, settings; models by default", () => {
    const platform = (env: NodeJS.ProcessEnv, provider: Record<string, unknown> = {}) => resolveProviderConfig({}, { CLAUDE_CODE_USE_VERTEX: "1", ...env }, { provider }).platform as VertexSetup;
    expect(platform({})).toMatchObject({ region: { value: "us-east5", source: "default" }, skipAuth: false });
    expect(platform({ CLOUD_ML_REGION: "global" }, { region: "europe-west4" }).region).toEqual({ value: "global", source: "CLOUD_ML_REGION" });
    expect(platform({}, { region: "europe-west4", projectId: "from-settings" })).toMatchObject({ region: { source: "settings provider.region" }, projectId: { value: "from-settings" } });
    expect(platform({ GOOGLE_CLOUD_PROJECT: "g", ANTHROPIC_VERTEX_PROJECT_ID: "a" }).projectId).toEqual({ value: "a", source: "ANTHROPIC_VERTEX_PROJECT_ID" });
    expect(platform({ GOOGLE_CLOUD_PROJECT: "g" }).projectId).toEqual({ value: "g", source: "GOOGLE_CLOUD_PROJECT" });
    const config = resolveProviderConfig({}, { TOOLGATE_USE_VERTEX: "yes" });
    expect([config.provider, config.model, config.smallModel]).toEqual(["vertex", MODEL, "claude-haiku-4-5@20251001"]);
    expect(resolveProviderConfig({}, { CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_MODEL: "claude-opus-4-5@20251101" }).model).toBe("claude-opus-4-5@20251101");
  });

  it("doctor's credential description names the source and the project, never the key", () => {
    const account = makeServiceAccount("http://127.0.0.1:9/token", "described");
    const setup = resolveProviderConfig({}, { CLAUDE_CODE_USE_VERTEX: "1" }).platform as VertexSetup;
    const found = describeVertexCredentials({ GOOGLE_APPLICATION_CREDENTIALS: account.file }, setup);
    expect(found).toMatchObject({ found: true, project: { value: "described", source: account.file } });
    expect(found.description).toBe(`service-account key of ${account.clientEmail} in ${account.file} (GOOGLE_APPLICATION_CREDENTIALS)`);
    expect(JSON.stringify(found)).not.toContain("PRIVATE KEY");
    const none = describeVertexCredentials({ HOME: fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-h-")) }, setup);
    expect(none.found).toBe(false);
    expect(none.description).toContain("gcloud auth application-default login");
  });
});
