/**
 * One WebFetch request over the network: same-host redirects followed (at most MAX_REDIRECTS), the body
 * streamed up to a byte cap, a timeout per phase, and the caller's abort signal honoured throughout. Every hop
 * connects only to an address that was checked (see connect.ts).
 */
import type { Dispatcher } from "undici";
import { isSameHostRedirect } from "./url.js";
import { loadUndici, proxyUriFor } from "../../util/proxyFetch.js";
import type { AddressPolicy } from "./address.js";
import { checkBeforeProxy, pinHost, pinnedDispatcher, proxyDispatcher, systemResolver, type HostResolver } from "./connect.js";
import { WebFetchError } from "./errors.js";

export { WebFetchError } from "./errors.js";

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

export interface FetchPageOptions {
  signal: AbortSignal;
  timeoutMs?: number;
  maxBytes?: number;
  /** Non-public addresses rules name; without it only public addresses are reached. */
  addressPolicy?: AddressPolicy;
  /** How host names are resolved (tests supply their own: no DNS is reachable there). */
  resolveHost?: HostResolver;
  /**
   * Whether a same-host redirect to another spelling of the host (`www.`) may be followed; the permission rules
   * judge it. Without it, such a redirect goes back to the model.
   */
  mayFollow?: (url: URL) => Promise<boolean>;
}

const NO_ADDRESSES: AddressPolicy = { allowed: new Set(), denied: new Set() };

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

/** The proxy's host:port for messages (never its credentials). */
function proxyLabel(proxy: string | undefined): string | undefined {
  if (!proxy) return undefined;
  try {
    return new URL(proxy).host;
  } catch {
    return "from the environment";
  }
}

const ACCEPT = "text/html, text/markdown;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5";

export async function fetchPage(start: URL, options: FetchPageOptions): Promise<FetchedPage | CrossHostRedirect> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? MAX_RESPONSE_BYTES;
  const policy = options.addressPolicy ?? NO_ADDRESSES;
  const resolveHost = options.resolveHost ?? systemResolver;
  const outer = options.signal;
  if (outer.aborted) throw new WebFetchError("The fetch was interrupted.");
  const undici = await loadUndici();
  // One checked address per host name for the whole call, so a redirect back to the same name cannot land elsewhere.
  const pinned = new Map<string, Promise<Dispatcher>>();
  const dispatcherFor = async (url: URL, proxy: string | undefined, signal: AbortSignal): Promise<Dispatcher> => {
    if (proxy) {
      await checkBeforeProxy(url, policy, resolveHost, signal);
      return proxyDispatcher(proxy);
    }
    const key = url.hostname.toLowerCase();
    let dispatcher = pinned.get(key);
    if (!dispatcher) {
      dispatcher = pinHost(url, policy, resolveHost, signal).then(pinnedDispatcher);
      pinned.set(key, dispatcher);
      // A failed check is not retried within the call; the rejection is handled where it is awaited.
      dispatcher.catch(() => undefined);
    }
    return dispatcher;
  };
  let current = start;
  try {
    for (let hop = 0; ; hop++) {
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      outer.addEventListener("abort", onAbort, { once: true });
      // HTTPS_PROXY / HTTP_PROXY from the environment, unless NO_PROXY or a loopback host says direct.
      const proxyUri = proxyUriFor(current);
      const proxy = proxyLabel(proxyUri);
      try {
        const response = (await withDeadline(
          controller,
          timeoutMs,
          `Timed out after ${seconds(timeoutMs)} waiting for ${current.href} to respond (no response headers came).`,
          outer,
          async () => {
            const dispatcher = await dispatcherFor(current, proxyUri, controller.signal);
            return undici.fetch(current, {
              redirect: "manual",
              signal: controller.signal,
              headers: { accept: ACCEPT, "user-agent": "toolgate-WebFetch/1" },
              dispatcher,
            });
          },
        ).catch((err) => {
          throw describeNetworkError(err, current.href, proxy);
        })) as unknown as Response;

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
          const crossHost = { kind: "redirect", url: current.href, location: next.href, status: response.status } as const;
          if (!isSameHostRedirect(current, next)) return crossHost;
          // `www.` or not is another host name to the rules: followed only when they allow it as well.
          if (next.hostname.toLowerCase() !== current.hostname.toLowerCase() && !(await options.mayFollow?.(next))) return crossHost;
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
          throw describeNetworkError(err, current.href, proxy);
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
  } finally {
    // The pinned agents belong to this call: their connections are closed, not kept for another.
    await Promise.all([...pinned.values()].map((p) => p.then((d) => d.destroy(), () => undefined)));
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
