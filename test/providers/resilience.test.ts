/**
 * Retries, the stall watchdog and abort, through the real SDK clients against the scripted server: a failure
 * before any content is retried (visibly), one after content ends the message as cut short, never replayed.
 */
import { describe, expect, it } from "vitest";
import { createAnthropicProvider } from "../../src/providers/index.js";
import { BOTH, FAST_RETRY, run, serve, types } from "./support.js";

const OK = { content: [{ type: "text" as const, text: "Recovered." }] };

describe.each(BOTH)("%s provider: resilience", (_name, at) => {
  it("1. 429 with retry-after is retried after the asked delay, and the retry is an event", async () => {
    const server = await serve({ turns: [{ status: 429, headers: { "retry-after": "0" } }, OK] });
    const { events, stop, message } = await run(at(server));
    expect(events.filter((e) => e.type === "retry")).toEqual([{ type: "retry", attempt: 1, attempts: expect.any(Number), delayMs: 0, reason: expect.any(String), error: expect.objectContaining({ kind: "rate_limit", status: 429, retryable: true }) }]);
    expect(stop).toEqual({ reason: "end_turn", complete: true });
    expect(message.content).toEqual([{ type: "text", text: "Recovered." }]);
    expect(server.requests()).toHaveLength(2);
    expect(types(events).filter((t) => t === "message_start")).toHaveLength(1);
  });

  it("2. retry-after-ms is honoured, and a long retry-after is capped", async () => {
    const server = await serve({ turns: [{ status: 503, headers: { "retry-after-ms": "15" } }, { status: 429, headers: { "retry-after": "3600" } }, OK] });
    const { events, stop } = await run(at(server, { ...FAST_RETRY, maxRetryAfterMs: 25 }));
    expect(events.filter((e) => e.type === "retry").map((e) => e.type === "retry" && [e.error.kind, e.delayMs])).toEqual([
      ["server", 15],
      ["rate_limit", 25],
    ]);
    expect(stop.complete).toBe(true);
  });

  it("3. 529 overloaded and 500 are retried with backoff", async () => {
    const server = await serve({ turns: [{ status: 529 }, { status: 500 }, OK] });
    const { events, stop } = await run(at(server));
    const retries = events.filter((e) => e.type === "retry");
    expect(retries.map((e) => e.type === "retry" && e.error.kind)).toEqual(["overloaded", "server"]);
    expect(retries.every((e) => e.type === "retry" && e.delayMs >= 0 && e.delayMs <= 5)).toBe(true);
    expect(stop.complete).toBe(true);
  });

  it("4. after the last retry the error is an event and the stream ends cut short", async () => {
    const server = await serve({ turns: [{ status: 503 }, { status: 503 }, { status: 503 }] });
    const { events, stop, errors } = await run(at(server, { ...FAST_RETRY, maxRetries: 2 }));
    expect(events.filter((e) => e.type === "retry")).toHaveLength(2);
    expect(errors).toEqual([expect.objectContaining({ kind: "server", status: 503 })]);
    expect(stop).toEqual({ reason: "error", complete: false });
    expect(events.at(-1)?.type).toBe("stop");
  });

  it.each([
    [401, "auth"],
    [400, "bad_request"],
  ])("5. HTTP %i is not retried (%s)", async (status, kind) => {
    const server = await serve({ turns: [{ status }, OK] });
    const { events, errors, stop } = await run(at(server));
    expect(events.some((e) => e.type === "retry")).toBe(false);
    expect(errors).toEqual([expect.objectContaining({ kind, status, retryable: false })]);
    expect(stop).toEqual({ reason: "error", complete: false });
    expect(server.requests()).toHaveLength(1);
  });

  it("6. a connection dropped before any content is retried", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "lost" }], steps: [{ after: 0, drop: true }] }, OK] });
    const { events, stop, message } = await run(at(server));
    expect(events.filter((e) => e.type === "retry").map((e) => e.type === "retry" && e.error.kind)).toEqual(["connection"]);
    expect(stop.complete).toBe(true);
    expect(message.content).toEqual([{ type: "text", text: "Recovered." }]);
  });

  it("7. a connection dropped after content ends the message cut short, with no silent replay", async () => {
    const server = await serve({
      turns: [
        { content: [{ type: "text", text: "Partial answer" }, { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/a" } }], steps: [{ after: 1, drop: true }] },
        OK,
      ],
    });
    const { events, stop, message, errors } = await run(at(server));
    expect(events.some((e) => e.type === "retry")).toBe(false);
    expect(server.requests()).toHaveLength(1);
    expect(errors).toEqual([expect.objectContaining({ kind: "connection", retryable: false })]);
    expect(stop).toEqual({ reason: "error", complete: false });
    // What arrived is kept for display; no tool_use without a completed input.
    expect(message.content).toEqual([{ type: "text", text: "Partial answer" }]);
  });

  it("8. an error mid-stream before content is retried; after content it ends the message", async () => {
    const overloaded = { type: "overloaded_error", message: "Overloaded" };
    const server = await serve({
      turns: [
        { content: [{ type: "text", text: "a" }], steps: [{ after: 0, error: overloaded }] },
        { content: [{ type: "text", text: "b" }, { type: "text", text: "c" }], steps: [{ after: 1, error: overloaded }] },
      ],
    });
    const { events, stop, errors } = await run(at(server));
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toMatch(/Overloaded/);
    expect(errors[0].retryable).toBe(false);
    expect(stop).toEqual({ reason: "error", complete: false });
  });

  it("9. the stall watchdog abandons a silent attempt and retries it", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "slow" }], steps: [{ after: 0, stallMs: 20_000 }] }, OK] });
    const { events, stop } = await run(at(server, { ...FAST_RETRY, stallMs: 300 }));
    expect(events.filter((e) => e.type === "retry").map((e) => e.type === "retry" && e.error.kind)).toEqual(["stall"]);
    expect(stop.complete).toBe(true);
  });

  it("10. a stall that outlasts the retries is a clear stall error", async () => {
    const stall = { content: [{ type: "text" as const, text: "slow" }], steps: [{ after: 0, stallMs: 20_000 }] };
    const server = await serve({ turns: [stall, stall] });
    const { errors, stop } = await run(at(server, { ...FAST_RETRY, maxRetries: 1, stallMs: 200 }));
    expect(errors).toEqual([expect.objectContaining({ kind: "stall", message: expect.stringMatching(/sent nothing/) })]);
    expect(stop).toEqual({ reason: "error", complete: false });
  });

  it("11. a stall after content is not retried", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "one" }, { type: "text", text: "two" }], steps: [{ after: 1, stallMs: 20_000 }] }, OK] });
    const { errors, stop, message } = await run(at(server, { ...FAST_RETRY, stallMs: 300 }));
    expect(errors).toEqual([expect.objectContaining({ kind: "stall", retryable: false })]);
    expect(stop.complete).toBe(false);
    expect(server.requests()).toHaveLength(1);
    expect(message.content[0]).toEqual({ type: "text", text: "one" });
  });

  it("12. abort mid-stream: the stream ends with aborted, so the caller knows it was cut short", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "abcdefghij" }], chunks: 10, delayMs: 200 }] });
    const controller = new AbortController();
    const events = [];
    for await (const event of at(server).stream({ model: "m", messages: [{ role: "user", content: "hi" }] }, controller.signal)) {
      events.push(event);
      if (event.type === "text_delta") controller.abort();
    }
    expect(events.at(-2)).toEqual({ type: "error", error: expect.objectContaining({ kind: "aborted" }) });
    expect(events.at(-1)).toEqual({ type: "stop", reason: "aborted", complete: false });
  });

  it("13. abort during the backoff sleep ends the wait at once", async () => {
    const server = await serve({ turns: [{ status: 429, headers: { "retry-after": "600" } }, OK] });
    const controller = new AbortController();
    const events = [];
    for await (const event of at(server, { ...FAST_RETRY, maxRetryAfterMs: 600_000 }).stream({ model: "m", messages: [{ role: "user", content: "hi" }] }, controller.signal)) {
      events.push(event);
      if (event.type === "retry") setTimeout(() => controller.abort(), 20);
    }
    expect(types(events)).toEqual(["retry", "error", "stop"]);
    expect(events.at(-1)).toEqual({ type: "stop", reason: "aborted", complete: false });
    expect(server.requests()).toHaveLength(1);
  });

  it("14. an already-aborted signal sends nothing", async () => {
    const server = await serve({ turns: [OK] });
    const { events } = await run(at(server), {}, AbortSignal.abort());
    expect(types(events)).toEqual(["error", "stop"]);
    expect(server.requests()).toHaveLength(0);
  });

  it("15. a server that is not there: connection errors, retried, then reported", async () => {
    const server = await serve({ turns: [] });
    const provider = at(server, { ...FAST_RETRY, maxRetries: 1 });
    await server.close();
    const { events, errors, stop } = await run(provider);
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
    expect(errors).toEqual([expect.objectContaining({ kind: "connection" })]);
    expect(stop).toEqual({ reason: "error", complete: false });
  });

  it("17. a 429 that stays after the retries reports the wait the server asked for, on the error and in its message", async () => {
    const server = await serve({ turns: [{ status: 429, headers: { "retry-after": "7" } }] });
    const { events, stop } = await run(at(server, { ...FAST_RETRY, maxRetries: 0 }));
    const errors = events.filter((e) => e.type === "error").map((e) => e.type === "error" && e.error);
    expect(errors).toEqual([expect.objectContaining({ kind: "rate_limit", status: 429, retryAfterMs: 7000, message: expect.stringContaining("(the server asked to wait: retry-after 7 s)") })]);
    expect(stop).toEqual({ reason: "error", complete: false });
  });
});

describe("anthropic provider without a key", () => {
  it("16. is an auth error event, not a throw, and sends nothing", async () => {
    const server = await serve({ turns: [OK] });
    const provider = createAnthropicProvider({ model: "m", baseURL: server.url, retry: FAST_RETRY });
    const { errors, stop } = await run(provider);
    expect(errors).toEqual([expect.objectContaining({ kind: "auth", retryable: false })]);
    expect(stop).toEqual({ reason: "error", complete: false });
    expect(server.requests()).toHaveLength(0);
  });
});
