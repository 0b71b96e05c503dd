/**
 * Claude on Amazon Bedrock through the real `@anthropic-ai/bedrock-sdk` client, against a local Bedrock stand-in
 * (cloudServers.ts) that checks the path, the body and the SigV4 signature, and streams AWS's eventstream.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { APIConnectionError } from "@anthropic-ai/sdk";
import { createBedrockProvider, createProvider, resolveProviderConfig, type ProviderEvent } from "../../src/providers/index.js";
import { bedrockServer, classifyBedrockError, resolveBedrockSetup } from "../../src/providers/bedrock.js";
import { classifyVertexError } from "../../src/providers/vertex.js";
import { startBedrockServer, verifySigV4 } from "./cloudServers.js";
import { FAST_RETRY, run } from "./support.js";

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const KEYS = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };

const toolTurn = {
  turns: [
    {
      content: [
        { type: "text" as const, text: "Let me read it." },
        { type: "tool_use" as const, id: "toolu_b1", name: "Read", input: { file_path: "notes.txt" } },
      ],
      chunks: 3,
      usage: { input_tokens: 120, output_tokens: 17, cache_read_input_tokens: 40 },
    },
  ],
};

function errorOf(events: ProviderEvent[]) {
  return events.find((e): e is Extract<ProviderEvent, { type: "error" }> => e.type === "error")?.error;
}

describe("Bedrock provider", () => {
  it("sends the Messages body to /model/<id>/invoke-with-response-stream, SigV4-signed with the session token, and reads the eventstream", async () => {
    const server = await startBedrockServer(toolTurn);
    const provider = createBedrockProvider({ model: MODEL, region: "us-west-2", baseURL: server.url, credentials: { ...KEYS, sessionToken: "SESSIONTOKEN123" }, retry: FAST_RETRY });
    const { events, message, stop, usage } = await run(provider, { tools: [{ name: "Read", description: "read a file", inputSchema: { type: "object", properties: { file_path: { type: "string" } } } }] });

    expect(stop).toEqual({ reason: "tool_use", complete: true });
    expect(message.content).toEqual([
      { type: "text", text: "Let me read it." },
      { type: "tool_use", id: "toolu_b1", name: "Read", input: { file_path: "notes.txt" } },
    ]);
    expect(events.filter((e) => e.type === "tool_input_delta").length).toBe(3);
    expect(usage).toMatchObject({ input: 120, output: 17, cacheRead: 40, source: "api" });

    const [request] = server.requests();
    expect(request.method).toBe("POST");
    // One path segment; the SDK leaves ":" as it is (a valid path character) and encodes what is not.
    expect(request.rawPath).toBe(`/model/${MODEL}/invoke-with-response-stream`);
    expect(request.body.anthropic_version).toBe("bedrock-2023-05-31");
    expect(request.body).not.toHaveProperty("model");
    expect(request.body).not.toHaveProperty("stream");
    expect(request.body).toMatchObject({ max_tokens: 1024, messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }], tools: [{ name: "Read" }] });
    expect(request.headers["anthropic-version"]).toBeUndefined();

    expect(request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-west-2\/bedrock\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/);
    expect(request.headers["x-amz-date"]).toMatch(/^\d{8}T\d{6}Z$/);
    expect(request.headers["x-amz-security-token"]).toBe("SESSIONTOKEN123");
    const signature = verifySigV4(request, KEYS.secretAccessKey);
    expect(signature.reason).toBeUndefined();
    expect(signature).toMatchObject({ ok: true, accessKeyId: "AKIDEXAMPLE", region: "us-west-2", service: "bedrock" });
    expect(signature.signedHeaders).toEqual(expect.arrayContaining(["host", "x-amz-date", "x-amz-security-token"]));
    // A wrong secret does not verify: the check is a real one.
    expect(verifySigV4(request, "not-the-secret").ok).toBe(false);
  });

  it("without a session token sends no x-amz-security-token", async () => {
    const server = await startBedrockServer({ turns: [{ content: [{ type: "text", text: "hi" }] }] });
    const provider = createBedrockProvider({ model: MODEL, region: "us-east-1", baseURL: server.url, credentials: KEYS, retry: FAST_RETRY });
    const { message } = await run(provider);
    expect(message.content).toEqual([{ type: "text", text: "hi" }]);
    const [request] = server.requests();
    expect(request.headers["x-amz-security-token"]).toBeUndefined();
    expect(verifySigV4(request, KEYS.secretAccessKey)).toMatchObject({ ok: true, region: "us-east-1" });
  });

  it("is selected like Claude Code: CLAUDE_CODE_USE_BEDROCK, AWS_REGION, ANTHROPIC_BEDROCK_BASE_URL, keys from the environment", async () => {
    const server = await startBedrockServer({ turns: [{ content: [{ type: "text", text: "from eu" }] }] });
    const env = { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "eu-central-1", ANTHROPIC_BEDROCK_BASE_URL: server.url, AWS_ACCESS_KEY_ID: KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: KEYS.secretAccessKey, TOOLGATE_MAX_RETRIES: "0" };
    const provider = createProvider({ env });
    expect(provider.name).toBe("bedrock");
    // The default model is the inference profile of the region's geography.
    expect(provider.model).toBe("eu.anthropic.claude-sonnet-4-5-20250929-v1:0");
    expect(provider.webSearch).toBeUndefined();
    const { message } = await run(provider);
    expect(message.content).toEqual([{ type: "text", text: "from eu" }]);
    const [request] = server.requests();
    expect(request.rawPath).toBe("/model/eu.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream");
    expect(verifySigV4(request, KEYS.secretAccessKey)).toMatchObject({ ok: true, region: "eu-central-1" });
  });

  it("an application inference profile ARN is one url-encoded path segment, and still signs", async () => {
    const arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5";
    const server = await startBedrockServer({ turns: [{ content: [{ type: "text", text: "via profile" }] }] });
    const { message } = await run(createBedrockProvider({ model: arn, region: "us-east-1", baseURL: server.url, credentials: KEYS, retry: FAST_RETRY }));
    expect(message.content).toEqual([{ type: "text", text: "via profile" }]);
    const [request] = server.requests();
    expect(request.rawPath).toBe("/model/arn:aws:bedrock:us-east-1:123456789012:application-inference-profile%2Fa1b2c3d4e5/invoke-with-response-stream");
    expect(server.model.requests()[0].body.model).toBe(arn);
    expect(verifySigV4(request, KEYS.secretAccessKey).ok).toBe(true);
  });

  it("AWS_BEARER_TOKEN_BEDROCK goes as a Bearer token; CLAUDE_CODE_SKIP_BEDROCK_AUTH sends no credentials at all", async () => {
    const server = await startBedrockServer({ loop: true, turns: [{ content: [{ type: "text", text: "ok" }] }] });
    const base = { CLAUDE_CODE_USE_BEDROCK: "true", AWS_REGION: "us-east-1", ANTHROPIC_BEDROCK_BASE_URL: server.url, AWS_ACCESS_KEY_ID: KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: KEYS.secretAccessKey };
    await run(createProvider({ env: { ...base, AWS_BEARER_TOKEN_BEDROCK: "bedrock-api-key-1" }, retry: FAST_RETRY }));
    await run(createProvider({ env: { ...base, AWS_BEARER_TOKEN_BEDROCK: "bedrock-api-key-1", CLAUDE_CODE_SKIP_BEDROCK_AUTH: "1" }, retry: FAST_RETRY }));
    const [bearer, skipped] = server.requests();
    expect(bearer.headers.authorization).toBe("Bearer bedrock-api-key-1");
    expect(bearer.headers["x-amz-date"]).toBeUndefined();
    expect(skipped.headers.authorization).toBeUndefined();
    expect(skipped.headers["x-amz-date"]).toBeUndefined();
    expect(skipped.rawPath).toMatch(/\/invoke-with-response-stream$/);
    // Prompt caching markers by default; none with Claude Code's DISABLE_PROMPT_CACHING.
    expect(JSON.stringify(bearer.body)).toContain("cache_control");
    await run(createProvider({ env: { ...base, DISABLE_PROMPT_CACHING: "1" }, retry: FAST_RETRY }));
    expect(JSON.stringify(server.requests()[2].body)).not.toContain("cache_control");
  });

  it("an IAM refusal is one auth error naming the permissions, not retried", async () => {
    const server = await startBedrockServer({
      turns: [
        {
          status: 403,
          headers: { "x-amzn-errortype": "AccessDeniedException:http://internal.amazon.com/coral/com.amazon.bedrock/" },
          body: { message: `User: arn:aws:iam::123456789012:user/dev is not authorized to perform: bedrock:InvokeModelWithResponseStream on resource: arn:aws:bedrock:us-east-1:123456789012:inference-profile/${MODEL}` },
        },
      ],
    });
    const provider = createBedrockProvider({ model: MODEL, region: "us-east-1", baseURL: server.url, credentials: KEYS, retry: FAST_RETRY });
    const { events, stop } = await run(provider);
    expect(stop).toEqual({ reason: "error", complete: false });
    const error = errorOf(events)!;
    expect(error).toMatchObject({ kind: "auth", status: 403, retryable: false });
    expect(error.message).toContain("is not authorized to perform: bedrock:InvokeModelWithResponseStream");
    expect(error.message).toContain("needs bedrock:InvokeModel and bedrock:InvokeModelWithResponseStream");
    expect(server.requests()).toHaveLength(1);
  });

  it("a base model id without an inference profile gets told to name one; throttling is retried", async () => {
    const server = await startBedrockServer({
      turns: [
        { status: 429, headers: { "x-amzn-errortype": "ThrottlingException" }, body: { message: "Too many requests, please wait before trying again." } },
        { status: 400, headers: { "x-amzn-errortype": "ValidationException" }, body: { message: "Invocation of model ID anthropic.claude-sonnet-4-5-20250929-v1:0 with on-demand throughput isn’t supported. Retry your request with the ID or ARN of an inference profile that contains this model." } },
      ],
    });
    const provider = createBedrockProvider({ model: "anthropic.claude-sonnet-4-5-20250929-v1:0", region: "us-east-1", baseURL: server.url, credentials: KEYS, retry: FAST_RETRY });
    const { events } = await run(provider);
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
    const error = errorOf(events)!;
    expect(error).toMatchObject({ kind: "bad_request", status: 400, retryable: false });
    expect(error.message).toMatch(/on-demand throughput .* — name an inference profile instead \(us\.anthropic\.…/);
  });

  it("an exception frame mid-stream ends the message as cut short, keeping what came before", async () => {
    const server = await startBedrockServer({
      turns: [{ content: [{ type: "text", text: "Partial answer" }, { type: "text", text: "never sent" }], steps: [{ after: 1, error: { type: "throttlingException", message: "Too many tokens, please wait before trying again." } }] }],
    });
    const provider = createBedrockProvider({ model: MODEL, region: "us-east-1", baseURL: server.url, credentials: KEYS, retry: FAST_RETRY });
    const { events, message, stop } = await run(provider);
    expect(stop).toEqual({ reason: "error", complete: false });
    expect(message.content).toEqual([{ type: "text", text: "Partial answer" }]);
    const error = errorOf(events)!;
    expect(error.message).toContain("Too many tokens, please wait before trying again.");
    // Throttling, but content had arrived: not replayed behind the caller's back.
    expect(error).toMatchObject({ kind: "rate_limit", retryable: false });
    expect(server.requests()).toHaveLength(1);
  });

  it("a throttling exception before any content is retried", async () => {
    const server = await startBedrockServer({
      turns: [
        { content: [{ type: "text", text: "unsent" }], steps: [{ after: 0, error: { type: "throttlingException", message: "Too many requests" } }] },
        { content: [{ type: "text", text: "second try" }] },
      ],
    });
    const { events, message } = await run(createBedrockProvider({ model: MODEL, region: "us-east-1", baseURL: server.url, credentials: KEYS, retry: FAST_RETRY }));
    expect(events.find((e) => e.type === "retry")).toMatchObject({ error: { kind: "rate_limit" } });
    expect(message.content).toEqual([{ type: "text", text: "second try" }]);
  });

  it("a region that is not an AWS region fails at once, naming AWS_REGION", async () => {
    const server = await startBedrockServer({ turns: [] });
    const provider = createProvider({ env: { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "europe", ANTHROPIC_BEDROCK_BASE_URL: server.url, AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "b" }, retry: FAST_RETRY });
    const { events } = await run(provider);
    expect(errorOf(events)).toMatchObject({ kind: "auth", retryable: false, message: expect.stringContaining("set AWS_REGION") });
    expect(server.requests()).toHaveLength(0);
  });

  it("a region with no endpoint (no such host) is not retried and names AWS_REGION / CLOUD_ML_REGION", () => {
    const notFound = (host: string) => new APIConnectionError({ cause: Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" }) });
    const setup = resolveBedrockSetup({ AWS_REGION: "us-east-9" }, {});
    const bedrock = classifyBedrockError(notFound("bedrock-runtime.us-east-9.amazonaws.com"), { region: "us-east-9", server: bedrockServer(setup, undefined) }).error;
    expect(bedrock).toMatchObject({ kind: "connection", retryable: false });
    expect(bedrock.message).toBe(
      'Could not reach the model server: getaddrinfo ENOTFOUND bedrock-runtime.us-east-9.amazonaws.com (model server https://bedrock-runtime.us-east-9.amazonaws.com, for region us-east-9 (AWS_REGION)) — no Bedrock endpoint answers for region "us-east-9": set AWS_REGION to a region where Bedrock runs, e.g. us-east-1',
    );
    const vertex = classifyVertexError(notFound("mars-north1-aiplatform.googleapis.com"), { region: "mars-north1", model: "m" }).error;
    expect(vertex).toMatchObject({ kind: "connection", retryable: false, message: expect.stringContaining('set CLOUD_ML_REGION to a location that serves Claude') });
    // A gateway that cannot be reached is an ordinary, retried connection failure.
    expect(classifyBedrockError(notFound("gateway.internal"), { region: "us-east-1" }).error.retryable).toBe(true);
  });

  describe("with nothing for the AWS credential chain to find", () => {
    const saved = { ...process.env };
    afterEach(() => {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    });

    it("says which variables to set in one line, and sends nothing", async () => {
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-noaws-"));
      for (const key of Object.keys(process.env)) if (key.startsWith("AWS_")) delete process.env[key];
      // The chain reads process.env itself: point it at empty files and keep it off the instance metadata service.
      Object.assign(process.env, { AWS_SHARED_CREDENTIALS_FILE: path.join(empty, "credentials"), AWS_CONFIG_FILE: path.join(empty, "config"), AWS_EC2_METADATA_DISABLED: "true" });
      const server = await startBedrockServer({ turns: [] });
      const provider = createBedrockProvider({ model: MODEL, region: "us-east-1", baseURL: server.url, retry: FAST_RETRY });
      const { events, stop } = await run(provider);
      expect(stop.complete).toBe(false);
      const error = errorOf(events)!;
      expect(error).toMatchObject({ kind: "auth", retryable: false });
      expect(error.message).toMatch(/^No AWS credentials for Amazon Bedrock: set AWS_PROFILE .* AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY .* AWS_BEARER_TOKEN_BEDROCK/);
      expect(error.message).not.toContain("\n");
      expect(events.some((e) => e.type === "retry")).toBe(false);
      expect(server.requests()).toHaveLength(0);
    });
  });
});

describe("Bedrock selection", () => {
  const settings = (provider: Record<string, unknown>) => ({ provider });

  it("turns on with CLAUDE_CODE_USE_BEDROCK or TOOLGATE_USE_BEDROCK (1, true), not with 0; TOOLGATE_PROVIDER, --provider and settings as for the others", () => {
    expect(resolveProviderConfig({}, { CLAUDE_CODE_USE_BEDROCK: "1" }).provider).toBe("bedrock");
    expect(resolveProviderConfig({}, { TOOLGATE_USE_BEDROCK: "TRUE" }).provider).toBe("bedrock");
    expect(resolveProviderConfig({}, { CLAUDE_CODE_USE_BEDROCK: "0" }).provider).toBe("anthropic");
    expect(resolveProviderConfig({}, { CLAUDE_CODE_USE_BEDROCK: "1", CLAUDE_CODE_USE_VERTEX: "1" }).provider).toBe("bedrock");
    expect(resolveProviderConfig({}, { CLAUDE_CODE_USE_BEDROCK: "1", TOOLGATE_PROVIDER: "anthropic" }).provider).toBe("anthropic");
    expect(resolveProviderConfig({ provider: "openai" }, { CLAUDE_CODE_USE_BEDROCK: "1" }).provider).toBe("openai");
    expect(resolveProviderConfig({}, { TOOLGATE_PROVIDER: "bedrock" }).provider).toBe("bedrock");
    expect(resolveProviderConfig({}, {}, settings({ name: "bedrock" })).sources.provider).toBe("settings");
  });

  it("region: AWS_REGION, AWS_DEFAULT_REGION, settings, the profile's region in the AWS config file, then us-east-1", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-awscfg-"));
    const config = path.join(dir, "config");
    fs.writeFileSync(config, "[default]\nregion = ap-southeast-2\n\n[profile work]\nregion=eu-west-1 # Ireland\n");
    const region = (env: NodeJS.ProcessEnv, s = {}) => {
      const resolved = resolveProviderConfig({}, { TOOLGATE_PROVIDER: "bedrock", AWS_CONFIG_FILE: path.join(dir, "none"), ...env }, settings(s));
      return resolved.platform?.kind === "bedrock" ? [resolved.platform.region.value, resolved.platform.region.source, resolved.model] : undefined;
    };
    expect(region({ AWS_REGION: "us-west-2", AWS_DEFAULT_REGION: "eu-west-3" })).toEqual(["us-west-2", "AWS_REGION", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"]);
    expect(region({ AWS_DEFAULT_REGION: "eu-west-3" })).toEqual(["eu-west-3", "AWS_DEFAULT_REGION", "eu.anthropic.claude-sonnet-4-5-20250929-v1:0"]);
    expect(region({}, { region: "ca-central-1" })).toEqual(["ca-central-1", "settings provider.region", "global.anthropic.claude-sonnet-4-5-20250929-v1:0"]);
    expect(region({ AWS_CONFIG_FILE: config })).toEqual(["ap-southeast-2", `profile "default" in ${config}`, "apac.anthropic.claude-sonnet-4-5-20250929-v1:0"]);
    expect(region({ AWS_CONFIG_FILE: config, AWS_PROFILE: "work" })?.slice(0, 2)).toEqual(["eu-west-1", `profile "work" in ${config}`]);
    expect(region({})?.slice(0, 2)).toEqual(["us-east-1", "default"]);
    // ANTHROPIC_MODEL still chooses the model; the small model is the main one, as in Claude Code.
    const chosen = resolveProviderConfig({}, { CLAUDE_CODE_USE_BEDROCK: "1", ANTHROPIC_MODEL: "global.anthropic.claude-opus-4-5-20251101-v1:0" });
    expect([chosen.model, chosen.smallModel, chosen.sources.model]).toEqual(["global.anthropic.claude-opus-4-5-20251101-v1:0", "global.anthropic.claude-opus-4-5-20251101-v1:0", "env"]);
    expect(resolveProviderConfig({}, { CLAUDE_CODE_USE_BEDROCK: "1", AWS_BEARER_TOKEN_BEDROCK: "k" }).sources.apiKey).toBe("AWS_BEARER_TOKEN_BEDROCK");
  });
});
