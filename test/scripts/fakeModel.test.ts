/**
 * The scripted model server, spoken to over real loopback HTTP with fetch. The providers' tests drive the real
 * SDK clients against it; these pin the wire format each script feature produces.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from "../../scripts/fake-model.mjs";

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(script: FakeModelScript): Promise<FakeModelServer> {
  const server = await startFakeModelServer({ script });
  servers.push(server);
  return server;
}

interface SseEvent {
  event?: string;
  data: string;
}

/** Reads an SSE response into its events; `onEvent` sees each one as it arrives. */
async function readSse(res: Response, onEvent?: (e: SseEvent) => void): Promise<{ events: SseEvent[]; error?: unknown }> {
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const raw = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const e: SseEvent = { data: "" };
        for (const line of raw.split("\n")) {
          if (line.startsWith("event: ")) e.event = line.slice(7);
          else if (line.startsWith("data: ")) e.data += line.slice(6);
        }
        events.push(e);
        onEvent?.(e);
      }
    }
  } catch (error) {
    return { events, error };
  }
  return { events };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (res: Response): Promise<any> => res.json();

const post = (server: FakeModelServer, route: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${server.url}${route}`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer k" }, body: JSON.stringify(body), signal });

const toolTurn: FakeModelScript["turns"][number] = {
  content: [
    { type: "thinking", thinking: "I should read it", signature: "sig-1" },
    { type: "text", text: "Reading both." },
    { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "a.txt" } },
    { type: "tool_use", id: "toolu_2", name: "Grep", input: { pattern: "x|y" } },
  ],
  chunks: 3,
  usage: { input_tokens: 12, output_tokens: 34, cache_read_input_tokens: 5 },
};

describe("fake model server: Anthropic Messages SSE", () => {
  it("streams thinking, text and tool_use blocks with input split across input_json_delta events", async () => {
    const server = await serve({ turns: [toolTurn] });
    const res = await post(server, "/v1/messages", { model: "claude-x", stream: true, messages: [{ role: "user", content: "hi" }] });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const { events } = await readSse(res);
    const data = events.map((e) => ({ event: e.event, ...JSON.parse(e.data) }));
    expect(data.map((d) => d.type).filter((t) => t !== "content_block_delta")).toEqual([
      "message_start", "ping",
      "content_block_start", "content_block_stop",
      "content_block_start", "content_block_stop",
      "content_block_start", "content_block_stop",
      "content_block_start", "content_block_stop",
      "message_delta", "message_stop",
    ]);
    expect(data.every((d) => d.event === d.type)).toBe(true);
    expect(data[0].message).toMatchObject({ role: "assistant", model: "claude-x", usage: { input_tokens: 12, cache_read_input_tokens: 5 } });
    const deltas = (index: number, kind: string, field: string) =>
      data.filter((d) => d.type === "content_block_delta" && d.index === index && d.delta.type === kind).map((d) => d.delta[field]);
    expect(deltas(0, "thinking_delta", "thinking").join("")).toBe("I should read it");
    expect(deltas(0, "signature_delta", "signature")).toEqual(["sig-1"]);
    expect(deltas(1, "text_delta", "text").join("")).toBe("Reading both.");
    const input1 = deltas(2, "input_json_delta", "partial_json");
    expect(input1.length).toBe(3);
    expect(JSON.parse(input1.join(""))).toEqual({ file_path: "a.txt" });
    expect(JSON.parse(deltas(3, "input_json_delta", "partial_json").join(""))).toEqual({ pattern: "x|y" });
    expect(data.find((d) => d.type === "content_block_start" && d.index === 3).content_block).toEqual({ type: "tool_use", id: "toolu_2", name: "Grep", input: {} });
    expect(data.at(-2)).toMatchObject({ delta: { stop_reason: "tool_use" }, usage: { output_tokens: 34 } });
  });

  it("answers a non-streaming request with the whole message", async () => {
    const server = await serve({ turns: [toolTurn] });
    const res = await post(server, "/v1/messages", { model: "m", messages: [] });
    const message = await json(res);
    expect(message).toMatchObject({ type: "message", stop_reason: "tool_use", usage: { input_tokens: 12, output_tokens: 34 } });
    expect(message.content.map((b: { type: string }) => b.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    expect(message.content[2].input).toEqual({ file_path: "a.txt" });
  });

  it("plays HTTP error turns (429 with retry-after, 529 overloaded) and then the next turn", async () => {
    const server = await serve({ turns: [{ status: 429, headers: { "retry-after": "2" } }, { status: 529 }, { content: [{ type: "text", text: "ok" }] }] });
    const first = await post(server, "/v1/messages", { stream: true });
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("2");
    expect(await json(first)).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    const second = await post(server, "/v1/messages", { stream: true });
    expect(second.status).toBe(529);
    expect(await json(second)).toMatchObject({ error: { type: "overloaded_error" } });
    const third = await post(server, "/v1/messages", { stream: true });
    expect(third.status).toBe(200);
    expect((await readSse(third)).events.at(-1)?.event).toBe("message_stop");
  });

  it("sends an error event mid-stream and ends the response", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "par" }, { type: "text", text: "tial" }], steps: [{ after: 1, error: { type: "overloaded_error", message: "busy" } }] }] });
    const { events } = await readSse(await post(server, "/v1/messages", { stream: true }));
    expect(events.at(-1)).toMatchObject({ event: "error" });
    expect(JSON.parse(events.at(-1)!.data)).toEqual({ type: "error", error: { type: "overloaded_error", message: "busy" } });
    expect(events.some((e) => e.data.includes("tial"))).toBe(false);
  });

  it("drops the connection after a block: the client sees a network error, not message_stop", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }], steps: [{ after: 1, drop: true }] }] });
    const { events, error } = await readSse(await post(server, "/v1/messages", { stream: true }));
    expect(error).toBeDefined();
    expect(events.map((e) => e.event)).not.toContain("message_stop");
    expect(events.map((e) => e.event)).toContain("content_block_stop");
  });

  it("stalls until the client gives up, and the server notices the abort", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "a" }], steps: [{ after: 0, stallMs: 60_000 }] }, { content: [{ type: "text", text: "after" }] }] });
    const controller = new AbortController();
    const res = await post(server, "/v1/messages", { stream: true }, controller.signal);
    const seen: string[] = [];
    const reading = readSse(res, (e) => {
      seen.push(e.event ?? "");
      if (e.event === "ping") setTimeout(() => controller.abort(), 50);
    });
    const { error } = await reading;
    expect(error).toBeDefined();
    expect(seen).toEqual(["message_start", "ping"]);
    // The next request gets the next turn at once: the stalled one did not hold the server.
    const next = await readSse(await post(server, "/v1/messages", { stream: true }));
    expect(next.events.some((e) => e.data.includes('"after"'))).toBe(true);
  });

  it("holds the message open until a file exists, so a test can prove a tool ran while the model streamed", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fake-model-"));
    const flag = path.join(dir, "flag");
    const server = await serve({
      turns: [{ content: [{ type: "tool_use", id: "t1", name: "Write", input: { file_path: flag } }, { type: "text", text: "done" }], steps: [{ after: 1, waitForFile: flag, timeoutMs: 5_000 }] }],
    });
    const order: string[] = [];
    await readSse(await post(server, "/v1/messages", { stream: true }), (e) => {
      const d = JSON.parse(e.data);
      if (d.type === "content_block_stop" && d.index === 0) {
        order.push("tool block complete");
        setTimeout(() => {
          fs.writeFileSync(flag, "x");
          order.push("file written");
        }, 100);
      }
      if (d.type === "message_stop") order.push("message_stop");
    });
    expect(order).toEqual(["tool block complete", "file written", "message_stop"]);
  });

  it("fails the stream with a clear error when the awaited file never appears", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "x" }], steps: [{ after: 1, waitForFile: "/nonexistent/never", timeoutMs: 100 }] }] });
    const { events } = await readSse(await post(server, "/v1/messages", { stream: true }));
    expect(JSON.parse(events.at(-1)!.data).error.message).toMatch(/never appeared/);
  });
});

describe("fake model server: OpenAI chat completions", () => {
  it("streams text, reasoning and tool calls stitched by index, and a usage chunk when asked", async () => {
    const server = await serve({ turns: [toolTurn] });
    const res = await post(server, "/v1/chat/completions", { model: "gpt-x", stream: true, stream_options: { include_usage: true }, messages: [] });
    const { events } = await readSse(res);
    expect(events.at(-1)!.data).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    const deltas = chunks.flatMap((c) => c.choices.map((ch: { delta: unknown }) => ch.delta));
    expect(deltas.map((d) => d.reasoning_content ?? "").join("")).toBe("I should read it");
    expect(deltas.map((d) => d.content ?? "").join("")).toBe("Reading both.");
    const calls = deltas.flatMap((d) => d.tool_calls ?? []);
    expect(calls.filter((c) => c.id).map((c) => [c.index, c.id, c.type, c.function.name])).toEqual([
      [0, "toolu_1", "function", "Read"],
      [1, "toolu_2", "function", "Grep"],
    ]);
    for (const index of [0, 1]) {
      const args = calls.filter((c) => c.index === index).map((c) => c.function.arguments).join("");
      expect(JSON.parse(args)).toEqual(index === 0 ? { file_path: "a.txt" } : { pattern: "x|y" });
    }
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe("tool_calls");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 34, total_tokens: 46 } });
  });

  it("reproduces the quirks of local servers: arguments as an object, no ids, finish_reason stop or missing", async () => {
    const server = await serve({
      turns: [
        { content: [{ type: "tool_use", id: "ignored", name: "Read", input: { file_path: "a" } }], openai: { argumentsAsObject: true, omitIds: true, finishReason: "stop" } },
        { content: [{ type: "tool_use", id: "c1", name: "Read", input: { file_path: "b" } }], chunks: 4, openai: { oneChunk: true, finishReason: null } },
      ],
    });
    const first = (await readSse(await post(server, "/chat/completions", { stream: true }))).events.slice(0, -1).map((e) => JSON.parse(e.data));
    const call = first.flatMap((c) => c.choices[0].delta.tool_calls ?? [])[0];
    expect(call).toEqual({ index: 0, function: { name: "Read", arguments: { file_path: "a" } } });
    expect(first.at(-1).choices[0].finish_reason).toBe("stop");
    const second = (await readSse(await post(server, "/v1/chat/completions", { stream: true }))).events.slice(0, -1).map((e) => JSON.parse(e.data));
    const calls = second.flatMap((c) => c.choices[0].delta.tool_calls ?? []);
    expect(calls).toEqual([{ index: 0, id: "c1", type: "function", function: { name: "Read", arguments: '{"file_path":"b"}' } }]);
    expect(second.every((c) => c.choices[0].finish_reason === null)).toBe(true);
  });

  it("sends a mid-stream error as a data line with an error object", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "a" }], steps: [{ after: 1, error: { type: "server_error", message: "boom" } }] }] });
    const { events } = await readSse(await post(server, "/v1/chat/completions", { stream: true }));
    expect(JSON.parse(events.at(-1)!.data)).toEqual({ error: { message: "boom", type: "server_error", code: null } });
  });

  it("answers a non-streaming request with a whole completion", async () => {
    const server = await serve({ turns: [toolTurn] });
    const body = await json(await post(server, "/v1/chat/completions", { model: "m", messages: [] }));
    expect(body.choices[0]).toMatchObject({ finish_reason: "tool_calls", message: { role: "assistant", content: "Reading both." } });
    expect(body.choices[0].message.tool_calls[1]).toEqual({ id: "toolu_2", type: "function", function: { name: "Grep", arguments: '{"pattern":"x|y"}' } });
  });
});

describe("fake model server: requests, script control, CLI", () => {
  it("records every request body with the turn that answered it, across both protocols", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "1" }] }, { content: [{ type: "text", text: "2" }] }] });
    await json(await post(server, "/v1/messages", { model: "a", messages: [{ role: "user", content: "first" }] }));
    await json(await post(server, "/v1/chat/completions", { model: "b", messages: [{ role: "user", content: "second" }] }));
    const exhausted = await post(server, "/v1/messages", { model: "c" });
    expect(exhausted.status).toBe(400);
    expect((await json(exhausted)).error.message).toMatch(/no turn left \(2 played\)/);
    const recorded = await json(await fetch(`${server.url}/requests`));
    expect(recorded.map((r: { protocol: string; turn: number; body: { model: string } }) => [r.protocol, r.turn, r.body.model])).toEqual([
      ["anthropic", 0, "a"],
      ["openai", 1, "b"],
      ["anthropic", -1, "c"],
    ]);
    expect(recorded[0].headers.authorization).toBe("Bearer k");
  });

  it("loops a script when asked, and a new script can be loaded over HTTP", async () => {
    const server = await serve({ loop: true, turns: [{ content: [{ type: "text", text: "again" }] }] });
    for (let i = 0; i < 3; i++) expect((await json(await post(server, "/v1/messages", {}))).content[0].text).toBe("again");
    const bad = await fetch(`${server.url}/script`, { method: "PUT", body: JSON.stringify({ turns: [{ content: [{ type: "tool_use", name: "X" }] }] }) });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.message).toMatch(/turns\[0\]\.content\[0\] \(tool_use\) needs a string id and name/);
    const ok = await fetch(`${server.url}/script`, { method: "PUT", body: JSON.stringify({ turns: [{ content: [{ type: "text", text: "new" }] }] }) });
    expect(await json(ok)).toEqual({ turns: 1 });
    expect((await json(await post(server, "/v1/messages", {}))).content[0].text).toBe("new");
  });

  it("rejects a malformed script at start", async () => {
    await expect(startFakeModelServer({ script: { turns: [{ steps: [{ after: 3 }] }] } as FakeModelScript })).rejects.toThrow(/steps\[0\]\.after/);
  });

  it("runs as a CLI that prints its base URL first and serves the script file", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fake-model-cli-"));
    const file = path.join(dir, "turns.json");
    fs.writeFileSync(file, JSON.stringify({ turns: [{ content: [{ type: "text", text: "from the file" }] }] }));
    const child = spawn(process.execPath, [path.resolve("scripts/fake-model.mjs"), "--script", file, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d) => {
          out += d;
          if (out.includes("\n")) resolve(out.split("\n")[0]);
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${url}/v1/messages`, { method: "POST", body: JSON.stringify({ model: "m" }) });
      expect((await json(res)).content[0].text).toBe("from the file");
    } finally {
      child.kill("SIGTERM");
    }
    const bad = spawn(process.execPath, [path.resolve("scripts/fake-model.mjs"), "--script", path.join(dir, "missing.json")], { stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    bad.stderr.on("data", (d) => (err += d));
    const code = await new Promise((resolve) => bad.once("exit", resolve));
    expect(code).toBe(2);
    expect(err).toMatch(/^fake-model: ENOENT/);
  });
});
