/**
 * Local stand-ins for Amazon Bedrock and Google Vertex AI, on loopback, for the real SDK clients: each checks
 * the request as the platform would see it and records it, has the scripted model server (scripts/fake-model.mjs)
 * play the turn, and answers in the platform's framing. Bedrock streams AWS's binary eventstream (each message's
 * payload `{"bytes": base64(<Anthropic event JSON>)}`); Vertex streams the Anthropic SSE unchanged. The Vertex
 * stand-in also plays Google's OAuth token endpoint, checking the service account's RS256-signed JWT.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterEach } from "vitest";
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from "../../scripts/fake-model.mjs";

export interface CloudRequest {
  method: string;
  /** The path as sent, percent-encoding included. */
  rawPath: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, any>;
  rawBody: string;
}

export interface CloudServer {
  url: string;
  requests(): CloudRequest[];
  /** The scripted model server behind it (its requests carry the Anthropic-shaped body). */
  model: FakeModelServer;
  close(): Promise<void>;
}

const started: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

// ---- AWS eventstream ----

/**
 * One eventstream message: prelude (total length, headers length, CRC32 of those 8 bytes), headers (name
 * length, name, type 7 = string, value length, value), payload, CRC32 of everything before it.
 */
export function encodeEventStreamMessage(headers: Record<string, string>, payload: Buffer): Buffer {
  const headerBytes = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const n = Buffer.from(name, "utf8");
      const v = Buffer.from(value, "utf8");
      const out = Buffer.alloc(1 + n.length + 1 + 2 + v.length);
      out.writeUInt8(n.length, 0);
      n.copy(out, 1);
      out.writeUInt8(7, 1 + n.length);
      out.writeUInt16BE(v.length, 2 + n.length);
      v.copy(out, 4 + n.length);
      return out;
    }),
  );
  const total = 12 + headerBytes.length + payload.length + 4;
  const message = Buffer.alloc(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(headerBytes.length, 4);
  message.writeUInt32BE(zlib.crc32(message.subarray(0, 8)), 8);
  headerBytes.copy(message, 12);
  payload.copy(message, 12 + headerBytes.length);
  message.writeUInt32BE(zlib.crc32(message.subarray(0, total - 4)), total - 4);
  return message;
}

/** A Bedrock response-stream chunk carrying one Anthropic stream event. */
export function bedrockChunk(event: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify({ bytes: Buffer.from(JSON.stringify(event), "utf8").toString("base64") }), "utf8");
  return encodeEventStreamMessage({ ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" }, payload);
}

/** A Bedrock response-stream exception (throttlingException, modelStreamErrorException, …) with its message. */
export function bedrockException(exceptionType: string, message: string): Buffer {
  return encodeEventStreamMessage({ ":exception-type": exceptionType, ":content-type": "application/json", ":message-type": "exception" }, Buffer.from(JSON.stringify({ message }), "utf8"));
}

// ---- SigV4 ----

const sha256 = (data: string | Buffer) => crypto.createHash("sha256").update(data).digest("hex");
const hmac = (key: crypto.BinaryLike, data: string) => crypto.createHmac("sha256", key).update(data).digest();
const escapeUri = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export interface SigV4Check {
  ok: boolean;
  reason?: string;
  accessKeyId?: string;
  date?: string;
  region?: string;
  service?: string;
  signedHeaders?: string[];
}

/**
 * Recomputes the request's AWS Signature Version 4 with the secret key and compares it: the canonical request
 * (method, path escaped once more as non-S3 services do, query, signed headers, body hash), the string to sign
 * over the credential scope, and the key derived from the secret by date, region and service.
 */
export function verifySigV4(request: CloudRequest, secretAccessKey: string): SigV4Check {
  const auth = String(request.headers.authorization ?? "");
  const parsed = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth);
  if (!parsed) return { ok: false, reason: `not a SigV4 authorization header: ${auth}` };
  const [, accessKeyId, date, region, service, signed, signature] = parsed;
  const amzDate = String(request.headers["x-amz-date"] ?? "");
  if (!amzDate.startsWith(date)) return { ok: false, reason: `x-amz-date ${amzDate} is not of the scope's date ${date}` };
  const signedHeaders = signed.split(";");
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${String(request.headers[name] ?? "").trim().replace(/\s+/g, " ")}\n`).join("");
  const [pathname, query = ""] = request.rawPath.split("?");
  const canonicalQuery = query
    .split("&")
    .filter(Boolean)
    .map((pair) => pair.split("=").map((p) => escapeUri(decodeURIComponent(p))).join("="))
    .sort()
    .join("&");
  const payloadHash = String(request.headers["x-amz-content-sha256"] ?? sha256(request.rawBody));
  if (payloadHash !== sha256(request.rawBody)) return { ok: false, reason: "x-amz-content-sha256 is not the body's hash" };
  const canonicalRequest = [request.method, escapeUri(pathname).replace(/%2F/g, "/"), canonicalQuery, canonicalHeaders, signed, payloadHash].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonicalRequest)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), "aws4_request");
  const expected = crypto.createHmac("sha256", key).update(stringToSign).digest("hex");
  return { ok: expected === signature, ...(expected === signature ? {} : { reason: "the signature does not match" }), accessKeyId, date, region, service, signedHeaders };
}

// ---- the servers ----

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
}

async function listen(handler: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<import("node:net").Socket>();
  const server = http.createServer((req, res) => {
    handler(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { message: `test server: ${String((err as Error)?.stack ?? err)}` });
      else res.destroy();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as import("node:net").AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Forwards an Anthropic-shaped body to the scripted server; a non-200 answer is passed back as it came. */
async function playTurn(model: FakeModelServer, body: Record<string, unknown>, res: http.ServerResponse): Promise<Response | undefined> {
  const answer = await fetch(`${model.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (answer.status === 200) return answer;
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (name !== "content-length" && name !== "transfer-encoding" && name !== "connection" && name !== "date" && name !== "keep-alive") headers[name] = value;
  });
  res.writeHead(answer.status, headers);
  res.end(await answer.text());
  return undefined;
}

/** The `data:` JSON of each SSE event as the body streams in. */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split("\n").find((line) => line.startsWith("data: "));
      if (data) yield JSON.parse(data.slice(6));
    }
  }
}

/**
 * Bedrock's runtime API: `POST /model/<url-encoded id>/invoke-with-response-stream` with the Messages body less
 * `model` and `stream`, plus `anthropic_version`. Answers with the turn as an eventstream; anything else is 404.
 */
export async function startBedrockServer(script: FakeModelScript): Promise<CloudServer> {
  const model = await startFakeModelServer({ script });
  const requests: CloudRequest[] = [];
  const http = await listen(async (req, res) => {
    const rawBody = await readBody(req);
    const request: CloudRequest = { method: req.method ?? "", rawPath: req.url ?? "", headers: req.headers, body: rawBody ? JSON.parse(rawBody) : {}, rawBody };
    requests.push(request);
    const route = /^\/model\/([^/]+)\/invoke-with-response-stream$/.exec(request.rawPath);
    if (req.method !== "POST" || !route) return sendJson(res, 404, { message: `no Bedrock route for ${req.method} ${request.rawPath}` });
    const { anthropic_version: _version, ...rest } = request.body;
    const answer = await playTurn(model, { ...rest, model: decodeURIComponent(route[1]), stream: true }, res);
    if (!answer) return;
    res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": crypto.randomUUID() });
    for await (const event of sseEvents(answer.body!)) {
      const { type, error } = event as { type?: string; error?: { type?: string; message?: string } };
      if (type === "ping") continue;
      // A mid-stream failure (a script step's `error`) goes out as Bedrock sends one: an exception frame.
      if (type === "error") res.write(bedrockException(error?.type ?? "internalServerException", error?.message ?? ""));
      else res.write(bedrockChunk(event));
    }
    res.end();
  });
  const server: CloudServer = { url: http.url, requests: () => requests.slice(), model, close: async () => void (await Promise.all([http.close(), model.close()])) };
  started.push(server);
  return server;
}

export interface ServiceAccount {
  /** The key file, as GOOGLE_APPLICATION_CREDENTIALS names it. */
  file: string;
  clientEmail: string;
  projectId: string;
  publicKey: crypto.KeyObject;
}

/** A service-account key file with a fresh RSA key pair; `tokenUri` is written into it as Google's files carry one. */
export function makeServiceAccount(tokenUri: string, projectId = "sa-project"): ServiceAccount {
  const { privateKey, publicKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const clientEmail = `toolgate-test@${projectId}.iam.gserviceaccount.com`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-sa-"));
  const file = path.join(dir, "key.json");
  fs.writeFileSync(
    file,
    JSON.stringify({
      type: "service_account",
      project_id: projectId,
      private_key_id: crypto.randomBytes(20).toString("hex"),
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
      client_email: clientEmail,
      client_id: "1234567890",
      token_uri: tokenUri,
    }),
  );
  return { file, clientEmail, projectId, publicKey };
}

export interface TokenRequest {
  grantType: string;
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  /** Whether the JWT's RS256 signature verifies with the service account's public key. */
  signatureValid: boolean;
}

/**
 * Vertex AI's API under `/v1`: `POST …/projects/<p>/locations/<r>/publishers/anthropic/models/<m>:streamRawPredict`
 * with the Messages body less `model`, plus `anthropic_version`; answers with the turn's SSE. `POST /token` is
 * Google's OAuth token endpoint for the service account: a JWT-bearer grant whose assertion it checks.
 */
export async function startVertexServer(script: FakeModelScript, account?: ServiceAccount): Promise<CloudServer & { tokenRequests(): TokenRequest[]; accessToken: string }> {
  const model = await startFakeModelServer({ script });
  const requests: CloudRequest[] = [];
  const tokenRequests: TokenRequest[] = [];
  const accessToken = `ya29.test-${crypto.randomBytes(8).toString("hex")}`;
  const http = await listen(async (req, res) => {
    const rawBody = await readBody(req);
    if (req.method === "POST" && req.url === "/token") {
      const form = new URLSearchParams(rawBody);
      const [h = "", c = "", s = ""] = (form.get("assertion") ?? "").split(".");
      const decode = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>;
      const signatureValid = Boolean(account) && crypto.verify("RSA-SHA256", Buffer.from(`${h}.${c}`), account!.publicKey, Buffer.from(s, "base64url"));
      tokenRequests.push({ grantType: form.get("grant_type") ?? "", header: decode(h), claims: decode(c), signatureValid });
      if (!signatureValid) return sendJson(res, 400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
      return sendJson(res, 200, { access_token: accessToken, expires_in: 3600, token_type: "Bearer" });
    }
    const request: CloudRequest = { method: req.method ?? "", rawPath: req.url ?? "", headers: req.headers, body: rawBody ? JSON.parse(rawBody) : {}, rawBody };
    requests.push(request);
    const route = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):streamRawPredict$/.exec(request.rawPath);
    if (req.method !== "POST" || !route) return sendJson(res, 404, { error: { code: 404, message: `no Vertex route for ${req.method} ${request.rawPath}`, status: "NOT_FOUND" } });
    const { anthropic_version: _version, ...rest } = request.body;
    const answer = await playTurn(model, { ...rest, model: decodeURIComponent(route[3]), stream: true }, res);
    if (!answer) return;
    res.writeHead(200, { "content-type": "text/event-stream" });
    for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
    res.end();
  });
  const server = {
    url: http.url,
    requests: () => requests.slice(),
    tokenRequests: () => tokenRequests.slice(),
    accessToken,
    model,
    close: async () => void (await Promise.all([http.close(), model.close()])),
  };
  started.push(server);
  return server;
}
