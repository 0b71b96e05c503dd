/**
 * One WebFetch request over the network: same-host redirects followed (at most MAX_REDIRECTS), the body
 * streamed up to a byte cap, a timeout per phase, and the caller's abort signal honoured throughout.
 */
import { isSameHostRedirect } from "./url.js";
import { environmentProxyFetch, isLoopbackHost, proxySettings } from "../../util/proxyFetch.js";

export const MAX_REDIRECTS = 10;
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface FetchedPage {
  kind: "page";
  /** The URL that answered (after same-host redirects). */
  url: string;
  status: number;
  statusText: string;
  contentType: string;
  body: Buffer;
  /** The body was longer than the cap and was cut there. */
  truncated: boolean;
}

export interface CrossHostRedirect {
  kind: "redirect";
  /** The URL that redirected. */
  url: string;
  location: string;
  status: number;
}

/** A failure the model should read; its message says what happened and what to do. */
export class WebFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebFetchError";
  }
}

export interface FetchPageOptions {
  signal: AbortSignal;
  timeoutMs?: number;
  maxBytes?: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Runs `step` with a deadline; the deadline and the caller's abort both abort `controller`. */
async function withDeadline<T>(controller: AbortController, timeoutMs: number, timeoutMessage: string, outer: AbortSignal, step: () => Promise<T>): Promise<T> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    return await step();
  } catch (err) {
    if (outer.aborted) throw new WebFetchError("The fetch was interrupted.");
    if (timedOut) throw new WebFetchError(timeoutMessage);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function describeNetworkError(err: unknown, url: string, proxy: string | undefined): WebFetchError {
  if (err instanceof WebFetchError) return err;
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const detail = cause?.code ? `${cause.code}${cause.message ? `: ${cause.message}` : ""}` : cause?.message || (err instanceof Error ? err.message : String(err));
  return new WebFetchError(`Could not fetch ${url}${proxy ? ` through the proxy ${proxy}` : ""}: ${detail.replace(/\.+$/, "")}.`);
}

/** The proxy a request to `url` goes through, as host:port (never its credentials), or undefined. */
function proxyFor(url: URL): string | undefined {
  const settings = proxySettings();
  if (!settings || isLoopbackHost(url.hostname)) return undefined;
  const proxy = url.protocol === "https:" ? (settings.httpsProxy ?? settings.httpProxy) : settings.httpProxy;
  if (!proxy) return undefined;
  try {
    return new URL(proxy).host;
  } catch {
    return "from the environment";
  }
}

export async function fetchPage(start: URL, options: FetchPageOptions): Promise<FetchedPage | CrossHostRedirect> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? MAX_RESPONSE_BYTES;
  const outer = options.signal;
  if (outer.aborted) throw new WebFetchError("The fetch was interrupted.");
  let current = start;
  // Node's fetch, or one over HTTPS_PROXY / HTTP_PROXY when the environment names a proxy.
  const send = (await environmentProxyFetch()) ?? fetch;
  for (let hop = 0; ; hop++) {
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    outer.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await withDeadline(
        controller,
        timeoutMs,
        `Timed out after ${seconds(timeoutMs)} waiting for ${current.href} to respond (no response headers came).`,
        outer,
        () =>
          send(current, {
            redirect: "manual",
            signal: controller.signal,
            headers: { accept: "text/html, text/markdown;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5", "user-agent": "toolgate-WebFetch/1" },
          }),
      ).catch((err) => {
        throw describeNetworkError(err, current.href, proxyFor(current));
      });

      if (REDIRECT_STATUSES.has(response.status)) {
        await response.body?.cancel().catch(() => undefined);
        const location = response.headers.get("location");
        if (!location) throw new WebFetchError(`${current.href} answered ${response.status} (a redirect) without a Location header.`);
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          throw new WebFetchError(`${current.href} redirects to an invalid URL: ${location}`);
        }
        if (!isSameHostRedirect(current, next)) return { kind: "redirect", url: current.href, location: next.href, status: response.status };
        if (hop + 1 > MAX_REDIRECTS) {
          throw new WebFetchError(`Too many redirects: more than ${MAX_REDIRECTS}, starting at ${start.href} (last ${current.href} → ${next.href}). The page probably redirects in a loop.`);
        }
        current = next;
        continue;
      }

      const { body, truncated } = await withDeadline(
        controller,
        timeoutMs,
        `Timed out after ${seconds(timeoutMs)} reading the body of ${current.href} (the server sent headers, then stalled).`,
        outer,
        () => readCapped(response, maxBytes),
      ).catch((err) => {
        throw describeNetworkError(err, current.href, proxyFor(current));
      });
      return {
        kind: "page",
        url: current.href,
        status: response.status,
        statusText: response.statusText,
        contentType: response.headers.get("content-type") ?? "",
        body,
        truncated,
      };
    } finally {
      outer.removeEventListener("abort", onAbort);
    }
  }
}

/** Read the body until it ends or `maxBytes` are in; past the cap the stream is cancelled, not drained. */
async function readCapped(response: Response, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  if (!response.body) return { body: Buffer.alloc(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { body: Buffer.concat(chunks, size), truncated: false };
    const room = maxBytes - size;
    if (value.byteLength > room) {
      chunks.push(Buffer.from(value.buffer, value.byteOffset, room));
      size += room;
      await reader.cancel().catch(() => undefined);
      return { body: Buffer.concat(chunks, size), truncated: true };
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    size += value.byteLength;
  }
}
