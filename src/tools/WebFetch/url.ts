/** What WebFetch accepts as a URL, and which redirects it follows by itself. */

export type UrlCheck = { ok: true; url: URL; upgraded: boolean } | { ok: false; message: string };

/** 127.0.0.0/8, ::1 and localhost (with its subdomains, which resolve to loopback by RFC 6761). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "").replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host === "::1" || host === "0:0:0:0:0:0:0:1") return true;
  // WHATWG URL parsing has already turned 0x7f.1, 2130706433 and friends into dotted decimal.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Parse and check a URL the model gave: http(s) only, no credentials, http upgraded to https unless the host
 * is loopback (so a local dev server can be read).
 */
export function checkFetchUrl(raw: string): UrlCheck {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: `"${raw}" is not a valid URL. Pass a full URL with its scheme, e.g. "https://example.com/docs".` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, message: `WebFetch fetches only http and https URLs, not ${url.protocol.replace(/:$/, "")}: ${text}.` };
  }
  if (url.username || url.password) {
    return {
      ok: false,
      message: `URLs with a user name or password (user:pass@host) are refused: they would send credentials, and they disguise which host is fetched. Pass the URL without them: ${url.protocol}//${url.host}${url.pathname}${url.search}`,
    };
  }
  if (!url.hostname) return { ok: false, message: `The URL has no host: ${text}.` };
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    url.protocol = "https:";
    // An explicit :80 meant plain http; on https it would point at the wrong service.
    if (url.port === "80") url.port = "";
    return { ok: true, url, upgraded: true };
  }
  return { ok: true, url, upgraded: false };
}

function withoutWww(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return host.startsWith("www.") ? host.slice(4) : host;
}

/**
 * A redirect WebFetch follows by itself: same scheme-family, same port, no credentials, and the same host
 * give or take a leading `www.`. Anything else goes back to the model, to be judged by the rules again.
 * An https → http downgrade is followed only for loopback hosts.
 */
export function isSameHostRedirect(from: URL, to: URL): boolean {
  if (to.protocol !== "http:" && to.protocol !== "https:") return false;
  if (to.username || to.password) return false;
  if (withoutWww(from.hostname) !== withoutWww(to.hostname)) return false;
  if (from.port !== to.port) return false;
  if (from.protocol === "https:" && to.protocol === "http:" && !isLoopbackHost(to.hostname)) return false;
  return true;
}
