/** The domain filters of WebSearch: a domain covers itself and its subdomains, compared in punycode, lower case. */
import { domainToASCII } from "node:url";
import { hostOfUrl } from "../../permissions/index.js";

/** `https://Docs.Python.org/3/` or `docs.python.org.` → `docs.python.org`; undefined for what is not a domain. */
export function normalizeDomain(entry: string): string | undefined {
  let text = entry.trim();
  if (text.includes("://")) {
    try {
      text = new URL(text).hostname;
    } catch {
      return undefined;
    }
  }
  text = text.replace(/^\*\./, "").replace(/\.$/, "").toLowerCase();
  if (!text || /[\s/@:?#*]/.test(text)) return undefined;
  const ascii = domainToASCII(text);
  return ascii && ascii.includes(".") ? ascii : undefined;
}

export function hostInDomain(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

export interface DomainFilter {
  allowed?: string[];
  blocked?: string[];
}

/** Whether a result URL passes the filter; with any filter set, a URL without a readable host does not. */
export function passesDomainFilter(url: string, filter: DomainFilter): boolean {
  if (!filter.allowed?.length && !filter.blocked?.length) return true;
  const host = hostOfUrl(url);
  if (host === undefined) return false;
  if (filter.allowed?.length) return filter.allowed.some((d) => hostInDomain(host, d));
  return !filter.blocked!.some((d) => hostInDomain(host, d));
}
