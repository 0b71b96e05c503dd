/**
 * One resilience policy for every provider (the SDKs' own retries are off): retry with exponential backoff and
 * jitter on 429/5xx/529 and on dropped connections, but only while nothing of the message was yielded — after
 * that, a failure ends the message as cut short, never a silent replay. A stall watchdog aborts an attempt that
 * sends nothing for `stallMs`. One AbortSignal stops everything, the backoff sleep included.
 */
import type { ProviderError, ProviderEvent } from "./events.js";

export interface RetryOptions {
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  /** First backoff delay; doubled per retry, ±25 % jitter (default 500 ms). */
  baseDelayMs?: number;
  /** Largest backoff delay (default 32 s). */
  maxDelayMs?: number;
  /** Largest wait a `retry-after` header may ask for (default 60 s); longer asks are cut to it. */
  maxRetryAfterMs?: number;
  /** No event for this long aborts the attempt (default 90 s; `TOOLGATE_STREAM_IDLE_TIMEOUT_MS`). */
  stallMs?: number;
}

/** What an attempt throws when the transport failed; providers turn SDK errors into this. */
export class ProviderFailure extends Error {
  constructor(
    readonly error: ProviderError,
    /** Milliseconds the server asked to wait (retry-after / retry-after-ms). */
    readonly retryAfterMs?: number,
  ) {
    super(error.message);
  }
}

/** One attempt: yields events, ends with `stop` on success, throws on failure (or returns early if aborted). */
export type Attempt = (signal: AbortSignal) => AsyncIterable<ProviderEvent>;

export type ErrorClassifier = (err: unknown) => ProviderFailure;

const DEFAULTS = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 32_000, maxRetryAfterMs: 60_000, stallMs: 90_000 };

/** `TOOLGATE_STREAM_IDLE_TIMEOUT_MS` and `TOOLGATE_MAX_RETRIES` (0-10: how many times a failed request is tried again). */
export function retryOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): RetryOptions {
  const stall = Number(env.TOOLGATE_STREAM_IDLE_TIMEOUT_MS);
  const retries = env.TOOLGATE_MAX_RETRIES?.trim() ? Number(env.TOOLGATE_MAX_RETRIES) : NaN;
  return {
    ...(Number.isFinite(stall) && stall > 0 ? { stallMs: stall } : {}),
    ...(Number.isInteger(retries) && retries >= 0 && retries <= 10 ? { maxRetries: retries } : {}),
  };
}

export async function* withRetry(attempt: Attempt, classify: ErrorClassifier, options: RetryOptions = {}, signal?: AbortSignal): AsyncGenerator<ProviderEvent> {
  const o = { ...DEFAULTS, ...definedOnly(options) };
  for (let n = 0; ; n++) {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    // message_start is held back until content follows, so a retried attempt does not announce a second message.
    let heldStart: ProviderEvent | undefined;
    let yieldedContent = false;
    let stopped = false;
    let iterator: AsyncIterator<ProviderEvent> | undefined;
    // The watchdog aborts the attempt, which ends the SDK's iteration; one timer re-armed per event (a timer
    // and a Promise.race per event cost ~3 µs each, measured over 200 000 synthetic events).
    let stalled = false;
    const watchdog = setTimeout(() => {
      stalled = true;
      controller.abort();
    }, o.stallMs);
    try {
      if (signal?.aborted) throw aborted();
      iterator = attempt(controller.signal)[Symbol.asyncIterator]();
      for (;;) {
        const next = await iterator.next();
        if (stalled) throw stallFailure(o.stallMs);
        if (signal?.aborted) throw aborted();
        watchdog.refresh();
        if (next.done) break;
        const event = next.value;
        if (event.type === "message_start" && !yieldedContent) {
          heldStart = event;
          continue;
        }
        if (heldStart) {
          yield heldStart;
          heldStart = undefined;
        }
        yieldedContent = true;
        yield event;
        if (event.type === "stop") {
          stopped = true;
          break;
        }
      }
      // Both SDKs end the iteration silently on abort: the signal, not the loop, says whether it was complete.
      if (signal?.aborted) throw aborted();
      if (!stopped) throw new ProviderFailure({ kind: "connection", retryable: true, message: "The connection to the model server ended before the message was complete." });
      return;
    } catch (err) {
      const failure = signal?.aborted ? aborted() : stalled ? stallFailure(o.stallMs) : err instanceof ProviderFailure ? err : classify(err);
      const { error } = failure;
      if (!yieldedContent && error.retryable && n < o.maxRetries && !signal?.aborted) {
        const delayMs = retryDelay(n, failure.retryAfterMs, o);
        yield { type: "retry", attempt: n + 1, attempts: o.maxRetries + 1, delayMs, reason: error.message, error };
        if (await sleep(delayMs, signal)) continue;
      }
      // Once content was yielded the caller has a partial message: it must not be replayed behind its back.
      const final = signal?.aborted ? aborted().error : withRetryAfter({ ...error, retryable: error.retryable && !yieldedContent }, failure.retryAfterMs);
      if (heldStart) yield heldStart;
      yield { type: "error", error: final };
      yield { type: "stop", reason: final.kind === "aborted" ? "aborted" : "error", complete: false };
      return;
    } finally {
      clearTimeout(watchdog);
      signal?.removeEventListener("abort", onAbort);
      controller.abort();
      // Let the attempt release its connection; it may still be waiting on a stalled socket, so do not await it.
      void iterator?.return?.()?.catch?.(() => {});
    }
  }
}

/** The wait the server asked for, on the error and in its message (a fleet worker reads it there to pause its queue). */
function withRetryAfter(error: ProviderError, retryAfterMs: number | undefined): ProviderError {
  if (retryAfterMs === undefined || retryAfterMs < 0) return error;
  return { ...error, retryAfterMs, message: `${error.message} (the server asked to wait: retry-after ${Math.ceil(retryAfterMs / 1000)} s)` };
}

function stallFailure(stallMs: number): ProviderFailure {
  return new ProviderFailure({ kind: "stall", retryable: true, message: `The model server sent nothing for ${stallMs >= 1000 ? `${Math.round(stallMs / 1000)} s` : `${stallMs} ms`}; the request was abandoned.` });
}

function aborted(): ProviderFailure {
  return new ProviderFailure({ kind: "aborted", retryable: false, message: "The request was aborted." });
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function retryDelay(retry: number, retryAfterMs: number | undefined, o: Pick<typeof DEFAULTS, "baseDelayMs" | "maxDelayMs" | "maxRetryAfterMs">): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) return Math.min(retryAfterMs, o.maxRetryAfterMs);
  const base = Math.min(o.baseDelayMs * 2 ** retry, o.maxDelayMs);
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined): number | undefined {
  const ms = Number(headers?.get("retry-after-ms") ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Resolves true after `ms`, or false at once when the signal aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Error kinds by HTTP status; `errorType` is the body's error type where the API has one (Anthropic). */
export function classifyStatus(status: number | undefined, errorType?: string): Pick<ProviderError, "kind" | "retryable"> {
  if (errorType === "overloaded_error" || status === 529) return { kind: "overloaded", retryable: true };
  if (errorType === "rate_limit_error" || status === 429) return { kind: "rate_limit", retryable: true };
  if (errorType === "api_error" || (status !== undefined && status >= 500)) return { kind: "server", retryable: true };
  if (status === 408 || status === 409) return { kind: "server", retryable: true };
  if (status === 401 || status === 403 || errorType === "authentication_error" || errorType === "permission_error") return { kind: "auth", retryable: false };
  if (status !== undefined && status >= 400) return { kind: "bad_request", retryable: false };
  return { kind: "unknown", retryable: false };
}

/** The Anthropic SDK found no credential (the OpenAI provider always sends one; its server answers 401). */
export const NO_ANTHROPIC_KEY =
  "No API key for Anthropic: set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a proxy or a compatible server), or use an OpenAI-compatible server with OPENAI_BASE_URL and OPENAI_API_KEY (TOOLGATE_PROVIDER=openai). `toolgate doctor` shows what is set.";

/** Adds where the model server is, and which setting said so, to a failure to reach it. */
export function locateServer(failure: ProviderFailure, server: string | undefined): ProviderFailure {
  if (!server || failure.error.kind !== "connection") return failure;
  return new ProviderFailure({ ...failure.error, message: `${failure.error.message} (model server ${server})` }, failure.retryAfterMs);
}

/**
 * Shared by both SDKs (their error classes have the same names and fields): HTTP errors by status, connection
 * errors and fetch failures as retryable connection errors, user aborts as aborted.
 */
export function classifySdkError(err: unknown): ProviderFailure {
  if (err instanceof ProviderFailure) return err;
  const e = err as { name?: string; constructor?: { name?: string }; status?: number; headers?: unknown; error?: unknown; message?: string };
  // A bundler may rename the SDK's classes (APIConnectionError2): the name without a numeric suffix.
  const name = (e?.constructor?.name ?? e?.name ?? "").replace(/\d+$/, "");
  const message = e?.message ?? String(err);
  if (name === "APIUserAbortError" || e?.name === "AbortError") return new ProviderFailure({ kind: "aborted", retryable: false, message: "The request was aborted." });
  if (name === "APIConnectionTimeoutError") return new ProviderFailure({ kind: "connection", retryable: true, message: `The model server did not answer in time: ${message}` });
  if (name === "APIConnectionError") return new ProviderFailure({ kind: "connection", retryable: true, message: `Could not reach the model server: ${causeMessage(err) ?? message}` });
  if (typeof e?.status === "number" || name.endsWith("Error") && e?.error !== undefined) {
    // Anthropic's SDK keeps the whole body ({type: "error", error: {type, message}}), OpenAI's the inner error.
    const body = e.error as ErrorBody | undefined;
    const inner = body?.error && typeof body.error === "object" ? body.error : body;
    const errorType = inner?.type ?? body?.type;
    // An error sent inside a stream (OpenRouter, an Anthropic `error` event) has no HTTP status; its code may be one.
    const status = typeof e.status === "number" ? e.status : typeof inner?.code === "number" && inner.code >= 400 && inner.code < 600 ? inner.code : undefined;
    const { kind, retryable } = classifyStatus(status, errorType);
    const headers = e.headers as { get(name: string): string | null } | undefined;
    const said = [typeof inner?.message === "string" ? inner.message : typeof e.status === "number" ? stripStatus(message, e.status) : message, upstreamDetail(inner)].filter(Boolean).join(" ");
    // Mid-stream there is no status to say what kind of error it was: its type does (overloaded_error).
    const named = typeof e.status !== "number" && errorType && errorType !== "error" && !said.includes(errorType) ? ` (${errorType})` : "";
    return new ProviderFailure(
      {
        kind,
        retryable,
        ...(status !== undefined ? { status } : {}),
        message:
          typeof e.status === "number"
            ? `The model server answered HTTP ${e.status}: ${said}${named}`
            : `The model server reported an error in the middle of its answer${status !== undefined ? ` (code ${status})` : ""}: ${said}${named}`,
      },
      typeof headers?.get === "function" ? parseRetryAfter(headers) : undefined,
    );
  }
  if (/authentication method/i.test(message)) return new ProviderFailure({ kind: "auth", retryable: false, message: NO_ANTHROPIC_KEY });
  // fetch's own failures mid-body ("terminated", ECONNRESET) are dropped connections.
  if (err instanceof TypeError || /terminated|ECONNRESET|socket hang up|other side closed|ECONNREFUSED/i.test(message + (causeMessage(err) ?? ""))) {
    return new ProviderFailure({ kind: "connection", retryable: true, message: `The connection to the model server failed: ${causeMessage(err) ?? message}` });
  }
  return new ProviderFailure({ kind: "unknown", retryable: false, message });
}

interface ErrorBody {
  type?: string;
  message?: unknown;
  code?: unknown;
  metadata?: { raw?: unknown; provider_name?: unknown } | null;
  error?: ErrorBody;
}

/**
 * A router's (OpenRouter's) error names the upstream provider and carries its own error text in `metadata.raw`:
 * "Provider returned error" alone tells the person nothing.
 */
function upstreamDetail(inner: ErrorBody | undefined): string {
  const raw = inner?.metadata?.raw;
  const provider = typeof inner?.metadata?.provider_name === "string" ? inner.metadata.provider_name : undefined;
  if (raw === undefined || raw === null || raw === "") return provider ? `(upstream provider ${provider})` : "";
  let text = typeof raw === "string" ? raw : JSON.stringify(raw);
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof parsed.error === "object" ? parsed.error?.message : (parsed.error ?? parsed.message);
    if (typeof m === "string" && m) text = m;
  } catch {
    // raw is plain text
  }
  text = text.replace(/\s+/g, " ").trim();
  if (text.length > 500) text = `${text.slice(0, 500)}…`;
  return `(${provider ? `${provider} says` : "upstream"}: ${text})`;
}

/** The SDKs start their messages with the status ("500 Internal error"); it is said once, before. */
function stripStatus(message: string, status: number): string {
  return message.startsWith(`${status} `) ? message.slice(String(status).length + 1) : message;
}

/** The innermost cause (fetch's "fetch failed" wraps the socket's `connect ECONNREFUSED 127.0.0.1:9`). */
function causeMessage(err: unknown): string | undefined {
  let cause = (err as { cause?: unknown })?.cause as { message?: string; code?: string; cause?: unknown } | undefined;
  for (let depth = 0; cause && typeof cause.cause === "object" && cause.cause !== null && depth < 5; depth++) cause = cause.cause as typeof cause;
  if (!cause) return undefined;
  const message = cause.message ?? "";
  return (cause.code && !message.includes(cause.code) ? `${cause.code}: ${message}` : message) || cause.code || undefined;
}
