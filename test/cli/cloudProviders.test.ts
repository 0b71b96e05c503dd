/**
 * The CLI on Claude through Amazon Bedrock and Google Vertex AI as a user runs it: `toolgate -p` with Claude
 * Code's variables against the local Bedrock stand-in (a tool call round trip, signed with a profile's keys),
 * the errors a user meets without credentials, doctor's report, and commands that never load the cloud SDKs.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { modelProviderCheck, webSearchCheck, type DoctorInput } from "../../src/cli/doctor.js";
import { cliArgs, repoRoot, withoutSandboxNotice } from "../cliCommand.js";
import { tempDir } from "../helpers.js";
import { makeServiceAccount, startBedrockServer, verifySigV4 } from "../providers/cloudServers.js";

vi.setConfig({ testTimeout: 120_000 });

const recordLoads = path.join(repoRoot, "test/ui/fixtures/recordLoads.mjs");

/** A process environment without the developer's own provider, AWS or Google settings. */
function cleanEnv(home: string, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(AWS_|ANTHROPIC_|OPENAI_|TOOLGATE_|CLAUDE_CODE_|GOOGLE_|GCLOUD_|CLOUD_ML_|CLOUDSDK_)/.test(key)) continue;
    env[key] = value;
  }
  return {
    ...env,
    HOME: home,
    TOOLGATE_HOME: path.join(home, ".toolgate"),
    TOOLGATE_MANAGED_SETTINGS: path.join(home, "managed.json"),
    AWS_EC2_METADATA_DISABLED: "true",
    METADATA_SERVER_DETECTION: "none",
    ...extra,
  };
}

/** Runs the CLI to its end; `loads` are the module URLs it loaded. */
function toolgate(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string; loads: string[] }> {
  const log = path.join(tempDir("tg-cloud-loads-"), "loads.txt");
  const child = spawn(process.execPath, ["--import", recordLoads, ...cliArgs, ...args], { cwd, env: { ...env, TOOLGATE_LOAD_LOG: log }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  return new Promise((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr, loads: fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean) : [] })),
  );
}

const loadsPackage = (loads: string[], name: string) => loads.some((url) => url.includes(`/node_modules/${name}/`));

describe("toolgate on Bedrock", () => {
  it("-p with CLAUDE_CODE_USE_BEDROCK and ANTHROPIC_BEDROCK_BASE_URL: a Read round trip, SigV4-signed with an AWS profile's keys", async () => {
    const cwd = tempDir("tg-cloud-cwd-");
    const home = tempDir("tg-cloud-home-");
    fs.writeFileSync(path.join(cwd, "notes.txt"), "ship it on Friday\n");
    // The profile is read by the AWS default chain inside the SDK, not by toolgate.
    fs.writeFileSync(path.join(home, "credentials"), "[work]\naws_access_key_id = AKIAPROFILEKEY\naws_secret_access_key = profile/secret+key\n");
    const server = await startBedrockServer({
      turns: [
        { content: [{ type: "text", text: "Reading." }, { type: "tool_use", id: "toolu_cli", name: "Read", input: { file_path: "notes.txt" } }], chunks: 2, usage: { input_tokens: 80, output_tokens: 10 } },
        { content: [{ type: "text", text: "The note says to ship it on Friday." }], usage: { input_tokens: 120, output_tokens: 9 } },
      ],
    });
    const env = cleanEnv(home, {
      CLAUDE_CODE_USE_BEDROCK: "1",
      AWS_REGION: "eu-west-1",
      ANTHROPIC_BEDROCK_BASE_URL: server.url,
      AWS_PROFILE: "work",
      AWS_SHARED_CREDENTIALS_FILE: path.join(home, "credentials"),
      AWS_CONFIG_FILE: path.join(home, "config"),
    });
    const run = await toolgate(["-p", "What does notes.txt say?", "--cwd", cwd, "--output-format", "stream-json", "--no-sandbox"], env, cwd);
    expect(withoutSandboxNotice(run.stderr)).toBe("");
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
    expect(lines[0]).toMatchObject({ type: "system", subtype: "init", model: "eu.anthropic.claude-sonnet-4-5-20250929-v1:0" });
    expect(lines.at(-1)).toMatchObject({ type: "result", subtype: "success", num_turns: 2, result: "The note says to ship it on Friday." });

    const requests = server.requests();
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      expect(request.rawPath).toBe("/model/eu.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream");
      expect(request.body.anthropic_version).toBe("bedrock-2023-05-31");
      expect(verifySigV4(request, "profile/secret+key")).toMatchObject({ ok: true, accessKeyId: "AKIAPROFILEKEY", region: "eu-west-1", service: "bedrock" });
    }
    const last = requests[1].body.messages.at(-1);
    expect(last.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_cli" });
    expect(JSON.stringify(last.content[0].content)).toContain("ship it on Friday");
    // WebSearch needs a backend Bedrock does not have: it is not offered.
    expect(lines[0].tools).not.toContain("WebSearch");
    expect(loadsPackage(run.loads, "@anthropic-ai/bedrock-sdk")).toBe(true);
    expect(loadsPackage(run.loads, "@anthropic-ai/vertex-sdk")).toBe(false);
  });

  it("without AWS credentials -p fails with one line naming the variables, exit 1", async () => {
    const cwd = tempDir("tg-cloud-cwd-");
    const home = tempDir("tg-cloud-home-");
    const server = await startBedrockServer({ turns: [] });
    const env = cleanEnv(home, { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1", ANTHROPIC_BEDROCK_BASE_URL: server.url, AWS_SHARED_CREDENTIALS_FILE: path.join(home, "none"), AWS_CONFIG_FILE: path.join(home, "none") });
    const run = await toolgate(["-p", "hello", "--cwd", cwd, "--no-sandbox"], env, cwd);
    expect(run.code).toBe(1);
    const output = withoutSandboxNotice(run.stdout + run.stderr).trim();
    expect(output.split("\n")).toHaveLength(1);
    expect(output).toMatch(/No AWS credentials for Amazon Bedrock: set AWS_PROFILE .*AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.*AWS_BEARER_TOKEN_BEDROCK/);
    expect(server.requests()).toHaveLength(0);
  });

  it("commands that never talk to a model do not load the Bedrock or Vertex SDK, even with them selected", async () => {
    const cwd = tempDir("tg-cloud-cwd-");
    const env = cleanEnv(tempDir("tg-cloud-home-"), { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1" });
    for (const args of [["--version"], ["exec", "--no-sandbox"]]) {
      const run = await toolgate(args, env, cwd);
      expect(run.code, run.stderr).toBe(0);
      for (const name of ["@anthropic-ai/bedrock-sdk", "@anthropic-ai/vertex-sdk", "@aws-sdk", "@smithy", "google-auth-library"]) expect(loadsPackage(run.loads, name), `${args[0]} loads ${name}`).toBe(false);
    }
  });
});

/** doctor's checks over a bare session: only its settings are read. */
function doctorInput(env: NodeJS.ProcessEnv, settings: Record<string, unknown> = {}): DoctorInput {
  return { env, session: { context: { options: { settings }, getAppState: () => ({}) } } } as unknown as DoctorInput;
}

describe("toolgate doctor on Bedrock and Vertex AI", () => {
  it("Bedrock: the switch, region, endpoint and credential source, never a secret", async () => {
    const env = { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "eu-central-1", AWS_ACCESS_KEY_ID: "AKIASECRETID", AWS_SECRET_ACCESS_KEY: "do-not-print-me", AWS_SESSION_TOKEN: "token-do-not-print", HOME: tempDir("tg-doc-") };
    const result = await modelProviderCheck.run(doctorInput(env));
    expect(result.status).toBe("ok");
    expect(result.lines).toEqual([
      "provider: bedrock (CLAUDE_CODE_USE_BEDROCK)",
      "model: eu.anthropic.claude-sonnet-4-5-20250929-v1:0 (default)",
      "small model (side questions such as WebFetch's): eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
      "region: eu-central-1 (AWS_REGION)",
      "endpoint: https://bedrock-runtime.eu-central-1.amazonaws.com (ANTHROPIC_BEDROCK_BASE_URL changes it)",
      "credentials: access key from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, with AWS_SESSION_TOKEN, SigV4-signed",
      'context window 200,000 tokens, max output 64,000 (table, "claude-sonnet-4")',
    ]);
    expect(JSON.stringify(result)).not.toMatch(/AKIASECRETID|do-not-print/);
    const search = await webSearchCheck.run({ ...doctorInput(env), mcpConfig: { servers: [], errors: [] } } as unknown as DoctorInput);
    expect(search.lines[0]).toMatch(/^WebSearch is off/);

    const nothing = await modelProviderCheck.run(doctorInput({ TOOLGATE_PROVIDER: "bedrock", HOME: tempDir("tg-doc-") }));
    expect(nothing.status).toBe("warn");
    expect(nothing.lines).toContain("region: us-east-1 (default; AWS_REGION changes it)");
    expect(nothing.lines.find((l) => l.startsWith("credentials:"))).toMatch(/^credentials: ! none found .* set AWS_PROFILE/);

    const home = tempDir("tg-doc-");
    fs.mkdirSync(path.join(home, ".aws"));
    fs.writeFileSync(path.join(home, ".aws", "credentials"), "[dev]\naws_access_key_id = AKIAINFILE\naws_secret_access_key = file-secret\n");
    const credentialsLine = async (profile: string) => (await modelProviderCheck.run(doctorInput({ CLAUDE_CODE_USE_BEDROCK: "1", AWS_PROFILE: profile, HOME: home }))).lines.find((l) => l.startsWith("credentials:"));
    expect(await credentialsLine("dev")).toBe(`credentials: profile "dev" (AWS_PROFILE) in ${path.join(home, ".aws", "credentials")}`);
    expect(await credentialsLine("prod")).toBe(`credentials: ! profile "prod" (AWS_PROFILE) is in neither ${path.join(home, ".aws", "config")} nor ${path.join(home, ".aws", "credentials")}`);
  });

  it("Vertex AI: location, project and its source, credentials file, never the key", async () => {
    const account = makeServiceAccount("http://127.0.0.1:9/token", "doctor-project");
    const env = { CLAUDE_CODE_USE_VERTEX: "1", CLOUD_ML_REGION: "global", GOOGLE_APPLICATION_CREDENTIALS: account.file, HOME: tempDir("tg-doc-") };
    const result = await modelProviderCheck.run(doctorInput(env));
    expect(result.status).toBe("ok");
    expect(result.lines.slice(0, 7)).toEqual([
      "provider: vertex (CLAUDE_CODE_USE_VERTEX)",
      "model: claude-sonnet-4-5@20250929 (default)",
      "small model (side questions such as WebFetch's): claude-haiku-4-5@20251001",
      "location: global (CLOUD_ML_REGION)",
      `project: doctor-project (${account.file})`,
      "endpoint: https://aiplatform.googleapis.com/v1 (ANTHROPIC_VERTEX_BASE_URL changes it)",
      `credentials: service-account key of ${account.clientEmail} in ${account.file} (GOOGLE_APPLICATION_CREDENTIALS)`,
    ]);
    expect(JSON.stringify(result)).not.toContain("PRIVATE KEY");
    const search = await webSearchCheck.run({ ...doctorInput(env), mcpConfig: { servers: [], errors: [] } } as unknown as DoctorInput);
    expect(search.lines[0]).toContain("Anthropic's web search on Vertex AI");

    const bare = await modelProviderCheck.run(doctorInput({ CLAUDE_CODE_USE_VERTEX: "1", HOME: tempDir("tg-doc-") }));
    expect(bare.status).toBe("warn");
    expect(bare.lines).toContain("location: us-east5 (default; CLOUD_ML_REGION changes it)");
    expect(bare.lines).toContain("project: ! none — set ANTHROPIC_VERTEX_PROJECT_ID");
    const gateway = await modelProviderCheck.run(doctorInput({ CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_VERTEX_BASE_URL: "https://gw.example/v1", CLAUDE_CODE_SKIP_VERTEX_AUTH: "1", ANTHROPIC_VERTEX_PROJECT_ID: "p", HOME: tempDir("tg-doc-") }));
    expect(gateway.lines).toContain("endpoint: https://gw.example/v1 (ANTHROPIC_VERTEX_BASE_URL)");
    expect(gateway.lines).toContain("credentials: none sent (CLAUDE_CODE_SKIP_VERTEX_AUTH: the gateway authenticates)");
  });
});
