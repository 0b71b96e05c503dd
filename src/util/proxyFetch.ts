/**
 * Outgoing HTTP through the proxy the environment names: `HTTPS_PROXY` / `HTTP_PROXY` (either case), with
 * `NO_PROXY` honoured, as curl and most CLIs do. Node 20's own fetch ignores these variables, so a fetch over
 * undici's proxy agent is used instead, loaded only when a proxy is set. Loopback addresses are always reached
 * directly: a proxy cannot reach this machine's local servers (a local model server, a dev server).
 */
export type FetchFunction = typeof globalThis.fetch;

export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

const read = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name.toLowerCase()] || env[name.toUpperCase()] || undefined;

/** The proxy variables set in `env`, or undefined when neither proxy variable is. */
export function proxySettings(env: NodeJS.ProcessEnv = process.env): ProxySettings | undefined {
  const httpProxy = read(env, "http_proxy");
  const httpsProxy = read(env, "https_proxy");
  if (!httpProxy && !httpsProxy) return undefined;
  const noProxy = read(env, "no_proxy");
  return { ...(httpProxy ? { httpProxy } : {}), ...(httpsProxy ? { httpsProxy } : {}), ...(noProxy ? { noProxy } : {}) };
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function urlOf(input: Parameters<FetchFunction>[0]): URL | undefined {
  try {
    return new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  } catch {
    return undefined;
  }
}

export type Undici = typeof import("undici");

/** undici, loaded on first use (most sessions never need it). */
export async function loadUndici(): Promise<Undici> {
  const loaded = await import("undici");
  // CommonJS: Node names its exports, the bundle only gives `default` (module.exports) — which both have.
  return ((loaded as unknown as { default?: Undici }).default ?? loaded) as Undici;
}

const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };

/**
 * The proxy URL a request to `url` goes through, or undefined for a direct connection: loopback hosts and
 * `NO_PROXY` matches (`*`, `host`, `.host` / `*.host` for it and its subdomains, `host:port`) go direct, the
 * same reading as undici's EnvHttpProxyAgent.
 */
export function proxyUriFor(url: URL, settings: ProxySettings | undefined = proxySettings()): string | undefined {
  if (!settings || isLoopbackHost(url.hostname)) return undefined;
  const proxy = url.protocol === "https:" ? (settings.httpsProxy ?? settings.httpProxy) : settings.httpProxy;
  if (!proxy) return undefined;
  const noProxy = (settings.noProxy ?? "").trim();
  if (noProxy === "*") return undefined;
  const host = url.hostname.toLowerCase();
  const port = Number(url.port) || DEFAULT_PORTS[url.protocol] || 0;
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    if (parsed && Number(parsed[2]) !== port) continue;
    const name = (parsed ? parsed[1] : entry).replace(/^\*?\./, "").toLowerCase();
    if (host === name || host.endsWith(`.${name}`)) return undefined;
  }
  return proxy;
}

/** A fetch over the proxy in `settings` (loopback direct). */
export async function createProxyFetch(settings: ProxySettings): Promise<FetchFunction> {
  const undici = await loadUndici();
  const dispatcher = new undici.EnvHttpProxyAgent({ httpProxy: settings.httpProxy, httpsProxy: settings.httpsProxy ?? settings.httpProxy, noProxy: settings.noProxy ?? "" });
  const viaProxy = undici.fetch as unknown as (input: Parameters<FetchFunction>[0], init: Omit<RequestInit, "dispatcher"> & { dispatcher: unknown }) => Promise<Response>;
  return (input, init) => {
    const url = urlOf(input);
    if (url && isLoopbackHost(url.hostname)) return globalThis.fetch(input, init);
    return viaProxy(input, { ...init, dispatcher });
  };
}

let shared: { key: string; fetch: Promise<FetchFunction | undefined> } | undefined;

/**
 * The fetch to use for requests leaving this machine: over the environment's proxy when one is set (made once
 * for those settings, so connections to the proxy are reused), else undefined, meaning Node's own fetch.
 */
export function environmentProxyFetch(): Promise<FetchFunction | undefined> {
  const settings = proxySettings();
  const key = JSON.stringify(settings ?? null);
  if (shared?.key !== key) shared = { key, fetch: settings ? createProxyFetch(settings) : Promise.resolve(undefined) };
  return shared.fetch;
}

/**
 * For clients that take a fetch function when they are made (synchronously): undefined without a proxy in the
 * environment, else a fetch that goes over it.
 */
export function environmentFetchOption(): FetchFunction | undefined {
  if (!proxySettings()) return undefined;
  return async (input, init) => ((await environmentProxyFetch()) ?? globalThis.fetch)(input, init);
}
