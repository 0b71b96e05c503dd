#!/usr/bin/env node
/**
 * A scripted model server on loopback: speaks the Anthropic Messages API (POST /v1/messages, SSE or JSON), OpenAI
 * chat completions (POST /v1/chat/completions, SSE chunks or JSON) and OpenAI's Responses API (POST /v1/responses,
 * SSE events or JSON), playing turns from a script in order.
 * Each model request consumes the next turn, whichever protocol asked. Every request body is recorded
 * (GET /requests) so a test can assert what the model was sent. The script format is documented in
 * docs/scripted-model.md.
 *
 *   node scripts/fake-model.mjs --script turns.json [--port N] [--host 127.0.0.1]
 *
 * prints the server's base URL (http://127.0.0.1:PORT) as its first stdout line, then serves until killed.
 * Tests import `startFakeModelServer` instead.
 */
import fs from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";

/** @param {{script: object, port?: number, host?: string}} options */
export async function startFakeModelServer({ script, port = 0, host = "127.0.0.1" }) {
  let current = checkScript(script);
  let cursor = 0;
  /** @type {object[]} */
  const requests = [];
  const sockets = new Set();

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) sendJson(res, 500, { error: { type: "fake_model_bug", message: String(error?.stack ?? error) } });
      else res.destroy();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(req, res) {
    const url = new URL(req.url ?? "/", "http://localhost");
    const body = await readBody(req);
    if (req.method === "GET" && url.pathname === "/requests") return sendJson(res, 200, requests);
    if (req.method === "DELETE" && url.pathname === "/requests") {
      requests.length = 0;
      return sendJson(res, 200, { cleared: true });
    }
    if (req.method === "PUT" && url.pathname === "/script") {
      try {
        current = checkScript(JSON.parse(body));
      } catch (error) {
        return sendJson(res, 400, { error: { type: "invalid_script", message: String(error?.message ?? error) } });
      }
      cursor = 0;
      requests.length = 0;
      return sendJson(res, 200, { turns: current.turns.length });
    }
    if (req.method === "GET" && url.pathname === "/health") return sendJson(res, 200, { ok: true, played: cursor, turns: current.turns.length });

    const protocol =
      req.method !== "POST"
        ? undefined
        : url.pathname.endsWith("/messages")
          ? "anthropic"
          : url.pathname.endsWith("/chat/completions")
            ? "openai"
            : url.pathname.endsWith("/responses")
              ? "openai-responses"
              : undefined;
    if (!protocol) return sendJson(res, 404, { error: { type: "not_found_error", message: `fake-model: no route for ${req.method} ${url.pathname}` } });

    let parsed;
    try {
      parsed = JSON.parse(body);
    } catch {
      return sendError(res, protocol, 400, "invalid_request_error", "fake-model: the request body is not JSON");
    }
    const index = cursor < current.turns.length ? cursor : current.loop && current.turns.length ? cursor % current.turns.length : -1;
    requests.push({ protocol, path: url.pathname, headers: req.headers, body: parsed, turn: index, receivedAt: Date.now() });
    if (index < 0) {
      return sendError(res, protocol, 400, "invalid_request_error", `fake-model: the script has no turn left (${current.turns.length} played)`);
    }
    cursor++;
    const turn = current.turns[index];
    if (turn.responseDelayMs) await sleep(turn.responseDelayMs, res);
    if (turn.status) {
      res.writeHead(turn.status, { "content-type": "application/json", ...(turn.headers ?? {}) });
      res.end(JSON.stringify(turn.body ?? defaultErrorBody(protocol, turn.status)));
      return;
    }
    const stream = parsed.stream === true;
    if (protocol === "anthropic") return stream ? streamAnthropic(res, turn, parsed) : sendJson(res, 200, anthropicMessage(turn, parsed));
    if (protocol === "openai-responses") return stream && !turn.responses?.json ? streamResponses(res, turn, parsed) : sendJson(res, 200, responsesObject(turn, parsed, "final"));
    return stream ? streamOpenAI(res, turn, parsed) : sendJson(res, 200, openaiCompletion(turn, parsed));
  }

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(undefined));
  });
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    port: address.port,
    url: `http://${host}:${address.port}`,
    requests: () => requests.slice(),
    played: () => cursor,
    setScript(next) {
      current = checkScript(next);
      cursor = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve(undefined));
      }),
  };
}

// ---- Anthropic Messages API ----

async function streamAnthropic(res, turn, request) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", ...(turn.headers ?? {}) });
  const send = (type, data) => write(res, `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const usage = turn.usage ?? {};
  const delay = turn.delayMs ?? 0;
  send("message_start", {
    message: {
      id: turn.id ?? `msg_fake_${Date.now().toString(36)}`,
      type: "message",
      role: "assistant",
      model: request.model ?? "fake-model",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input_tokens ?? 0,
        output_tokens: 1,
        cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
        cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
      },
    },
  });
  send("ping", {});
  const blocks = turn.content ?? [];
  if (!(await runSteps(turn, 0, res, (error) => send("error", { error })))) return;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i];
    const parts = (text) => split(text, block.chunks ?? turn.chunks ?? 1);
    if (block.type === "text") {
      send("content_block_start", { index: i, content_block: { type: "text", text: "" } });
      for (const text of parts(block.text)) {
        if (!(await pause(delay, res))) return;
        send("content_block_delta", { index: i, delta: { type: "text_delta", text } });
      }
    } else if (block.type === "thinking") {
      send("content_block_start", { index: i, content_block: { type: "thinking", thinking: "", signature: "" } });
      for (const thinking of parts(block.thinking)) {
        if (!(await pause(delay, res))) return;
        send("content_block_delta", { index: i, delta: { type: "thinking_delta", thinking } });
      }
      send("content_block_delta", { index: i, delta: { type: "signature_delta", signature: block.signature ?? `sig_${i}` } });
    } else if (block.type === "redacted_thinking") {
      send("content_block_start", { index: i, content_block: { type: "redacted_thinking", data: block.data ?? "" } });
    } else if (block.type === "tool_use") {
      send("content_block_start", { index: i, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      const json = block.rawInput ?? JSON.stringify(block.input ?? {});
      // `inputParts`: the input's deltas exactly as given (they must join to the input's JSON); `hold`: before
      // delta `beforePart`, wait for a file (a test proves what happened while the block was still open).
      const pieces = block.inputParts ?? parts(json);
      for (let k = 0; k < pieces.length; k++) {
        if (block.hold && (block.hold.beforePart ?? 0) === k && !(await runSteps({ steps: [{ ...block.hold, after: 0 }] }, 0, res, (error) => send("error", { error })))) return;
        if (!(await pause(delay, res))) return;
        send("content_block_delta", { index: i, delta: { type: "input_json_delta", partial_json: pieces[k] } });
      }
    }
    if (!(await pause(delay, res))) return;
    send("content_block_stop", { index: i });
    if (!(await runSteps(turn, i + 1, res, (error) => send("error", { error })))) return;
  }
  send("message_delta", { delta: { stop_reason: turn.stop_reason ?? defaultStopReason(blocks), stop_sequence: null }, usage: { output_tokens: usage.output_tokens ?? 0 } });
  send("message_stop", {});
  res.end();
}

function anthropicMessage(turn, request) {
  const usage = turn.usage ?? {};
  return {
    id: turn.id ?? `msg_fake_${Date.now().toString(36)}`,
    type: "message",
    role: "assistant",
    model: request.model ?? "fake-model",
    content: (turn.content ?? []).map((block) =>
      block.type === "thinking" ? { type: "thinking", thinking: block.thinking, signature: block.signature ?? "sig" } : block.type === "tool_use" ? { type: "tool_use", id: block.id, name: block.name, input: block.input ?? {} } : block,
    ),
    stop_reason: turn.stop_reason ?? defaultStopReason(turn.content ?? []),
    stop_sequence: null,
    usage: { input_tokens: usage.input_tokens ?? 0, output_tokens: usage.output_tokens ?? 0, cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0, cache_read_input_tokens: usage.cache_read_input_tokens ?? 0 },
  };
}

// ---- OpenAI chat completions ----

async function streamOpenAI(res, turn, request) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", ...(turn.headers ?? {}) });
  const quirks = turn.openai ?? {};
  const id = turn.id ?? `chatcmpl-fake${Date.now().toString(36)}`;
  const created = Math.floor(Date.now() / 1000);
  const model = request.model ?? "fake-model";
  const chunk = (delta, finish_reason = null) =>
    write(res, `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason }] })}\n\n`);
  const fail = (error) => write(res, `data: ${JSON.stringify({ error: { message: error.message, type: error.type, code: error.code ?? null } })}\n\n`);
  const delay = turn.delayMs ?? 0;
  const reasoningField = quirks.reasoningField ?? "reasoning_content";
  chunk({ role: "assistant", content: "" });
  const blocks = turn.content ?? [];
  if (!(await runSteps(turn, 0, res, fail))) return;
  let toolIndex = 0;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i];
    const parts = (text) => split(text, block.chunks ?? turn.chunks ?? 1);
    if (block.type === "text") {
      for (const content of parts(block.text)) {
        if (!(await pause(delay, res))) return;
        chunk({ content });
      }
    } else if (block.type === "thinking") {
      for (const text of parts(block.thinking)) {
        if (!(await pause(delay, res))) return;
        chunk({ [reasoningField]: text });
      }
    } else if (block.type === "tool_use") {
      const index = toolIndex++;
      const head = quirks.omitIds ? { index } : { index, id: block.id, type: "function" };
      if (quirks.argumentsAsObject) {
        if (!(await pause(delay, res))) return;
        chunk({ tool_calls: [{ ...head, function: { name: block.name, arguments: block.input ?? {} } }] });
      } else {
        const json = block.rawInput ?? JSON.stringify(block.input ?? {});
        if (quirks.oneChunk) {
          if (!(await pause(delay, res))) return;
          chunk({ tool_calls: [{ ...head, function: { name: block.name, arguments: json } }] });
        } else {
          chunk({ tool_calls: [{ ...head, function: { name: block.name, arguments: "" } }] });
          for (const args of parts(json)) {
            if (!(await pause(delay, res))) return;
            chunk({ tool_calls: [{ index, function: { arguments: args } }] });
          }
        }
      }
    }
    if (!(await runSteps(turn, i + 1, res, fail))) return;
  }
  const finish = "finishReason" in quirks ? quirks.finishReason : openaiFinishReason(turn, blocks);
  if (finish !== null) chunk({}, finish);
  if (request.stream_options?.include_usage) {
    const usage = turn.usage ?? {};
    const prompt = usage.input_tokens ?? 0;
    const completion = usage.output_tokens ?? 0;
    write(res, `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: usage.cache_read_input_tokens ?? 0 } } })}\n\n`);
  }
  write(res, "data: [DONE]\n\n");
  res.end();
}

function openaiCompletion(turn, request) {
  const blocks = turn.content ?? [];
  const quirks = turn.openai ?? {};
  const text = blocks.filter((b) => b.type === "text").map((b) => b.text).join("");
  const tools = blocks.filter((b) => b.type === "tool_use");
  const usage = turn.usage ?? {};
  return {
    id: turn.id ?? `chatcmpl-fake${Date.now().toString(36)}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: request.model ?? "fake-model",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text || null,
          ...(tools.length
            ? { tool_calls: tools.map((b) => ({ ...(quirks.omitIds ? {} : { id: b.id, type: "function" }), function: { name: b.name, arguments: quirks.argumentsAsObject ? (b.input ?? {}) : (b.rawInput ?? JSON.stringify(b.input ?? {})) } })) }
            : {}),
        },
        finish_reason: "finishReason" in quirks ? quirks.finishReason : openaiFinishReason(turn, blocks),
      },
    ],
    usage: { prompt_tokens: usage.input_tokens ?? 0, completion_tokens: usage.output_tokens ?? 0, total_tokens: (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) },
  };
}

function openaiFinishReason(turn, blocks) {
  const reason = turn.stop_reason ?? defaultStopReason(blocks);
  return { tool_use: "tool_calls", max_tokens: "length", end_turn: "stop", stop_sequence: "stop", refusal: "content_filter" }[reason] ?? "stop";
}

// ---- OpenAI Responses API ----

/**
 * The turn's blocks as output items: text → message (refusal parts when stop_reason is "refusal"), thinking →
 * reasoning with its signature as encrypted_content, tool_use → function_call, or custom_tool_call when the request
 * declared that tool as a custom one (the patch text is the input's first string value, or rawInput).
 */
function responsesItems(turn, request) {
  const custom = new Set((request.tools ?? []).filter((t) => t.type === "custom").map((t) => t.name));
  const refusal = turn.stop_reason === "refusal";
  return (turn.content ?? []).map((block, i) => {
    if (block.type === "text") return { id: `msg_fake_${i}`, type: "message", role: "assistant", status: "completed", content: [refusal ? { type: "refusal", refusal: block.text } : { type: "output_text", text: block.text, annotations: [] }] };
    if (block.type === "thinking") return { id: `rs_fake_${i}`, type: "reasoning", summary: block.thinking ? [{ type: "summary_text", text: block.thinking }] : [], encrypted_content: block.signature ?? `enc_fake_${i}` };
    if (block.type === "redacted_thinking") return { id: `rs_fake_${i}`, type: "reasoning", summary: [], encrypted_content: block.data ?? `enc_fake_${i}` };
    if (custom.has(block.name)) {
      const input = block.rawInput ?? Object.values(block.input ?? {}).find((v) => typeof v === "string") ?? "";
      return { id: `ctc_fake_${i}`, type: "custom_tool_call", status: "completed", call_id: block.id, name: block.name, input };
    }
    return { id: `fc_fake_${i}`, type: "function_call", status: "completed", call_id: block.id, name: block.name, arguments: block.rawInput ?? JSON.stringify(block.input ?? {}) };
  });
}

/** The response object; `stage` "start" has no output yet, "failed" carries the scripted error. */
function responsesObject(turn, request, stage, error) {
  const usage = turn.usage ?? {};
  const incomplete = turn.stop_reason === "max_tokens";
  const status = stage === "start" ? "in_progress" : stage === "failed" ? "failed" : incomplete ? "incomplete" : "completed";
  return {
    id: turn.id ?? `resp_fake_${Date.now().toString(36)}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: request.model ?? "fake-model",
    output: stage === "final" ? responsesItems(turn, request) : [],
    error: error ? { code: error.code ?? "server_error", message: error.message ?? "scripted failure" } : null,
    incomplete_details: stage === "final" && incomplete ? { reason: "max_output_tokens" } : null,
    instructions: request.instructions ?? null,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    store: request.store ?? true,
    usage:
      stage === "start"
        ? null
        : {
            input_tokens: (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0),
            input_tokens_details: { cached_tokens: usage.cache_read_input_tokens ?? 0 },
            output_tokens: usage.output_tokens ?? 0,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.output_tokens ?? 0),
          },
  };
}

async function streamResponses(res, turn, request) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", ...(turn.headers ?? {}) });
  let sequence = 0;
  const send = (type, data) => write(res, `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  // As OpenAI sends it: the error nested, not the flat shape its API reference shows.
  const fail = (error) => send("error", { error: { type: error.type, code: error.code ?? error.type ?? null, message: error.message, param: null } });
  const failed = (error) => send("response.failed", { response: responsesObject(turn, request, "failed", error) });
  const delay = turn.delayMs ?? 0;
  const started = responsesObject(turn, request, "start");
  send("response.created", { response: started });
  send("response.in_progress", { response: started });
  const items = responsesItems(turn, request);
  const blocks = turn.content ?? [];
  if (!(await runSteps(turn, 0, res, fail, failed))) return;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const parts = (text) => split(text, blocks[i].chunks ?? turn.chunks ?? 1);
    const at = { item_id: item.id, output_index: i };
    if (item.type === "message") {
      const part = item.content[0];
      send("response.output_item.added", { output_index: i, item: { ...item, status: "in_progress", content: [] } });
      send("response.content_part.added", { ...at, content_index: 0, part: part.type === "refusal" ? { type: "refusal", refusal: "" } : { type: "output_text", text: "", annotations: [] } });
      const whole = part.type === "refusal" ? part.refusal : part.text;
      for (const delta of parts(whole)) {
        if (!(await pause(delay, res))) return;
        if (part.type === "refusal") send("response.refusal.delta", { ...at, content_index: 0, delta });
        else send("response.output_text.delta", { ...at, content_index: 0, delta, logprobs: [] });
      }
      if (part.type === "refusal") send("response.refusal.done", { ...at, content_index: 0, refusal: whole });
      else send("response.output_text.done", { ...at, content_index: 0, text: whole, logprobs: [] });
      send("response.content_part.done", { ...at, content_index: 0, part });
    } else if (item.type === "reasoning") {
      send("response.output_item.added", { output_index: i, item: { id: item.id, type: "reasoning", summary: [] } });
      for (const [summary_index, summary] of item.summary.entries()) {
        send("response.reasoning_summary_part.added", { ...at, summary_index, part: { type: "summary_text", text: "" } });
        for (const delta of parts(summary.text)) {
          if (!(await pause(delay, res))) return;
          send("response.reasoning_summary_text.delta", { ...at, summary_index, delta });
        }
        send("response.reasoning_summary_text.done", { ...at, summary_index, text: summary.text });
        send("response.reasoning_summary_part.done", { ...at, summary_index, part: summary });
      }
    } else if (item.type === "function_call") {
      send("response.output_item.added", { output_index: i, item: { ...item, status: "in_progress", arguments: "" } });
      for (const delta of parts(item.arguments)) {
        if (!(await pause(delay, res))) return;
        send("response.function_call_arguments.delta", { ...at, delta });
      }
      send("response.function_call_arguments.done", { ...at, arguments: item.arguments });
    } else if (item.type === "custom_tool_call") {
      send("response.output_item.added", { output_index: i, item: { ...item, status: "in_progress", input: "" } });
      for (const delta of parts(item.input)) {
        if (!(await pause(delay, res))) return;
        send("response.custom_tool_call_input.delta", { ...at, delta });
      }
      send("response.custom_tool_call_input.done", { ...at, input: item.input });
    }
    if (!(await pause(delay, res))) return;
    send("response.output_item.done", { output_index: i, item });
    if (!(await runSteps(turn, i + 1, res, fail, failed))) return;
  }
  const final = responsesObject(turn, request, "final");
  send(final.status === "incomplete" ? "response.incomplete" : "response.completed", { response: final });
  res.end();
}

// ---- shared ----

/**
 * Runs the steps scripted after content block `after` (0 = before the first block). Returns false when the
 * response is over (an error was sent, the connection dropped or the client went away). `sendFailed` reports a
 * `failed` step (the Responses API's response.failed); the other protocols send it as an error.
 */
async function runSteps(turn, after, res, sendError, sendFailed = sendError) {
  for (const step of turn.steps ?? []) {
    if ((step.after ?? 0) !== after) continue;
    if (step.delayMs && !(await sleep(step.delayMs, res))) return false;
    if (step.stallMs && !(await sleep(step.stallMs, res))) return false;
    if (step.waitForFile) {
      const deadline = Date.now() + (step.timeoutMs ?? 10_000);
      while (!fs.existsSync(step.waitForFile)) {
        if (Date.now() > deadline) {
          sendError({ type: "api_error", message: `fake-model: waited ${step.timeoutMs ?? 10_000} ms for ${step.waitForFile}, which never appeared` });
          res.end();
          return false;
        }
        if (!(await sleep(20, res))) return false;
      }
    }
    if (step.error) {
      sendError({ type: step.error.type ?? "api_error", message: step.error.message ?? "scripted error", code: step.error.code });
      res.end();
      return false;
    }
    if (step.failed) {
      sendFailed({ type: "api_error", code: step.failed.code ?? "server_error", message: step.failed.message ?? "scripted failure" });
      res.end();
      return false;
    }
    if (step.drop) {
      // Let what was written reach the client first: the drop is meant to cut the stream after this block.
      await new Promise((resolve) => res.write("", () => resolve(undefined)));
      await sleep(10, res);
      res.socket?.destroy();
      return false;
    }
  }
  return !res.destroyed;
}

function defaultStopReason(blocks) {
  return blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
}

function defaultErrorBody(protocol, status) {
  const type = status === 429 ? "rate_limit_error" : status === 529 ? "overloaded_error" : status === 401 ? "authentication_error" : status >= 500 ? "api_error" : "invalid_request_error";
  const message = `fake-model: scripted HTTP ${status}`;
  return protocol === "anthropic" ? { type: "error", error: { type, message } } : { error: { message, type, code: null } };
}

function sendError(res, protocol, status, type, message) {
  sendJson(res, status, protocol === "anthropic" ? { type: "error", error: { type, message } } : { error: { message, type, code: null } });
}

function sendJson(res, status, value) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

function write(res, text) {
  if (!res.destroyed) res.write(text);
}

/** Splits text into `n` pieces of near-equal length without cutting a surrogate pair. */
function split(text, n) {
  const chars = Array.from(text ?? "");
  const count = Math.max(1, Math.min(n, chars.length || 1));
  const size = Math.ceil(chars.length / count) || 1;
  const out = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out.length ? out : [""];
}

function pause(ms, res) {
  return ms > 0 ? sleep(ms, res) : Promise.resolve(!res.destroyed);
}

/** Resolves true after `ms`, or false as soon as the client goes away. */
function sleep(ms, res) {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve(false);
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off("close", onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once("close", onClose);
  });
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const BLOCK_TYPES = new Set(["text", "thinking", "redacted_thinking", "tool_use"]);

/** Rejects a malformed script up front, naming the turn and field, so a typo is not a confusing stream later. */
function checkScript(script) {
  if (!script || typeof script !== "object" || !Array.isArray(script.turns)) throw new Error('a script is an object with a "turns" array');
  script.turns.forEach((turn, t) => {
    const where = `turns[${t}]`;
    if (!turn || typeof turn !== "object") throw new Error(`${where} is not an object`);
    if (turn.status !== undefined && (!Number.isInteger(turn.status) || turn.status < 100 || turn.status > 599)) throw new Error(`${where}.status must be an HTTP status code`);
    if (turn.content !== undefined && !Array.isArray(turn.content)) throw new Error(`${where}.content must be an array of blocks`);
    (turn.content ?? []).forEach((block, b) => {
      if (!BLOCK_TYPES.has(block?.type)) throw new Error(`${where}.content[${b}].type must be one of ${[...BLOCK_TYPES].join(", ")}`);
      if (block.type === "tool_use" && (typeof block.id !== "string" || typeof block.name !== "string")) throw new Error(`${where}.content[${b}] (tool_use) needs a string id and name`);
      if (block.type === "text" && typeof block.text !== "string") throw new Error(`${where}.content[${b}].text must be a string`);
      if (block.type === "thinking" && typeof block.thinking !== "string") throw new Error(`${where}.content[${b}].thinking must be a string`);
    });
    (turn.steps ?? []).forEach((step, s) => {
      const after = step?.after ?? 0;
      if (!Number.isInteger(after) || after < 0 || after > (turn.content ?? []).length) throw new Error(`${where}.steps[${s}].after must be a block count between 0 and ${(turn.content ?? []).length}`);
    });
  });
  return script;
}

function parseArgs(argv) {
  const options = { host: "127.0.0.1", port: 0, script: undefined };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "--script") options.script = value();
    else if (flag === "--port") options.port = Number(value());
    else if (flag === "--host") options.host = value();
    else if (flag === "--help" || flag === "-h") options.help = true;
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return options;
}

const isMain = process.argv[1] && fs.realpathSync(process.argv[1]) === fs.realpathSync(fileURLToPath(import.meta.url));
if (isMain) {
  try {
    const options = parseArgs(process.argv.slice(2));
    if (options.help || !options.script) {
      process.stderr.write("usage: fake-model.mjs --script turns.json [--port N] [--host 127.0.0.1]\n");
      process.exit(options.help ? 0 : 2);
    }
    if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) throw new Error(`--port must be 0-65535, got ${options.port}`);
    const script = JSON.parse(fs.readFileSync(options.script, "utf8"));
    const server = await startFakeModelServer({ script, port: options.port, host: options.host });
    process.stdout.write(`${server.url}\n`);
    const stop = () => server.close().then(() => process.exit(0));
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  } catch (error) {
    process.stderr.write(`fake-model: ${error?.message ?? error}\n`);
    process.exit(2);
  }
}
