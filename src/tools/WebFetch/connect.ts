/**
 * Where one WebFetch request connects. A direct request resolves its host once, checks the address, and
 * connects to exactly that address (no second lookup a DNS answer could change in between). A request through
 * the environment's proxy hands the name to the proxy, which resolves it itself.
 */
import dns from "node:dns/promises";
import net from "node:net";
import type { Dispatcher } from "undici";
import { loadUndici } from "../../util/proxyFetch.js";
import { judgeAddress, type AddressPolicy, type AddressVerdict } from "./address.js";
import { WebFetchError } from "./errors.js";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address of a host name, from one lookup. The system resolver, unless a test supplies its own. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/** A host and the checked addresses its connections go to (the first that answers, in lookup order). */
export interface PinnedHost {
  hostname: string;
  addresses: ResolvedAddress[];
}

const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

function abortable<T>(pending: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

async function lookupAll(url: URL, resolve: HostResolver, signal: AbortSignal): Promise<ResolvedAddress[]> {
  const host = bareHost(url);
  let addresses: ResolvedAddress[];
  try {
    addresses = await abortable(resolve(host), signal);
  } catch (err) {
    if (signal.aborted) throw err;
    const code = (err as { code?: string }).code;
    throw new WebFetchError(`Could not fetch ${url.href}: the host name ${host} could not be resolved${code ? ` (${code})` : ""}. Check the URL.`);
  }
  if (addresses.length === 0) throw new WebFetchError(`Could not fetch ${url.href}: the host name ${host} has no addresses.`);
  return addresses;
}

function refusal(url: URL, resolved: string | undefined, verdicts: Array<{ address: string; verdict: AddressVerdict }>): WebFetchError {
  const reasons = verdicts.map(({ verdict }) => (verdict.ok ? "" : verdict.why)).filter(Boolean);
  const rules = [...new Set(verdicts.map(({ verdict }) => (verdict.ok ? undefined : verdict.rule)).filter((r): r is string => Boolean(r)))];
  const what = resolved ? `${resolved} resolves to ${verdicts.map((v) => v.address).join(", ")}: ${reasons.join("; ")}` : reasons.join("; ");
  const how = rules.length
    ? ` If the user wants WebFetch to reach it, they can add the allow rule ${rules.join(" or ")} (in permissions.allow in settings.json, or --allowedTools); a rule for the host name alone is not enough.`
    : "";
  return new WebFetchError(
    `Refused to fetch ${url.href}: ${what}. WebFetch connects only to public internet addresses unless a permission rule names the address itself, so that a rule for a name cannot reach this machine, the local network or a cloud metadata service.${how} Do not retry with another spelling of the address or another name for it.`,
  );
}

/**
 * The addresses a direct request to `url` may connect to: the URL's own IP address, or those of its host name
 * that `policy` accepts. One lookup; a WebFetchError saying why when no address is acceptable.
 */
export async function pinHost(url: URL, policy: AddressPolicy, resolve: HostResolver, signal: AbortSignal): Promise<PinnedHost> {
  const host = bareHost(url);
  const literal = net.isIP(host);
  const addresses = literal ? [{ address: host, family: literal === 6 ? 6 : 4 } as const] : await lookupAll(url, resolve, signal);
  const verdicts = addresses.map(({ address }) => ({ address, verdict: judgeAddress(address, policy) }));
  const accepted = addresses.filter((_, i) => verdicts[i].verdict.ok);
  if (accepted.length === 0) throw refusal(url, literal ? undefined : host, verdicts);
  return { hostname: host, addresses: accepted };
}

/**
 * Before a request goes through a proxy: an IP address in the URL is judged as for a direct request. A host
 * name is resolved here only as a precaution (refused when any of its addresses is not acceptable); the proxy
 * resolves it again and connects where it likes, which WebFetch cannot pin. A name that does not resolve here
 * is left to the proxy.
 */
export async function checkBeforeProxy(url: URL, policy: AddressPolicy, resolve: HostResolver, signal: AbortSignal): Promise<void> {
  const host = bareHost(url);
  if (net.isIP(host)) {
    await pinHost(url, policy, resolve, signal);
    return;
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await abortable(resolve(host), signal);
  } catch (err) {
    if (signal.aborted) throw err;
    return;
  }
  const verdicts = addresses.map(({ address }) => ({ address, verdict: judgeAddress(address, policy) }));
  if (verdicts.some((v) => !v.verdict.ok)) throw refusal(url, host, verdicts);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | Array<{ address: string; family: number }>, family?: number) => void;

/**
 * An undici dispatcher whose connections to `pin.hostname` go only to `pin.addresses` (Node tries them in turn
 * when it is asked for all); TLS still names the host (SNI, certificate check).
 */
export async function pinnedDispatcher(pin: PinnedHost): Promise<Dispatcher> {
  const undici = await loadUndici();
  const lookup = (hostname: string, options: { all?: boolean } | LookupCallback, callback?: LookupCallback) => {
    const done = (typeof options === "function" ? options : callback) as LookupCallback;
    const all = typeof options === "object" && options.all === true;
    if (hostname.toLowerCase() !== pin.hostname.toLowerCase()) {
      done(Object.assign(new Error(`WebFetch connects only to ${pin.hostname} here, not ${hostname}`), { code: "ENOTFOUND" }), "");
      return;
    }
    if (all) done(null, pin.addresses.map(({ address, family }) => ({ address, family })));
    else done(null, pin.addresses[0].address, pin.addresses[0].family);
  };
  return new undici.Agent({ connect: { lookup } });
}

const proxyAgents = new Map<string, Promise<Dispatcher>>();

/** One agent per proxy URL, kept for the process, so connections to the proxy are reused. */
export function proxyDispatcher(proxy: string): Promise<Dispatcher> {
  let agent = proxyAgents.get(proxy);
  if (!agent) {
    agent = loadUndici().then((undici) => new undici.ProxyAgent({ uri: proxy }));
    proxyAgents.set(proxy, agent);
  }
  return agent;
}
