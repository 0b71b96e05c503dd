#!/usr/bin/env node
/**
 * Builds test/fixtures/recorded/ from recordings that public projects keep in their repositories: VCR cassettes
 * (pydantic-ai, crewAI) and captured API chunks (Vercel AI SDK). Each recorded model-API exchange becomes one
 * envelope file; SOURCES.md is written from the same run.
 *
 *   node scripts/import-recordings.mjs [--mirror /work/.mirror] [--out test/fixtures/recorded]
 *
 * The sources are read from git snapshots of the repositories (`<mirror>/<owner>+<name>/repo`, bare); the commit
 * read is recorded in every envelope. Cassettes are YAML: python3 with PyYAML loads them, the same loader the
 * projects' own replays use, so a body is exactly the string the cassette holds (and, where a cassette keeps
 * only the parsed JSON of a body, exactly what that project's replay serves for it: `json.dumps` of it).
 * Nothing in a body is edited.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const mirror = option("--mirror", "/work/.mirror");
const outDir = path.resolve(root, option("--out", "test/fixtures/recorded"));

/** Bodies above this are left out (the corpus stays small); the pause_turn recordings are the one exception. */
const MAX_BODY = 80_000;
const MAX_PAUSE_TURN_BODY = 300_000;
/** A request body larger than this is not kept (a tool-result history or an inlined image). */
const MAX_REQUEST = 16_000;

const SOURCES = [
  {
    repo: "pydantic/pydantic-ai",
    license: "MIT",
    kind: "vcr",
    include: /^tests\/(models|providers|cassettes)\/.*cassettes\/.*\.yaml$/,
    exclude: /\/(test_google|test_bedrock|test_realtime|test_embeddings|test_temporal|test_dbos|test_prefect)\//,
    note: "VCR cassettes under tests/**/cassettes. Streamed bodies are stored as the raw text; JSON bodies as `parsed_body` (keys sorted, curly quotes and dashes folded to ASCII by the project's serializer), which this corpus serves as `json.dumps(parsed_body)`, as the project's own replay does.",
  },
  {
    repo: "crewAIInc/crewAI",
    license: "MIT",
    kind: "vcr",
    include: /^lib\/crewai\/tests\/cassettes\/.*\.yaml$/,
    note: "VCR cassettes under lib/crewai/tests/cassettes; response bodies stored as raw strings, so JSON bodies are the bytes the server sent.",
  },
  {
    repo: "vercel/ai",
    license: "Apache-2.0",
    kind: "vercel",
    note: "Captured API output under packages/*/src/**/__fixtures__: `*.chunks.txt` holds one SSE data payload per line (the SSE framing was stripped when it was captured; the replay server frames each line again), `*.json` the response document as the project stored it (pretty-printed), `*.sse` raw SSE text.",
    files: [
      // [path, api, server]
      ["packages/deepseek/src/chat/__fixtures__/deepseek-tool-call.chunks.txt", "openai-chat", "deepseek"],
      ["packages/deepseek/src/chat/__fixtures__/deepseek-tool-call.json", "openai-chat", "deepseek"],
      ["packages/deepseek/src/chat/__fixtures__/deepseek-reasoning.json", "openai-chat", "deepseek"],
      ["packages/deepseek/src/chat/__fixtures__/deepseek-text.json", "openai-chat", "deepseek"],
      ["packages/deepseek/src/chat/__fixtures__/deepseek-json.json", "openai-chat", "deepseek"],
      ["packages/deepseek/src/chat/__fixtures__/deepseek-reasoning.chunks.txt", "openai-chat", "deepseek"],
      ["packages/mistral/src/__fixtures__/mistral-reasoning.chunks.txt", "openai-chat", "mistral"],
      ["packages/mistral/src/__fixtures__/mistral-reasoning.json", "openai-chat", "mistral"],
      ["packages/mistral/src/__fixtures__/mistral-text.chunks.txt", "openai-chat", "mistral"],
      ["packages/mistral/src/__fixtures__/mistral-tool-call.chunks.txt", "openai-chat", "mistral"],
      ["packages/mistral/src/__fixtures__/mistral-tool-call.json", "openai-chat", "mistral"],
      ["packages/mistral/src/__fixtures__/mistral-incremental-tool-call.chunks.txt", "openai-chat", "mistral"],
      ["packages/groq/src/__fixtures__/groq-tool-call.chunks.txt", "openai-chat", "groq"],
      ["packages/groq/src/__fixtures__/groq-tool-call.json", "openai-chat", "groq"],
      ["packages/groq/src/__fixtures__/groq-reasoning.json", "openai-chat", "groq"],
      ["packages/xai/src/__fixtures__/xai-text.chunks.txt", "openai-chat", "xai"],
      ["packages/xai/src/__fixtures__/xai-tool-call.chunks.txt", "openai-chat", "xai"],
      ["packages/xai/src/__fixtures__/xai-tool-call.json", "openai-chat", "xai"],
      ["packages/moonshotai/src/__fixtures__/moonshotai-stream.chunks.txt", "openai-chat", "moonshotai"],
      ["packages/moonshotai/src/__fixtures__/moonshotai-reasoning.json", "openai-chat", "moonshotai"],
      ["packages/moonshotai/src/__fixtures__/moonshotai-tool-call.json", "openai-chat", "moonshotai"],
      ["packages/alibaba/src/__fixtures__/alibaba-tool-call.chunks.txt", "openai-chat", "alibaba"],
      ["packages/alibaba/src/__fixtures__/alibaba-tool-call.json", "openai-chat", "alibaba"],
      ["packages/perplexity/src/__fixtures__/perplexity-citations.chunks.txt", "openai-chat", "perplexity"],
      ["packages/openai/src/chat/__fixtures__/azure-model-router.1.chunks.txt", "openai-chat", "azure-openai"],
      ["packages/openai/src/chat/__fixtures__/openai-text.json", "openai-chat", "openai"],
      ["packages/openai/src/chat/__fixtures__/reasoning-model-legacy-parameter-error.json", "openai-chat", "openai"],
      ["packages/openai-compatible/src/chat/__fixtures__/anthropic-fallback-tool-call.sse", "openai-chat", "anthropic-openai-compat"],
      ["packages/anthropic/src/__fixtures__/anthropic-tool-no-args.chunks.txt", "anthropic-messages", "anthropic"],
      ["packages/anthropic/src/__fixtures__/anthropic-message-delta-input-tokens.chunks.txt", "anthropic-messages", "anthropic"],
      ["packages/anthropic/src/__fixtures__/anthropic-refusal.chunks.txt", "anthropic-messages", "anthropic"],
      ["packages/anthropic/src/__fixtures__/anthropic-refusal.json", "anthropic-messages", "anthropic"],
      ["packages/anthropic/src/__fixtures__/anthropic-web-fetch-tool.error.json", "anthropic-messages", "anthropic"],
      ["packages/anthropic/src/__fixtures__/anthropic-mcp.1.chunks.txt", "anthropic-messages", "anthropic"],
      ["packages/anthropic/src/__fixtures__/anthropic-clear-thinking.1.chunks.txt", "anthropic-messages", "anthropic"],
      ["packages/openai/src/responses/__fixtures__/openai-error.1.chunks.txt", "openai-responses", "openai"],
      ["packages/openai/src/responses/__fixtures__/openai-error.1.json", "openai-responses", "openai"],
      ["packages/openai/src/responses/__fixtures__/openai-reasoning-encrypted-content.1.chunks.txt", "openai-responses", "openai"],
      ["packages/openai/src/responses/__fixtures__/openai-reasoning-encrypted-content.1.json", "openai-responses", "openai"],
      ["packages/openai/src/responses/__fixtures__/openai-phase.1.chunks.txt", "openai-responses", "openai"],
      ["packages/openai/src/responses/__fixtures__/openai-client-tool-search.1.chunks.txt", "openai-responses", "openai"],
      ["packages/openai/src/responses/__fixtures__/reasoning-model-temperature-error.json", "openai-responses", "openai"],
      ["packages/open-responses/src/responses/__fixtures__/lmstudio-tool-call.1.chunks.txt", "openai-responses", "lmstudio"],
      ["packages/open-responses/src/responses/__fixtures__/lmstudio-tool-call.1.json", "openai-responses", "lmstudio"],
    ],
  },
];

/** Upstream files whose ids were visibly replaced by hand (the payloads look recorded, the ids do not). */
const EDITED_IDS = /Abcdefghij|_sanitized"/;

const SERVERS = [
  [/^api\.anthropic\.com$/, "anthropic"],
  [/^api\.openai\.com$/, "openai"],
  [/\.openai\.azure\.com$/, "azure-openai"],
  [/^api\.groq\.com$/, "groq"],
  [/^api\.mistral\.ai$/, "mistral"],
  [/^openrouter\.ai$/, "openrouter"],
  [/^api\.deepseek\.com$/, "deepseek"],
  [/^api\.cerebras\.ai$/, "cerebras"],
  [/^router\.huggingface\.co$/, "huggingface"],
  [/^generativelanguage\.googleapis\.com$/, "gemini-openai-compat"],
  [/^ollama\.com$|^localhost:11434$/, "ollama"],
  [/^api\.z\.ai$/, "zai"],
  [/crusoecloud\.com$/, "crusoe"],
  [/snowflakecomputing\.com$/, "snowflake"],
  [/^api\.x\.ai$/, "xai"],
  [/^bedrock-mantle\./, "bedrock-mantle"],
  [/^api\.together\.xyz$/, "together"],
  [/^api\.fireworks\.ai$/, "fireworks"],
  // pydantic-ai's gateway tests talk to a local instance of its gateway, which relays to the real APIs.
  [/^gateway\.pydantic\.dev$|pydantic\.dev$|^localhost:8787$/, "pydantic-gateway"],
  [/heroku/, "heroku"],
  [/^api\.moonshot\.ai$/, "moonshotai"],
];

function apiOf(pathname) {
  if (/\/messages$/.test(pathname)) return "anthropic-messages";
  if (/\/chat\/completions$/.test(pathname)) return "openai-chat";
  if (/\/responses$/.test(pathname)) return "openai-responses";
  return undefined;
}

function serverOf(host) {
  for (const [pattern, name] of SERVERS) if (pattern.test(host)) return name;
  return host.replace(/[^a-z0-9.-]/gi, "_");
}

const git = (dir, ...a) => execFileSync("git", ["-C", dir, ...a], { maxBuffer: 1 << 30 });

// ---------------------------------------------------------------------------------------------- reading cassettes

/** Loads cassettes with PyYAML, as the projects' replays do; each interaction's response body as served. */
const LOAD_CASSETTES = String.raw`
import gzip, json, sys, yaml
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
out = []
for path in sys.stdin.read().splitlines():
    doc = yaml.load(open(path, encoding="utf-8").read(), Loader=Loader) or {}
    items = []
    for it in doc.get("interactions") or []:
        req, res = it.get("request") or {}, it.get("response") or {}
        if "parsed_body" in req: request = req["parsed_body"]
        else:
            request = req.get("body")
            if isinstance(request, bytes):
                try: request = request.decode("utf-8")
                except UnicodeDecodeError: request = None
        headers = {k.lower(): (v[0] if isinstance(v, list) and v else v) for k, v in (res.get("headers") or {}).items()}
        if "parsed_body" in res:
            body, stored = json.dumps(res["parsed_body"]), "parsed_body"
        else:
            body = (res.get("body") or {}).get("string")
            stored = "string"
            if isinstance(body, bytes):
                if body[:2] == b"\x1f\x8b":
                    body, stored = gzip.decompress(body), "gzip"
                try: body = body.decode("utf-8")
                except UnicodeDecodeError: body, stored = None, "binary"
        items.append({"uri": req.get("uri"), "method": req.get("method"), "request": request,
                      "status": (res.get("status") or {}).get("code"), "headers": headers, "body": body, "stored": stored})
    out.append({"path": path, "interactions": items})
json.dump(out, sys.stdout)
`;

function readCassettes(repoDir, paths) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "recordings-"));
  try {
    const local = paths.map((p, i) => {
      const file = path.join(tmp, `${i}.yaml`);
      fs.writeFileSync(file, git(repoDir, "show", `HEAD:${p}`));
      return file;
    });
    const json = execFileSync("python3", ["-c", LOAD_CASSETTES], { input: local.join("\n"), maxBuffer: 1 << 30 });
    return JSON.parse(json.toString("utf8")).map((c, i) => ({ ...c, path: paths[i] }));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------- reading bodies

/** The JSON payloads of a body: SSE data lines, json-lines, or the one document. Unparseable data is skipped. */
function payloadsOf(body, format) {
  const parse = (text) => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };
  if (format === "json") {
    const doc = parse(body);
    return doc === undefined ? [] : [{ event: undefined, data: doc }];
  }
  if (format === "json-lines") return body.split("\n").filter((l) => l.trim()).flatMap((l) => (parse(l) === undefined ? [] : [{ event: undefined, data: parse(l) }]));
  const out = [];
  for (const block of body.replace(/\r\n/g, "\n").split(/\n\n+/)) {
    let event;
    const data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (!data.length) continue;
    const value = parse(data.join("\n"));
    if (value !== undefined) out.push({ event, data: value });
  }
  return out;
}

const REASONING_TAGS = new Set(["thinking", "reasoning-content", "reasoning-field", "reasoning-details"]);

function tagsFor(api, status, body, format) {
  const tags = new Set([format === "json" ? "non-streamed" : "streamed"]);
  if (status >= 400) tags.add("error-status");
  if (status === 429) tags.add("rate-limit");
  if (status === 529) tags.add("overloaded");
  const payloads = payloadsOf(body, format);
  if (api === "anthropic-messages") anthropicTags(payloads, status, tags);
  else if (api === "openai-chat") chatTags(payloads, status, tags);
  else responsesTags(payloads, status, tags);
  if (tags.has("tool-call") && [...REASONING_TAGS].some((t) => tags.has(t))) tags.add("reasoning-tool-turn");
  if (/"overloaded_error"/.test(body)) tags.add("overloaded");
  return [...tags].sort();
}

function anthropicTags(payloads, status, tags) {
  let tools = 0;
  const block = (b) => {
    if (!b || typeof b !== "object") return;
    if (b.type === "text" && (b.text || tags.has("streamed"))) tags.add("text");
    else if (b.type === "thinking") tags.add("thinking");
    else if (b.type === "redacted_thinking") tags.add("redacted-thinking");
    else if (b.type === "tool_use") tools++;
    else if (b.type === "server_tool_use" || b.type === "mcp_tool_use" || /_tool_result$/.test(String(b.type))) tags.add("server-tool");
  };
  const stop = (reason) => {
    if (reason === "pause_turn") tags.add("pause_turn");
    else if (reason === "max_tokens" || reason === "model_context_window_exceeded") tags.add("max-tokens");
    else if (reason === "stop_sequence") tags.add("stop-sequence");
    else if (reason === "refusal") tags.add("refusal");
  };
  for (const { event, data } of payloads) {
    if (data?.type === "error") tags.add(status >= 400 ? "error-body" : "mid-stream-error");
    else if (event === "error") tags.add("mid-stream-error");
    if (data?.type === "message") {
      for (const b of data.content ?? []) block(b);
      stop(data.stop_reason);
    } else if (data?.type === "content_block_start") block(data.content_block);
    else if (data?.type === "message_delta") stop(data.delta?.stop_reason);
  }
  if (tools) tags.add("tool-call");
  if (tools > 1) tags.add("parallel-tool-calls");
}

function chatTags(payloads, status, tags) {
  const calls = new Map();
  const message = (m, streamed) => {
    if (!m || typeof m !== "object") return;
    if (Array.isArray(m.content)) tags.add("content-parts");
    else if (typeof m.content === "string" && m.content) tags.add("text");
    if (typeof m.reasoning_content === "string" && m.reasoning_content) tags.add("reasoning-content");
    if (typeof m.reasoning === "string" && m.reasoning) tags.add("reasoning-field");
    if (Array.isArray(m.reasoning_details) && m.reasoning_details.length) tags.add("reasoning-details");
    if (typeof m.refusal === "string" && m.refusal) tags.add("refusal");
    for (const [position, c] of (Array.isArray(m.tool_calls) ? m.tool_calls : []).entries()) {
      const key = streamed ? (c.index ?? position) : position;
      const call = calls.get(key) ?? { id: undefined };
      if (c.id) call.id = c.id;
      calls.set(key, call);
    }
  };
  for (const { event, data } of payloads) {
    if (!data || typeof data !== "object") continue;
    if (data.error) tags.add(status >= 400 ? "error-body" : "mid-stream-error");
    else if (event === "error") tags.add("mid-stream-error");
    if (data.error?.metadata?.raw !== undefined) tags.add("error-metadata-raw");
    if (data.x_groq?.usage) tags.add("provider-usage");
    for (const choice of Array.isArray(data.choices) ? data.choices : []) {
      message(choice.message ?? choice.delta, !choice.message);
      if (choice.finish_reason === "length") tags.add("max-tokens");
      if (choice.finish_reason === "content_filter") tags.add("content-filter");
      if (choice.error) tags.add("mid-stream-error");
    }
  }
  if (calls.size) tags.add("tool-call");
  if (calls.size > 1) tags.add("parallel-tool-calls");
  if ([...calls.values()].some((c) => !c.id)) tags.add("tool-call-no-id");
}

function responsesTags(payloads, status, tags) {
  let calls = 0;
  const item = (it) => {
    if (!it || typeof it !== "object") return;
    if (it.type === "message") {
      for (const part of it.content ?? []) {
        if (part.type === "output_text" && part.text) tags.add("text");
        if (part.type === "refusal") tags.add("refusal");
      }
    } else if (it.type === "reasoning") tags.add("thinking");
    else if (it.type === "function_call" || it.type === "custom_tool_call") calls++;
    else if (/_call$/.test(String(it.type))) tags.add("server-tool");
  };
  for (const { data } of payloads) {
    if (!data || typeof data !== "object") continue;
    if (data.type === "error" || data.type === "response.failed") tags.add("mid-stream-error");
    if (data.error && status >= 400) tags.add("error-body");
    if (data.type === "response.output_item.done") item(data.item);
    if (data.object === "response") for (const it of data.output ?? []) item(it);
    const response = data.object === "response" ? data : data.response;
    if (response?.incomplete_details?.reason === "max_output_tokens") tags.add("max-tokens");
  }
  if (calls) tags.add("tool-call");
  if (calls > 1) tags.add("parallel-tool-calls");
}

// ---------------------------------------------------------------------------------------------- building envelopes

function requestOf(raw) {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
  }
  if (value === undefined || value === null) return { request: null };
  const size = JSON.stringify(value).length;
  return size <= MAX_REQUEST ? { request: value } : { request: null, requestOmitted: `${size} characters of request body left out` };
}

function slug(text) {
  return text
    .replace(/\.chunks\.txt$/, ".chunks")
    .replace(/\.(ya?ml|json|sse)$/, "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 110);
}

function vcrEnvelopes(source, commit, cassettes) {
  const out = [];
  for (const cassette of cassettes) {
    cassette.interactions.forEach((it, index) => {
      let url;
      try {
        url = new URL(it.uri);
      } catch {
        return;
      }
      const api = apiOf(url.pathname);
      if (!api || it.method !== "POST" || typeof it.body !== "string" || !it.body) return;
      // A demo endpoint that answers with a deliberately broken body is not a model server.
      if (/\.workers\.dev$/.test(url.host)) return;
      const contentType = String(it.headers["content-type"] ?? "");
      const format = contentType.startsWith("text/event-stream") ? "sse" : contentType.includes("json") ? "json" : undefined;
      if (!format) return;
      const headers = { "content-type": contentType };
      for (const name of ["retry-after", "retry-after-ms"]) if (it.headers[name] !== undefined) headers[name] = String(it.headers[name]);
      const { request, requestOmitted } = requestOf(it.request);
      out.push({
        file: `${slug(path.basename(cassette.path))}.${index}`,
        envelope: {
          source: {
            repo: source.repo,
            path: cassette.path,
            commit,
            license: source.license,
            interaction: index,
            fidelity: it.stored === "parsed_body" ? "reserialized" : "exact",
          },
          api,
          server: serverOf(url.host),
          model: String(request?.model ?? modelOf(it.body, format) ?? ""),
          request,
          ...(requestOmitted ? { requestOmitted } : {}),
          response: { status: it.status, headers, bodyFormat: format, body: it.body },
          tags: tagsFor(api, it.status, it.body, format),
        },
      });
    });
  }
  return out;
}

function modelOf(body, format) {
  for (const { data } of payloadsOf(body, format)) {
    const model = data?.model ?? data?.message?.model ?? data?.response?.model;
    if (typeof model === "string") return model;
  }
  return undefined;
}

function vercelEnvelopes(source, commit, repoDir) {
  return source.files.map(([file, api, server]) => {
    const body = git(repoDir, "show", `HEAD:${file}`).toString("utf8");
    const format = file.endsWith(".sse") ? "sse" : file.endsWith(".chunks.txt") ? "json-lines" : "json";
    const doc = format === "json" ? JSON.parse(body) : undefined;
    const status = doc?.error || doc?.type === "error" ? 400 : 200;
    const edited = EDITED_IDS.test(body);
    return {
      file: slug(path.basename(file)),
      envelope: {
        source: {
          repo: source.repo,
          path: file,
          commit,
          license: source.license,
          fidelity: format === "json-lines" ? "framing-stripped" : format === "json" ? "pretty-printed" : "exact",
        },
        api,
        server,
        model: String(modelOf(body, format) ?? ""),
        request: null,
        response: { status, headers: { "content-type": format === "json" ? "application/json" : "text/event-stream" }, bodyFormat: format, body },
        tags: tagsFor(api, status, body, format),
        ...(status !== 200 ? { notes: "The source stores the error document without its HTTP status; 400 is assumed (the API answers parameter errors with 400)." } : {}),
        ...(edited ? { notes: "The upstream file's ids were replaced by hand (placeholder ids); the rest reads as recorded output." } : {}),
      },
    };
  });
}

// ---------------------------------------------------------------------------------------------- selection

/** Tags that make a recording worth keeping whatever else it holds (Responses API: RARE_RESPONSES). */
const RARE = new Set([
  "content-parts",
  "reasoning-content",
  "reasoning-details",
  "reasoning-tool-turn",
  "redacted-thinking",
  "pause_turn",
  "provider-usage",
  "error-metadata-raw",
  "mid-stream-error",
  "rate-limit",
  "overloaded",
  "refusal",
  "content-filter",
  "max-tokens",
  "stop-sequence",
  "tool-call-no-id",
  "parallel-tool-calls",
  "server-tool",
]);
const RARE_RESPONSES = new Set(["mid-stream-error", "refusal", "max-tokens", "parallel-tool-calls"]);
/** How many recordings of one (api, server, streamed, tags) kind are kept, the rarer ones apart. */
const PER_KIND = 3;
const PER_KIND_RESPONSES = 2;
/** At most this many interactions of one cassette, so a long agent run does not fill the corpus. */
const PER_CASSETTE = 3;

function select(candidates) {
  const kept = [];
  const perKind = new Map();
  const perCassette = new Map();
  for (const c of candidates) {
    const e = c.envelope;
    const limit = e.tags.includes("pause_turn") ? MAX_PAUSE_TURN_BODY : MAX_BODY;
    if (Buffer.byteLength(e.response.body) > limit) continue;
    const cassette = `${e.source.repo}:${e.source.path}`;
    if ((perCassette.get(cassette) ?? 0) >= PER_CASSETTE) continue;
    const responses = e.api === "openai-responses";
    const rare = e.tags.some((t) => (responses ? RARE_RESPONSES : RARE).has(t));
    const kind = `${e.api}|${e.server}|${e.tags.join(",")}`;
    if (!rare && (perKind.get(kind) ?? 0) >= (responses ? PER_KIND_RESPONSES : PER_KIND)) continue;
    perKind.set(kind, (perKind.get(kind) ?? 0) + 1);
    perCassette.set(cassette, (perCassette.get(cassette) ?? 0) + 1);
    kept.push(c);
  }
  return kept;
}

// ---------------------------------------------------------------------------------------------- main

function main() {
  const all = [];
  const sourceRows = [];
  for (const source of SOURCES) {
    const repoDir = path.join(mirror, source.repo.replace("/", "+"), "repo");
    const commit = git(repoDir, "rev-parse", "HEAD").toString().trim();
    let candidates;
    if (source.kind === "vcr") {
      const paths = git(repoDir, "ls-tree", "-r", "--name-only", "HEAD")
        .toString()
        .split("\n")
        .filter((p) => source.include.test(p) && !(source.exclude?.test(p) ?? false))
        .filter((p) => {
          // Files the snapshot lacks (large blobs) are skipped.
          try {
            git(repoDir, "cat-file", "-e", `HEAD:${p}`);
            return true;
          } catch {
            return false;
          }
        })
        .sort();
      candidates = vcrEnvelopes(source, commit, readCassettes(repoDir, paths));
    } else candidates = vercelEnvelopes(source, commit, repoDir);
    const kept = source.kind === "vercel" ? candidates : select(candidates);
    all.push(...kept);
    sourceRows.push({ source, commit, kept });
  }

  fs.rmSync(outDir, { recursive: true, force: true });
  const used = new Set();
  for (const { file, envelope } of all) {
    let name = `${envelope.server}/${file}`;
    for (let n = 2; used.has(name); n++) name = `${envelope.server}/${file}-${n}`;
    used.add(name);
    const target = path.join(outDir, `${name}.json`);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, `${JSON.stringify(envelope, null, 2)}\n`);
  }
  fs.writeFileSync(path.join(outDir, "SOURCES.md"), sourcesMarkdown(sourceRows, all));
  const bytes = all.reduce((n, { envelope }) => n + Buffer.byteLength(JSON.stringify(envelope)), 0);
  console.log(`${all.length} recordings, ${(bytes / 1e6).toFixed(2)} MB, in ${path.relative(root, outDir)}`);
}

function sourcesMarkdown(rows, all) {
  const count = (pred) => all.filter(({ envelope }) => pred(envelope)).length;
  const apis = ["anthropic-messages", "openai-chat", "openai-responses"];
  const lines = [
    "# Recorded model-API traffic: where it came from",
    "",
    "Every file here is one request/response exchange recorded from a real model server and kept in a public",
    "repository's test suite under a permissive license. `scripts/import-recordings.mjs` wrote all of it (this page",
    "too); re-run it against newer snapshots to refresh. Bodies are never edited: a recording that toolgate misreads",
    "is marked in `test/providers/recordedCorpus.test.ts`, not changed.",
    "",
    "| repository | license | commit | paths | exchanges | anthropic-messages | openai-chat | openai-responses |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const { source, commit, kept } of rows) {
    const paths = source.kind === "vcr" ? `\`${source.include.source.replace(/\\\//g, "/").replace(/\|/g, "\\|")}\`` : `${source.files.length} files under \`packages/*/src/**/__fixtures__/\``;
    const by = (api) => kept.filter((k) => k.envelope.api === api).length;
    lines.push(`| [${source.repo}](https://github.com/${source.repo}) | ${source.license} | \`${commit.slice(0, 12)}\` | ${paths} | ${kept.length} | ${apis.map(by).join(" | ")} |`);
  }
  lines.push(`| **total** | | | | **${all.length}** | ${apis.map((api) => count((e) => e.api === api)).join(" | ")} |`, "");
  lines.push("## How each source was read", "");
  for (const { source } of rows) lines.push(`- **${source.repo}**: ${source.note}`);
  lines.push(
    "",
    "## The envelope",
    "",
    "```",
    "source    repo, path, commit, license, interaction (index in a cassette), fidelity",
    "api       anthropic-messages | openai-chat | openai-responses",
    "server    who answered (anthropic, openai, deepseek, openrouter, groq, mistral, ...)",
    "model     the model asked for (or named in the response)",
    "request   the recorded request body, or null (not recorded, or over 16 000 characters: requestOmitted says)",
    "response  status, headers (content-type, retry-after), bodyFormat (sse | json | json-lines), body",
    "tags      what the exchange shows (below), computed from the body by the import script",
    "notes     anything doubtful about the recording",
    "```",
    "",
    "`fidelity`: `exact` = the body text as the recording stores it; `reserialized` = the cassette kept only the parsed",
    "JSON and the body is `json.dumps` of it, byte for byte what that project's own replay serves; `framing-stripped` = one",
    "SSE data payload per line, the replay server adds `event:`/`data:` framing; `pretty-printed` = a JSON document as the",
    "project stored it.",
    "",
    "## Selection",
    "",
    `Bodies over ${MAX_BODY / 1000} kB are left out (pause_turn ones up to ${MAX_PAUSE_TURN_BODY / 1000} kB), at most ${PER_CASSETTE} exchanges are taken from one cassette, and`,
    `of ordinary exchanges (no rare tag) at most ${PER_KIND} of one kind (api, server, tags; ${PER_KIND_RESPONSES} for the Responses API). Native Gemini,`,
    "Bedrock, realtime and embedding traffic is not taken, nor a demo endpoint's deliberately broken answer (*.workers.dev).",
    "Vercel fixtures are listed one by one in the script; hand-made upstream fixtures",
    "(ids such as `msg_dup`, `resp_parallel`, `resp_custom_tool_test_001`, `capture-id-1`) were not taken.",
    "",
    "## Not found",
    "",
    "No recording of these from a real server was found in a permissively licensed repository, so the corpus has",
    "none (hand-written ones are not taken): an Anthropic 429 `rate_limit_error` or 529 `overloaded_error`, an",
    "Anthropic mid-stream `event: error`, an OpenAI-compatible `finish_reason: \"content_filter\"`, and a chat",
    "completion with a non-empty `refusal`. Rate limits and mid-stream errors are covered by OpenRouter (429 with",
    "`error.metadata.raw`), Groq (`event: error` after reasoning) and OpenRouter (an error chunk mid-stream).",
    "",
    "## Doubtful",
    "",
    "- `anthropic/anthropic-refusal*.json` (vercel/ai): the ids are placeholders (`msg_01Refusal…Abcdefghij`), so the",
    "  upstream file was edited at least there; the envelope says so in `notes`.",
    "- `anthropic-openai-compat/anthropic-fallback-tool-call.json` (vercel/ai): a live trace whose ids were sanitized",
    "  upstream (`msg_sanitized`, `created: 0`), as its commit message says.",
    "- vercel/ai error documents (`*-error.json`) are stored without their HTTP status; 400 is assumed.",
    "- `pydantic-gateway/*`: pydantic-ai's gateway tests recorded a local gateway that relays to the real APIs.",
    "- `snowflake/*`: the account host is a placeholder (`myorg-myaccount`), scrubbed upstream; the bodies read as real.",
    "",
    "## Tags",
    "",
    "| tag | recordings |",
    "| --- | --- |",
  );
  const tags = new Map();
  for (const { envelope } of all) for (const t of envelope.tags) tags.set(t, (tags.get(t) ?? 0) + 1);
  for (const [t, n] of [...tags].sort()) lines.push(`| ${t} | ${n} |`);
  lines.push("", "## Servers", "", "| server | anthropic-messages | openai-chat | openai-responses |", "| --- | --- | --- | --- |");
  for (const server of [...new Set(all.map(({ envelope }) => envelope.server))].sort()) {
    lines.push(`| ${server} | ${apis.map((api) => count((e) => e.server === server && e.api === api)).join(" | ")} |`);
  }
  return `${lines.join("\n")}\n`;
}

main();
