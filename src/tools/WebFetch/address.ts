/**
 * Which IP addresses WebFetch connects to. A permission rule names a host; the host's address is what the
 * connection reaches, so it is judged too: addresses of this machine, the local network and cloud metadata
 * services are refused unless a rule names the address itself.
 */
import net from "node:net";

/** Why an address is not on the public internet, e.g. "a loopback address (this machine)"; undefined when it is. */
export type AddressClass = string | undefined;

/**
 * The address in one spelling: dotted decimal for IPv4, the compressed lower-case form for IPv6 (no brackets,
 * no zone), as the WHATWG URL parser writes them. Undefined when `text` is not an IP address in a spelling
 * URLs accept (`127.1`, `0x7f.0.0.1` and `2130706433` are IPv4; `[::1]` and `::1` IPv6).
 */
export function canonicalAddress(text: string): string | undefined {
  const bare = text.trim().replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (!bare) return undefined;
  const v6 = bare.includes(":");
  let hostname: string;
  try {
    hostname = new URL(`http://${v6 ? `[${bare}]` : bare}/`).hostname;
  } catch {
    return undefined;
  }
  const unbracketed = hostname.replace(/^\[(.*)\]$/, "$1");
  return net.isIP(unbracketed) ? unbracketed : undefined;
}

function ipv4Octets(address: string): number[] {
  return address.split(".").map(Number);
}

/** The eight 16-bit groups of a canonical IPv6 address (which never has a dotted tail). */
function ipv6Groups(address: string): number[] {
  const [head, tail] = address.includes("::") ? address.split("::") : [address, undefined];
  const parse = (part: string | undefined) => (part ? part.split(":").map((g) => parseInt(g, 16)) : []);
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function classifyIPv4(address: string): AddressClass {
  const [a, b, c, d] = ipv4Octets(address);
  if (a === 0) return "an unspecified address (0.0.0.0/8 reaches this machine)";
  if (a === 127) return "a loopback address (this machine)";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "a private network address";
  if (a === 100 && b >= 64 && b <= 127) return "a carrier-grade NAT address (100.64.0.0/10, also used by cloud metadata services)";
  if (a === 169 && b === 254) return c === 169 && d === 254 ? "the cloud metadata service address" : "a link-local address";
  if (a === 192 && b === 0 && c === 0) return "a reserved address (192.0.0.0/24)";
  if (a === 198 && (b === 18 || b === 19)) return "a private network address (198.18.0.0/15)";
  if (a >= 224 && a <= 239) return "a multicast address";
  if (a === 255 && b === 255 && c === 255 && d === 255) return "the broadcast address";
  if (a >= 240) return "a reserved address (240.0.0.0/4)";
  return undefined;
}

const embeddedIPv4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

function classifyIPv6(address: string): AddressClass {
  const g = ipv6Groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return "the unspecified address (::)";
  if (zeros(0, 7) && g[7] === 1) return "a loopback address (this machine)";
  // Forms that carry an IPv4 address, which is where the connection goes: judged by that address.
  const carried = (v4: string, form: string) => {
    const inner = classifyIPv4(v4);
    return inner ? `${form} of ${v4}, ${inner}` : undefined;
  };
  if (zeros(0, 5) && g[5] === 0xffff) return carried(embeddedIPv4(g[6], g[7]), "the IPv4-mapped form");
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return carried(embeddedIPv4(g[6], g[7]), "the IPv4-translated form");
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return carried(embeddedIPv4(g[6], g[7]), "the NAT64 form");
  if (g[0] === 0x2002) return carried(embeddedIPv4(g[1], g[2]), "the 6to4 form");
  if (zeros(0, 6)) return "a deprecated IPv4-compatible address (::/96)";
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "a local NAT64 address (64:ff9b:1::/48)";
  if (g[0] === 0x100 && zeros(1, 4)) return "a discard-only address (100::/64)";
  if ((g[0] & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g[0] & 0xffc0) === 0xfec0) return "a site-local (private) address";
  if ((g[0] & 0xfe00) === 0xfc00) {
    return address === "fd00:ec2::254" ? "the cloud metadata service address" : "a unique local (private network) address";
  }
  if ((g[0] & 0xff00) === 0xff00) return "a multicast address";
  return undefined;
}

/** Why `address` (any spelling canonicalAddress accepts) is not a public one, or undefined when it is public. */
export function classifyAddress(address: string): AddressClass {
  const canonical = canonicalAddress(address);
  if (!canonical) return "not an IP address";
  return net.isIPv6(canonical) ? classifyIPv6(canonical) : classifyIPv4(canonical);
}

/** The addresses `WebFetch(domain:…)` rules name literally (`domain:127.0.0.1`, `domain:[::1]`), canonical. */
export function addressesNamedByRules(ruleContents: readonly string[]): Set<string> {
  const named = new Set<string>();
  for (const content of ruleContents) {
    const trimmed = content.trim();
    if (!trimmed.toLowerCase().startsWith("domain:")) continue;
    const address = canonicalAddress(trimmed.slice("domain:".length));
    if (address) named.add(address);
  }
  return named;
}

/** What WebFetch may connect to: a public address, or one an allow rule names and no deny rule does. */
export interface AddressPolicy {
  allowed: ReadonlySet<string>;
  denied: ReadonlySet<string>;
}

export type AddressVerdict = { ok: true } | { ok: false; why: string; rule?: string };

export function judgeAddress(address: string, policy: AddressPolicy): AddressVerdict {
  const canonical = canonicalAddress(address);
  if (!canonical) return { ok: false, why: `${address} is not an IP address` };
  if (policy.denied.has(canonical)) return { ok: false, why: `a deny rule names ${canonical}` };
  const kind = net.isIPv6(canonical) ? classifyIPv6(canonical) : classifyIPv4(canonical);
  if (!kind || policy.allowed.has(canonical)) return { ok: true };
  return { ok: false, why: `${canonical} is ${kind}`, rule: `WebFetch(domain:${net.isIPv6(canonical) ? `[${canonical}]` : canonical})` };
}
