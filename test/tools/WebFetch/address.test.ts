/**
 * WebFetch judges the address it connects to, not only the name a rule allows: real servers on loopback hold a
 * secret, and a rule for a name that resolves there must not reach it. Where a test needs a name to resolve to
 * an address of its choosing it supplies the resolver (there is no DNS here); the connections are real.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import http from "node:http";
import net from "node:net";
import { canonicalAddress, classifyAddress, createWebFetchTool, judgeAddress, type ResolvedAddress } from "../../../src/tools/WebFetch/index.js";
import { addressesNamedByRules } from "../../../src/tools/WebFetch/address.js";
import { proxyUriFor } from "../../../src/util/proxyFetch.js";
import type { AnyTool } from "../../../src/core/Tool.js";
import { createNonInteractiveCanUseTool } from "../../../src/permissions/index.js";
import { approveAll } from "../../helpers.js";
import { run, startServer, webSession, type TestServer } from "./helpers.js";

const SECRET = "SECRET-ON-LOOPBACK-42";
const secretServer = () => startServer({ "*": (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end(SECRET) });
const nobodyAsks = createNonInteractiveCanUseTool();

/** A resolver from a table: each name answers its list of addresses in turn (the last one repeats); calls are counted. */
function scriptedResolver(table: Record<string, string[][]>) {
  const calls: string[] = [];
  const resolveHost = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    const n = calls.filter((c) => c === hostname).length;
    return answers[Math.min(n, answers.length) - 1].map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
  };
  return { resolveHost, calls };
}

const toolWith = (resolveHost: (h: string) => Promise<ResolvedAddress[]>) => [createWebFetchTool({ resolveHost })] as AnyTool[];

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(closers.splice(0).map((close) => close()));
});

/**
 * A server on 127.0.0.2 (the address a test's rules allow) and the secret server on 127.0.0.1 at the same port,
 * so that a redirect or a second connection to the same host and port could reach either.
 */
async function onOnePort(routes: Parameters<typeof startServer>[0]): Promise<{ page: TestServer; secret: TestServer }> {
  for (;;) {
    const page = await startServer(routes, { host: "127.0.0.2" });
    const secret = await startServer({ "*": (_req, res) => res.end(SECRET) }, { port: page.port }).catch(() => undefined);
    if (secret) return { page, secret };
    await page.close();
  }
}

describe("which addresses are public", () => {
  it("refuses loopback, private, link-local, metadata and the rest in every spelling URLs accept", () => {
    const refused = [
      "127.0.0.1", "127.1", "2130706433", "0177.0.0.1", "0x7f.1", "0x7f000001", "127.255.255.254",
      "0.0.0.0", "0", "0.1.2.3",
      "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1", "100.127.255.255", "100.100.100.200",
      "169.254.169.254", "169.254.1.1", "192.0.0.192", "198.18.0.1", "224.0.0.1", "239.255.255.250", "255.255.255.255", "240.0.0.1",
      "::1", "[::1]", "0:0:0:0:0:0:0:1", "::", "[::]",
      "::ffff:127.0.0.1", "[::ffff:7f00:1]", "::ffff:169.254.169.254", "::ffff:10.0.0.1", "::ffff:0:127.0.0.1",
      "64:ff9b::127.0.0.1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::1", "::127.0.0.1", "64:ff9b:1::1", "100::1",
      "fe80::1", "fe80::1%eth0", "febf::1", "fec0::1", "fc00::1", "fd12:3456::1", "fd00:ec2::254", "FD00:EC2:0:0:0:0:0:254", "ff02::1",
    ];
    for (const address of refused) expect(classifyAddress(address), address).toBeDefined();
    expect(classifyAddress("169.254.169.254")).toContain("metadata");
    expect(classifyAddress("fd00:ec2::254")).toContain("metadata");
    expect(classifyAddress("::ffff:127.0.0.1")).toContain("IPv4-mapped form of 127.0.0.1, a loopback address");

    const publicOnes = ["8.8.8.8", "93.184.216.34", "172.15.255.255", "172.32.0.1", "100.63.255.255", "100.128.0.1", "169.253.1.1", "11.0.0.1",
      "192.0.1.1", "198.20.0.1", "223.255.255.255", "2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"];
    for (const address of publicOnes) expect(classifyAddress(address), address).toBeUndefined();
  });

  it("writes each address one way, so a rule and a lookup answer compare equal", () => {
    expect(canonicalAddress("2130706433")).toBe("127.0.0.1");
    expect(canonicalAddress("0x7f.1")).toBe("127.0.0.1");
    expect(canonicalAddress("[0:0:0:0:0:0:0:1]")).toBe("::1");
    expect(canonicalAddress("::FFFF:127.0.0.1")).toBe("::ffff:7f00:1");
    expect(canonicalAddress("fe80::1%eth0")).toBe("fe80::1");
    expect(canonicalAddress("localhost")).toBeUndefined();
    expect(canonicalAddress("127.0.0.1.nip.io")).toBeUndefined();
    expect(canonicalAddress("")).toBeUndefined();
  });

  it("only a rule naming the address itself allows it; a wildcard or a name does not, and a deny rule wins", () => {
    const named = addressesNamedByRules(["domain:127.0.0.1", "domain:[::1]", "domain:*.10.0.0.1", "domain:localhost", "domain:0x0a.0.0.2", "127.0.0.3", "domain:fd00:ec2::254"]);
    expect([...named].sort()).toEqual(["10.0.0.2", "127.0.0.1", "::1", "fd00:ec2::254"]);
    const policy = { allowed: named, denied: new Set<string>() };
    expect(judgeAddress("127.0.0.1", policy)).toEqual({ ok: true });
    expect(judgeAddress("0:0::1", policy)).toEqual({ ok: true });
    expect(judgeAddress("127.0.0.2", policy)).toMatchObject({ ok: false, rule: "WebFetch(domain:127.0.0.2)" });
    // the mapped form is another address: a rule for 127.0.0.1 does not name ::ffff:127.0.0.1
    expect(judgeAddress("::ffff:127.0.0.1", policy)).toMatchObject({ ok: false, rule: "WebFetch(domain:[::ffff:7f00:1])" });
    expect(judgeAddress("8.8.8.8", { allowed: new Set(), denied: new Set(["8.8.8.8"]) })).toMatchObject({ ok: false, why: expect.stringContaining("deny rule") });
    expect(judgeAddress("127.0.0.1", { allowed: new Set(["127.0.0.1"]), denied: new Set(["127.0.0.1"]) })).toMatchObject({ ok: false });
  });
});

describe("WebFetch checks the address a name resolves to", () => {
  it("a rule for localhost does not reach the server on 127.0.0.1 (real resolver); with the rule the message names, it does", async () => {
    const server = await secretServer();
    const r = await run(webSession({ allow: ["WebFetch(domain:localhost)"] }), "WebFetch", { url: `http://localhost:${server.port}/`, prompt: "p" }, nobodyAsks);
    expect(r.isError).toBe(true);
    expect(r.text).not.toContain(SECRET);
    expect(r.text).toContain("localhost resolves to");
    expect(r.text).toContain("a loopback address");
    expect(r.text).toContain("a rule for the host name alone is not enough");
    expect(server.hits.size).toBe(0);

    const rule = /allow rule (WebFetch\(domain:(?:127\.0\.0\.1|\[::1\])\))/.exec(r.text)?.[1];
    expect(rule).toBeDefined();
    const ctx = webSession({ allow: ["WebFetch(domain:localhost)", rule!, "WebFetch(domain:127.0.0.1)"] });
    const allowed = await run(ctx, "WebFetch", { url: `http://localhost:${server.port}/page`, prompt: "p" }, nobodyAsks);
    expect(allowed.isError).toBe(false);
    expect(allowed.text).toContain(SECRET);
    expect(server.hits.get("/page")).toBe(1);
  });

  it("the user approving the call, or bypassPermissions, is not a rule naming the address", async () => {
    const server = await secretServer();
    const approved = await run(webSession(), "WebFetch", { url: `${server.url}/a`, prompt: "p" }, approveAll);
    expect(approved.isError).toBe(true);
    expect(approved.text).toContain("127.0.0.1 is a loopback address");
    expect(approved.text).toContain("WebFetch(domain:127.0.0.1)");
    const bypass = webSession({ allow: ["WebFetch"] });
    bypass.setAppState((s) => ({ ...s, toolPermissionContext: { ...s.toolPermissionContext, mode: "bypassPermissions" } }));
    const bypassed = await run(bypass, "WebFetch", { url: `${server.url}/b`, prompt: "p" }, nobodyAsks);
    expect(bypassed.isError).toBe(true);
    expect(server.hits.size).toBe(0);
  });

  it("other spellings of loopback are refused even when the user approves them; the allowed spelling still works", async () => {
    const server = await secretServer();
    const ctx = webSession({ allow: ["WebFetch(domain:127.0.0.1)"] });
    for (const host of ["[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "0.0.0.0", "0", "[::]", "[::127.0.0.1]", "[64:ff9b::7f00:1]", "127.0.0.2", "127.1.2.3"]) {
      const r = await run(ctx, "WebFetch", { url: `http://${host}:${server.port}/`, prompt: "p" }, approveAll);
      expect(r.isError, host).toBe(true);
      expect(r.text, host).toContain("Refused to fetch");
      expect(r.text, host).not.toContain(SECRET);
    }
    expect(server.hits.size).toBe(0);
    // these name 127.0.0.1 itself (the URL parser reads them so), which the rule allows
    for (const host of ["2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.1"]) {
      const r = await run(ctx, "WebFetch", { url: `http://${host}:${server.port}/${host}`, prompt: "p" }, nobodyAsks);
      expect(r.text, host).toContain(SECRET);
    }
  });

  it("an IPv6 literal: [::1] needs WebFetch(domain:[::1]), and then connects without a lookup", async (test) => {
    const server = await startServer({ "*": (_req, res) => res.end(SECRET) }, { host: "::1" }).catch(() => undefined);
    if (!server) return test.skip("no IPv6 loopback here");
    const { resolveHost, calls } = scriptedResolver({});
    const url = `http://[::1]:${server.port}/v6`;
    const refused = await run(webSession({ tools: toolWith(resolveHost) }), "WebFetch", { url, prompt: "p" }, approveAll);
    expect(refused.text).toContain("Refused to fetch http://[::1]:");
    expect(refused.text).toContain("::1 is a loopback address");
    expect(refused.text).toContain("WebFetch(domain:[::1])");
    const allowed = await run(webSession({ tools: toolWith(resolveHost), allow: ["WebFetch(domain:[::1])"] }), "WebFetch", { url, prompt: "p" }, nobodyAsks);
    expect(allowed.text).toContain(SECRET);
    expect(calls).toEqual([]);
    expect(server.hits.get("/v6")).toBe(1);
  });

  it("refuses a name whose every address is private, and takes the first acceptable address of a mixed answer", async () => {
    const server = await secretServer();
    const { resolveHost, calls } = scriptedResolver({ "intranet.localhost": [["10.0.0.7", "169.254.169.254"]], "mixed.localhost": [["::1", "127.0.0.1"]] });
    const ctx = webSession({ tools: toolWith(resolveHost), allow: ["WebFetch(domain:intranet.localhost)", "WebFetch(domain:mixed.localhost)", "WebFetch(domain:127.0.0.1)"] });
    const refused = await run(ctx, "WebFetch", { url: `http://intranet.localhost:${server.port}/`, prompt: "p" }, nobodyAsks);
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("intranet.localhost resolves to 10.0.0.7, 169.254.169.254");
    expect(refused.text).toContain("the cloud metadata service address");
    expect(refused.text).toContain("WebFetch(domain:10.0.0.7) or WebFetch(domain:169.254.169.254)");
    // ::1 is not named by a rule, 127.0.0.1 is: the connection goes to 127.0.0.1
    const mixed = await run(ctx, "WebFetch", { url: `http://mixed.localhost:${server.port}/m`, prompt: "p" }, nobodyAsks);
    expect(mixed.text).toContain(SECRET);
    // both named: nothing listens on ::1, so the connection falls back to the other checked address
    const both = webSession({ tools: toolWith(resolveHost), allow: ["WebFetch(domain:mixed.localhost)", "WebFetch(domain:127.0.0.1)", "WebFetch(domain:[::1])"] });
    const fallback = await run(both, "WebFetch", { url: `http://mixed.localhost:${server.port}/both`, prompt: "p" }, nobodyAsks);
    expect(fallback.text).toContain(SECRET);
    expect(calls).toEqual(["intranet.localhost", "mixed.localhost", "mixed.localhost"]);
    expect(server.hits.get("/m")).toBe(1);
    expect(server.hits.get("/both")).toBe(1);
  });

  it("DNS rebinding: one lookup per name, and every connection of the call goes to the address that was checked", async () => {
    // the checked address (allowed by its rule) closes each connection, so the redirect needs a new one
    const { page: checked, secret } = await onOnePort({
      "/start": (_req, res) => res.writeHead(302, { location: "/next", connection: "close" }).end(),
      "/next": (req, res) => res.writeHead(200, { "content-type": "text/plain", connection: "close" }).end(`checked server; host header ${req.headers.host}`),
    });
    const { resolveHost, calls } = scriptedResolver({ "rebind.localhost": [["127.0.0.2"], ["127.0.0.1"]] });
    const ctx = webSession({ tools: toolWith(resolveHost), allow: ["WebFetch(domain:rebind.localhost)", "WebFetch(domain:127.0.0.2)"] });
    const r = await run(ctx, "WebFetch", { url: `http://rebind.localhost:${checked.port}/start`, prompt: "p" }, nobodyAsks);
    expect(r.isError).toBe(false);
    expect(r.text).toContain(`checked server; host header rebind.localhost:${checked.port}`);
    expect(calls).toEqual(["rebind.localhost"]);
    expect(checked.hits.get("/start")).toBe(1);
    expect(checked.hits.get("/next")).toBe(1);
    expect(secret.hits.size).toBe(0);
  });
});

describe("redirects are checked hop by hop", () => {
  const twoServers = (redirectTo: (port: number) => string) => {
    let port = 0;
    return onOnePort({ "*": (_req, res) => res.writeHead(302, { location: redirectTo(port) }).end() }).then((pair) => {
      port = pair.page.port;
      return pair;
    });
  };

  it("a same-host redirect to the www. name that resolves to loopback is refused at that hop", async () => {
    const { page, secret } = await twoServers((port) => `http://www.site.localhost:${port}/inside`);
    const { resolveHost, calls } = scriptedResolver({ "site.localhost": [["127.0.0.2"]], "www.site.localhost": [["127.0.0.1"]] });
    const allow = ["WebFetch(domain:site.localhost)", "WebFetch(domain:www.site.localhost)", "WebFetch(domain:127.0.0.2)"];
    const r = await run(webSession({ tools: toolWith(resolveHost), allow }), "WebFetch", { url: `http://site.localhost:${page.port}/`, prompt: "p" }, nobodyAsks);
    expect(r.isError).toBe(true);
    expect(r.text).toContain(`Refused to fetch http://www.site.localhost:${page.port}/inside: www.site.localhost resolves to 127.0.0.1`);
    expect(calls).toEqual(["site.localhost", "www.site.localhost"]);
    expect(page.hits.get("/")).toBe(1);
    expect(secret.hits.size).toBe(0);
  });

  it("a www. redirect the rules do not allow (or deny) goes back to the model instead of being followed", async () => {
    const { page, secret } = await twoServers((port) => `http://www.site.localhost:${port}/inside`);
    const { resolveHost, calls } = scriptedResolver({ "site.localhost": [["127.0.0.2"]], "www.site.localhost": [["127.0.0.1"]] });
    // 127.0.0.1 is allowed as an address here: only the name rules stop the hop
    const allow = ["WebFetch(domain:site.localhost)", "WebFetch(domain:127.0.0.2)", "WebFetch(domain:127.0.0.1)"];
    for (const deny of [[], ["WebFetch(domain:www.site.localhost)"]]) {
      const ctx = webSession({ tools: toolWith(resolveHost), allow: deny.length ? [...allow, "WebFetch(domain:*.site.localhost)"] : allow, deny });
      const r = await run(ctx, "WebFetch", { url: `http://site.localhost:${page.port}/${deny.length}`, prompt: "p" }, nobodyAsks);
      expect(r.isError).toBe(false);
      expect(r.text).toContain(`redirects (HTTP 302) to a different host: http://www.site.localhost:${page.port}/inside`);
      expect(r.text).not.toContain(SECRET);
    }
    expect(calls).toEqual(["site.localhost", "site.localhost"]);
    expect(secret.hits.size).toBe(0);
  });

  it("a redirect to http://127.0.0.1 is not followed, and fetching it next is refused without a rule naming it", async () => {
    const secret = await secretServer();
    const page = await startServer({ "*": (_req, res) => res.writeHead(301, { location: `http://127.0.0.1:${secret.port}/admin` }).end() }, { host: "127.0.0.2" });
    const { resolveHost } = scriptedResolver({ "docs.localhost": [["127.0.0.2"]] });
    const ctx = webSession({ tools: toolWith(resolveHost), allow: ["WebFetch(domain:docs.localhost)", "WebFetch(domain:127.0.0.2)"] });
    const first = await run(ctx, "WebFetch", { url: `http://docs.localhost:${page.port}/`, prompt: "p" }, nobodyAsks);
    expect(first.text).toContain(`to a different host: http://127.0.0.1:${secret.port}/admin`);
    const followed = await run(ctx, "WebFetch", { url: `http://127.0.0.1:${secret.port}/admin`, prompt: "p" }, approveAll);
    expect(followed.isError).toBe(true);
    expect(followed.text).toContain("127.0.0.1 is a loopback address");
    expect(secret.hits.size).toBe(0);
  });
});

describe("WebFetch through a proxy", () => {
  /** An HTTP proxy that records what it is asked (requests and CONNECTs) and refuses it. */
  async function recordingProxy(): Promise<{ url: string; log: string[] }> {
    const log: string[] = [];
    const server = http.createServer((req, res) => {
      log.push(`${req.method} ${req.url}`);
      res.writeHead(403).end();
    });
    server.on("connect", (req: http.IncomingMessage, socket: net.Socket) => {
      log.push(`CONNECT ${req.url}`);
      socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, log };
  }

  it("a name that does not resolve here is left to the proxy", async () => {
    const proxy = await recordingProxy();
    vi.stubEnv("HTTPS_PROXY", proxy.url);
    vi.stubEnv("NO_PROXY", "");
    const { resolveHost, calls } = scriptedResolver({});
    const ctx = webSession({ tools: toolWith(resolveHost), allow: ["WebFetch(domain:docs.example.test)"] });
    const r = await run(ctx, "WebFetch", { url: "https://docs.example.test/guide", prompt: "p" }, nobodyAsks);
    expect(r.isError).toBe(true);
    expect(r.text).toContain("through the proxy");
    expect(calls).toEqual(["docs.example.test"]);
    expect(proxy.log).toEqual(["CONNECT docs.example.test:443"]);
  });

  it("an IP address, or a name that resolves here to a private address, is refused before the proxy is asked", async () => {
    const proxy = await recordingProxy();
    vi.stubEnv("HTTP_PROXY", proxy.url);
    vi.stubEnv("HTTPS_PROXY", proxy.url);
    vi.stubEnv("NO_PROXY", "");
    const { resolveHost } = scriptedResolver({ "wiki.corp.example": [["10.20.30.40"]] });
    const ctx = webSession({ tools: toolWith(resolveHost), allow: ["WebFetch(domain:wiki.corp.example)", "WebFetch(domain:169.254.169.254)"] });
    const byName = await run(ctx, "WebFetch", { url: "https://wiki.corp.example/page", prompt: "p" }, nobodyAsks);
    expect(byName.text).toContain("wiki.corp.example resolves to 10.20.30.40: 10.20.30.40 is a private network address");
    const literal = await run(ctx, "WebFetch", { url: "http://[::ffff:a9fe:a9fe]/latest/meta-data/", prompt: "p" }, approveAll);
    expect(literal.text).toContain("the IPv4-mapped form of 169.254.169.254, the cloud metadata service address");
    expect(proxy.log).toEqual([]);
  });

  it("a NO_PROXY host goes direct: checked like any direct request, and the proxy never hears of it", async () => {
    const proxy = await recordingProxy();
    vi.stubEnv("HTTPS_PROXY", proxy.url);
    vi.stubEnv("NO_PROXY", ".corp.example");
    const { resolveHost, calls } = scriptedResolver({ "wiki.corp.example": [["127.0.0.1"]] });
    const ctx = webSession({ tools: toolWith(resolveHost), allow: ["WebFetch(domain:wiki.corp.example)", "WebFetch(domain:gone.corp.example)"] });
    const loopback = await run(ctx, "WebFetch", { url: "https://wiki.corp.example/", prompt: "p" }, nobodyAsks);
    expect(loopback.text).toContain("wiki.corp.example resolves to 127.0.0.1");
    // direct, a name that does not resolve fails here instead of being left to the proxy
    const unresolved = await run(ctx, "WebFetch", { url: "https://gone.corp.example/", prompt: "p" }, nobodyAsks);
    expect(unresolved.text).toContain("the host name gone.corp.example could not be resolved (ENOTFOUND)");
    expect(calls).toEqual(["wiki.corp.example", "gone.corp.example"]);
    expect(proxy.log).toEqual([]);
  });

  it("reads NO_PROXY as undici does: exact hosts, subdomains, ports, * and loopback direct", () => {
    const settings = { httpProxy: "http://proxy:3128", httpsProxy: "http://sproxy:3128", noProxy: "internal.example, .corp.example *.lan.example,api.example:8443" };
    const via = (url: string, s = settings) => proxyUriFor(new URL(url), s);
    expect(via("https://example.com/")).toBe("http://sproxy:3128");
    expect(via("http://example.com/")).toBe("http://proxy:3128");
    expect(via("https://internal.example/")).toBeUndefined();
    expect(via("https://a.internal.example/")).toBeUndefined();
    expect(via("https://notinternal.example/")).toBe("http://sproxy:3128");
    expect(via("https://corp.example/")).toBeUndefined();
    expect(via("https://x.lan.example/")).toBeUndefined();
    expect(via("https://api.example:8443/")).toBeUndefined();
    expect(via("https://api.example/")).toBe("http://sproxy:3128");
    expect(via("http://localhost:3000/")).toBeUndefined();
    expect(via("http://[::1]:3000/")).toBeUndefined();
    expect(via("https://example.com/", { ...settings, noProxy: "*" })).toBeUndefined();
    expect(proxyUriFor(new URL("https://example.com/"), undefined)).toBeUndefined();
  });
});
