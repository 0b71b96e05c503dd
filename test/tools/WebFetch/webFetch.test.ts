import { describe, expect, it } from "vitest";
import { WebFetchTool, checkFetchUrl, isLoopbackHost, isSameHostRedirect, type WebFetchOutput } from "../../../src/tools/WebFetch/index.js";
import { MAX_REDIRECTS, MAX_RESPONSE_BYTES } from "../../../src/tools/WebFetch/fetchPage.js";
import { MAX_HTML_CHARS } from "../../../src/tools/WebFetch/convert.js";
import { createModelAccess } from "../../../src/agent/modelAccess.js";
import { createNonInteractiveCanUseTool } from "../../../src/permissions/index.js";
import { anthropicAt, serve } from "../../providers/support.js";
import { run, startServer, until, webSession } from "./helpers.js";

const ALLOW_LOCAL = ["WebFetch(domain:127.0.0.1)", "WebFetch(domain:localhost)"];
const output = (r: Awaited<ReturnType<typeof run>>) => r.result.output as WebFetchOutput;

const ARTICLE_HTML = `<!doctype html><html><head><title>Release notes</title><style>body{color:red}</style></head>
<body><nav><a href="/">Home</a> <a href="/blog">Blog</a> NAVIGATION-CHROME</nav>
<article><h1>Version 2.0</h1>
<p>${"Version 2.0 rewrites the scheduler, which now runs every job in its own worker, with clear limits. ".repeat(4)}</p>
<table><thead><tr><th>Flag</th><th>Default</th></tr></thead><tbody><tr><td>--jobs</td><td>4</td></tr><tr><td>--retry</td><td>2</td></tr></tbody></table>
<p>${"Upgrading needs no changes to existing configuration files, as the old keys are still read. ".repeat(4)}</p>
</article><footer>FOOTER-CHROME copyright</footer><script>window.tracker = 1</script></body></html>`;

describe("WebFetch URL checks", () => {
  it("accepts http(s) only and refuses credentials, each with a message that says what to fix", () => {
    expect(checkFetchUrl("ftp://example.com/x")).toEqual({ ok: false, message: expect.stringContaining("only http and https") });
    expect(checkFetchUrl("file:///etc/passwd")).toEqual({ ok: false, message: expect.stringContaining("not file") });
    expect(checkFetchUrl("javascript:alert(1)")).toMatchObject({ ok: false });
    expect(checkFetchUrl("example.com/docs")).toEqual({ ok: false, message: expect.stringContaining("not a valid URL") });
    const creds = checkFetchUrl("https://user:secret@example.com/a?b=1");
    expect(creds).toEqual({ ok: false, message: expect.stringContaining("https://example.com/a?b=1") });
    expect(checkFetchUrl("http://example.com@evil.org/")).toMatchObject({ ok: false });
    expect(checkFetchUrl("http://@evil.org/")).toMatchObject({ ok: true });
  });

  it("upgrades http to https except on loopback hosts", () => {
    const up = checkFetchUrl("http://Example.com:80/path?q=1");
    expect(up).toMatchObject({ ok: true, upgraded: true });
    if (up.ok) expect(up.url.href).toBe("https://example.com/path?q=1");
    for (const local of ["http://127.0.0.1:8080/", "http://localhost:3000/x", "http://[::1]:9000/", "http://127.4.5.6/", "http://app.localhost/", "http://0x7f.1/"]) {
      const checked = checkFetchUrl(local);
      expect(checked, local).toMatchObject({ ok: true, upgraded: false });
      if (checked.ok) expect(checked.url.protocol).toBe("http:");
    }
    // names that merely look local are not loopback
    for (const remote of ["http://localhost.evil.com/", "http://127.0.0.1.nip.io/", "http://128.0.0.1/", "http://localhostx/"]) {
      expect(checkFetchUrl(remote), remote).toMatchObject({ ok: true, upgraded: true });
    }
    expect(isLoopbackHost("[::1]")).toBe(true);
    expect(isLoopbackHost("::ffff:7f00:1")).toBe(false);
  });

  it("follows redirects by itself only within the same host, give or take www.", () => {
    const from = new URL("https://example.com/a");
    expect(isSameHostRedirect(from, new URL("https://example.com/b"))).toBe(true);
    expect(isSameHostRedirect(from, new URL("https://www.example.com/b"))).toBe(true);
    expect(isSameHostRedirect(new URL("https://www.example.com/"), new URL("https://example.com/b"))).toBe(true);
    expect(isSameHostRedirect(from, new URL("http://example.com/b"))).toBe(false); // downgrade
    expect(isSameHostRedirect(from, new URL("https://example.com:8443/b"))).toBe(false);
    expect(isSameHostRedirect(from, new URL("https://docs.example.com/b"))).toBe(false);
    expect(isSameHostRedirect(from, new URL("https://example.com.evil.org/b"))).toBe(false);
    expect(isSameHostRedirect(from, new URL("https://www.evil.org/b"))).toBe(false);
    expect(isSameHostRedirect(from, new URL("https://user@example.com/b"))).toBe(false);
    expect(isSameHostRedirect(from, new URL("ftp://example.com/b"))).toBe(false);
  });
});

describe("WebFetch permissions", () => {
  const deny = createNonInteractiveCanUseTool();

  it("asks without an allow rule (denied when no one can be asked) and suggests the domain rule", async () => {
    const server = await startServer({ "/": (_req, res) => res.end("hi") });
    const r = await run(webSession(), "WebFetch", { url: `${server.url}/`, prompt: "p" }, deny);
    expect(r.isError).toBe(true);
    expect(r.text).toContain("WebFetch(domain:127.0.0.1)");
    expect(server.hits.size).toBe(0);
  });

  it("an allow rule for the host allows; a deny rule wins over it", async () => {
    const server = await startServer({ "/": (_req, res) => res.end("hello from the server") });
    const allowed = await run(webSession({ allow: ["WebFetch(domain:127.0.0.1)"] }), "WebFetch", { url: `${server.url}/`, prompt: "p" }, deny);
    expect(allowed.isError).toBe(false);
    expect(allowed.text).toContain("hello from the server");
    const denied = await run(webSession({ allow: ["WebFetch"], deny: ["WebFetch(domain:127.0.0.1)"] }), "WebFetch", { url: `${server.url}/x`, prompt: "p" }, deny);
    expect(denied.isError).toBe(true);
    expect(denied.text).toContain("denied by rule");
    expect(server.hits.get("/x")).toBeUndefined();
  });

  it("domain rules resist look-alike hosts, userinfo tricks, case, IDN, ports and trailing dots", async () => {
    const matcherFor = (url: string) => WebFetchTool.preparePermissionMatcher!({ url, prompt: "p" });
    const allows = async (rule: string, url: string) => (await matcherFor(url))(rule);
    expect(await allows("domain:example.com", "https://example.com/x")).toBe(true);
    expect(await allows("domain:example.com", "https://EXAMPLE.com./x")).toBe(true);
    expect(await allows("domain:Example.COM.", "http://example.com:8080/x")).toBe(true);
    expect(await allows("domain:evil.com", "https://notevil.com/")).toBe(false);
    expect(await allows("domain:example.com", "https://example.com.evil.org/")).toBe(false);
    expect(await allows("domain:example.com", "https://evil.org/?u=https://example.com")).toBe(false);
    expect(await allows("domain:example.com", "https://evil.org/#example.com")).toBe(false);
    expect(await allows("domain:example.com", "http://example.com@evil.org/")).toBe(false);
    expect(await allows("domain:example.com", "http://evil.org\\@example.com/")).toBe(false);
    expect(await allows("domain:example.com", "https://www.example.com/")).toBe(false);
    expect(await allows("domain:*.example.com", "https://docs.example.com/")).toBe(true);
    expect(await allows("domain:*.example.com", "https://example.com/")).toBe(false);
    expect(await allows("domain:*.example.com", "https://docs.example.com.evil.org/")).toBe(false);
    expect(await allows("domain:bücher.de", "https://xn--bcher-kva.de/")).toBe(true);
    expect(await allows("domain:xn--bcher-kva.de", "https://BÜCHER.de/")).toBe(true);
    expect(await allows("domain:bucher.de", "https://bücher.de/")).toBe(false);
    expect(await allows("domain:example.com", "ftp://example.com/")).toBe(false);
    // a Cyrillic "е" is another host; percent-encoding and numeric forms are read as the host they name
    expect(await allows("domain:example.com", "https://\u0435xample.com/")).toBe(false);
    expect(await allows("domain:example.com", "https://example%2Ecom/")).toBe(true);
    expect(await allows("domain:example.com", "https://example.com%40evil.org/")).toBe(false);
    expect(await allows("domain:127.0.0.1", "http://2130706433:8080/")).toBe(true);
    expect(await allows("domain:example.com", "https://example.com\t.evil.org/")).toBe(false);
    expect(await allows("example.com", "https://example.com/")).toBe(false);

    // and through the whole pipeline: the userinfo trick is refused before anything is fetched
    const server = await startServer({ "*": (_req, res) => res.end("should not be read") });
    const ctx = webSession({ allow: ["WebFetch(domain:example.com)"] });
    const trick = await run(ctx, "WebFetch", { url: `http://example.com@127.0.0.1:${server.port}/`, prompt: "p" }, deny);
    expect(trick.isError).toBe(true);
    expect(trick.text).toContain("user name or password");
    expect(server.hits.size).toBe(0);
  });

  it("is read-only and concurrency-safe, and describes its input by URL", () => {
    const input = { url: "https://example.com/a", prompt: "p" };
    expect(WebFetchTool.isReadOnly(input)).toBe(true);
    expect(WebFetchTool.isConcurrencySafe(input)).toBe(true);
    expect(WebFetchTool.describeInput!(input)).toBe("https://example.com/a");
  });
});

describe("WebFetch against a local server", () => {
  it("turns an HTML article with a table into markdown without the page chrome", async () => {
    const server = await startServer({ "/notes": (_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(ARTICLE_HTML) });
    const r = await run(webSession({ allow: ALLOW_LOCAL }), "WebFetch", { url: `${server.url}/notes`, prompt: "What changed?" });
    expect(r.isError).toBe(false);
    expect(r.text).toContain("no model is available");
    expect(r.text).toContain("| Flag | Default |");
    expect(r.text).toMatch(/\| --jobs \| 4 \|/);
    expect(r.text).toContain("Version 2.0 rewrites the scheduler");
    expect(r.text).not.toContain("NAVIGATION-CHROME");
    expect(r.text).not.toContain("FOOTER-CHROME");
    expect(r.text).not.toContain("window.tracker");
    expect(r.text).not.toContain("color:red");
    expect(output(r)).toMatchObject({ status: 200, cached: false, truncated: false });
  });

  it("falls back to the whole body when readability finds no article", async () => {
    const server = await startServer({ "/": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html><head><title>Tiny</title></head><body></body></html>") });
    const withBody = await startServer({ "/": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html><body><div><ul><li><a href='/a'>Alpha</a></li><li><a href='/b'>Beta</a></li></ul></div></body></html>") });
    const ctx = webSession({ allow: ALLOW_LOCAL });
    const empty = await run(ctx, "WebFetch", { url: `${server.url}/`, prompt: "p" });
    expect(empty.isError).toBe(false);
    expect(empty.text).toContain("# Tiny");
    expect(empty.text).toContain("no main article was found");
    // links come back absolute, so the model can fetch them
    const list = await run(ctx, "WebFetch", { url: `${withBody.url}/`, prompt: "p" });
    expect(list.text).toContain(`[Alpha](${withBody.url}/a)`);
    expect(list.text).toContain(`[Beta](${withBody.url}/b)`);
  });

  it("reads HTML that leaves out <html>, <head> or <body>", async () => {
    const server = await startServer({
      "/fragment": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<h1>Release 2.0</h1><table><tr><th>flag</th><th>default</th></tr><tr><td>--jobs</td><td>4</td></tr></table>"),
      "/no-body": (_req, res) =>
        res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><html><head><title>Docs</title></head><header>HEADER-TEXT</header><p>Body text without a body tag.</p></html>"),
    });
    const ctx = webSession({ allow: ALLOW_LOCAL });
    const fragment = await run(ctx, "WebFetch", { url: `${server.url}/fragment`, prompt: "p" });
    expect(fragment.text).toContain("Release 2.0");
    expect(fragment.text).toContain("| --jobs | 4 |");
    const noBody = await run(ctx, "WebFetch", { url: `${server.url}/no-body`, prompt: "p" });
    expect(noBody.text).toContain("# Docs");
    expect(noBody.text).toContain("Body text without a body tag.");
  });

  it("returns JSON and other text as it is, and refuses binary types by name", async () => {
    const server = await startServer({
      "/data.json": (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"version":"2.0","items":[1,2]}'),
      "/feed": (_req, res) => res.writeHead(200, { "content-type": "application/atom+xml" }).end("<feed><title>x</title></feed>"),
      "/logo.png": (_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0])),
      "/blob": (_req, res) => res.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.from([1, 2, 0, 3])),
    });
    const ctx = webSession({ allow: ALLOW_LOCAL });
    const json = await run(ctx, "WebFetch", { url: `${server.url}/data.json`, prompt: "p" });
    expect(json.text).toContain('{"version":"2.0","items":[1,2]}');
    const feed = await run(ctx, "WebFetch", { url: `${server.url}/feed`, prompt: "p" });
    expect(feed.text).toContain("<feed><title>x</title></feed>");
    const png = await run(ctx, "WebFetch", { url: `${server.url}/logo.png`, prompt: "p" });
    expect(png.isError).toBe(true);
    expect(png.text).toContain("image/png");
    expect(png.text).toContain("binary");
    const blob = await run(ctx, "WebFetch", { url: `${server.url}/blob`, prompt: "p" });
    expect(blob.isError).toBe(true);
    expect(blob.text).toContain("application/octet-stream");
  });

  it("decodes the charset named by the header or by a meta tag", async () => {
    const latin1 = Buffer.from("caf\xe9 cr\xe8me", "latin1");
    const server = await startServer({
      "/header": (_req, res) => res.writeHead(200, { "content-type": "text/plain; charset=ISO-8859-1" }).end(latin1),
      "/meta": (_req, res) =>
        res.writeHead(200, { "content-type": "text/html" }).end(Buffer.concat([Buffer.from('<html><head><meta charset="windows-1252"></head><body><p>'), latin1, Buffer.from("</p></body></html>")])),
    });
    const ctx = webSession({ allow: ALLOW_LOCAL });
    expect((await run(ctx, "WebFetch", { url: `${server.url}/header`, prompt: "p" })).text).toContain("café crème");
    expect((await run(ctx, "WebFetch", { url: `${server.url}/meta`, prompt: "p" })).text).toContain("café crème");
  });

  it("follows same-host redirects up to the limit and refuses a longer chain", async () => {
    const server = await startServer({
      "/final": (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("arrived"),
      "*": (req, res) => {
        // /hop/N redirects to /hop/N-1, /hop/0 to /final; /loop redirects to itself
        const path = new URL(req.url!, "http://x").pathname;
        if (path === "/loop") return res.writeHead(302, { location: "/loop" }).end();
        const n = Number(path.split("/")[2]);
        res.writeHead(301, { location: n === 0 ? "/final" : `/hop/${n - 1}` }).end();
      },
    });
    const ctx = webSession({ allow: ALLOW_LOCAL });
    const ok = await run(ctx, "WebFetch", { url: `${server.url}/hop/${MAX_REDIRECTS - 1}`, prompt: "p" });
    expect(ok.isError).toBe(false);
    expect(ok.text).toContain("arrived");
    expect(output(ok).finalUrl).toBe(`${server.url}/final`);

    const tooMany = await run(ctx, "WebFetch", { url: `${server.url}/hop/${MAX_REDIRECTS}`, prompt: "p" });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.text).toContain(`more than ${MAX_REDIRECTS}`);

    const loop = await run(ctx, "WebFetch", { url: `${server.url}/loop`, prompt: "p" });
    expect(loop.isError).toBe(true);
    expect(loop.text).toContain("Too many redirects");
    expect(server.hits.get("/loop")).toBe(MAX_REDIRECTS + 1);
  });

  it("does not follow a redirect to another host; the result names the new URL", async () => {
    const other = await startServer({ "/target": (_req, res) => res.end("other host") });
    const server = await startServer({ "/moved": (_req, res) => res.writeHead(301, { location: `http://localhost:${other.port}/target` }).end() });
    const r = await run(webSession({ allow: ALLOW_LOCAL }), "WebFetch", { url: `${server.url}/moved`, prompt: "p" });
    expect(r.isError).toBe(false);
    expect(r.text).toContain(`http://localhost:${other.port}/target`);
    expect(r.text).toContain("call WebFetch again");
    expect(output(r).redirect).toEqual({ location: `http://localhost:${other.port}/target`, status: 301 });
    expect(other.hits.size).toBe(0);
  });

  it("stops reading at 10 MB and says the response was cut", async () => {
    const chunk = Buffer.alloc(64 * 1024, "a");
    const server = await startServer({
      "/endless": (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        // writes until the client goes away: the tool must stop, not drain
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once("drain", pump);
        };
        pump();
      },
    });
    const r = await run(webSession({ allow: ALLOW_LOCAL }), "WebFetch", { url: `${server.url}/endless`, prompt: "p" });
    expect(r.isError).toBe(false);
    expect(output(r)).toMatchObject({ bytes: MAX_RESPONSE_BYTES, truncated: true });
    expect(r.text).toContain("larger than 10.0 MB");
    await until(() => server.closedEarly() === 1);
  });

  it("times out, saying whether it waited for headers or for the body", async () => {
    const server = await startServer({
      "/silent": () => undefined,
      "/stall": (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("partial");
      },
    });
    const ctx = webSession({ allow: ALLOW_LOCAL, settings: { webFetch: { timeoutMs: 300 } } });
    const silent = await run(ctx, "WebFetch", { url: `${server.url}/silent`, prompt: "p" });
    expect(silent.isError).toBe(true);
    expect(silent.text).toContain("Timed out after 300 ms waiting for");
    const stall = await run(ctx, "WebFetch", { url: `${server.url}/stall`, prompt: "p" });
    expect(stall.isError).toBe(true);
    expect(stall.text).toContain("reading the body");
  });

  it("caches pages for repeated calls: the server sees one request", async () => {
    const server = await startServer({ "/page": (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("cached body") });
    const ctx = webSession({ allow: ALLOW_LOCAL });
    const first = await run(ctx, "WebFetch", { url: `${server.url}/page`, prompt: "one" });
    const second = await run(webSession({ allow: ALLOW_LOCAL }), "WebFetch", { url: `${server.url}/page`, prompt: "another question" });
    expect(output(first).cached).toBe(false);
    expect(output(second).cached).toBe(true);
    expect(second.text).toContain("cached body");
    expect(server.hits.get("/page")).toBe(1);
    // error responses are not cached
    const failing = await startServer({ "/err": (_req, res) => res.writeHead(503, { "content-type": "text/plain" }).end("busy") });
    const e1 = await run(ctx, "WebFetch", { url: `${failing.url}/err`, prompt: "p" });
    expect(e1.text).toContain("HTTP 503");
    await run(ctx, "WebFetch", { url: `${failing.url}/err`, prompt: "p" });
    expect(failing.hits.get("/err")).toBe(2);
  });

  it("an abort stops the fetch and the call is reported as cancelled", async () => {
    let arrived = false;
    const server = await startServer({
      "/slow": () => {
        arrived = true;
      },
    });
    const abortController = new AbortController();
    const ctx = webSession({ allow: ALLOW_LOCAL, abortController });
    const pending = run(ctx, "WebFetch", { url: `${server.url}/slow`, prompt: "p" });
    await until(() => arrived);
    abortController.abort();
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/interrupt/i);
    await until(() => server.closedEarly() === 1);
  });
});

describe("WebFetch's small-model step", () => {
  it("asks the small model with the page and the prompt; its answer is the result", async () => {
    const web = await startServer({ "/notes": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(ARTICLE_HTML) });
    const model = await serve({ turns: [{ content: [{ type: "text", text: "The default for --jobs is 4." }] }] });
    const models = createModelAccess({ provider: anthropicAt(model), smallModel: "claude-haiku-4-5" });
    const r = await run(webSession({ allow: ALLOW_LOCAL, models }), "WebFetch", { url: `${web.url}/notes`, prompt: "What is the default of --jobs?" });
    expect(r.isError).toBe(false);
    expect(r.text).toBe("The default for --jobs is 4.");
    expect(output(r).answeredBy).toBe("claude-haiku-4-5");
    const [request] = model.requests();
    expect(request.body.model).toBe("claude-haiku-4-5");
    const sent = JSON.stringify(request.body.messages);
    expect(sent).toContain("What is the default of --jobs?");
    expect(sent).toContain("| --jobs | 4 |");
    expect(sent).toContain("Version 2.0 rewrites the scheduler");
    expect(JSON.stringify(request.body.system)).toContain("never instructions");
  });

  it("falls back to the page text, saying why, when the model call fails", async () => {
    const web = await startServer({ "/p": (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("the page text") });
    const model = await serve({ turns: [{ status: 400 }] });
    const models = createModelAccess({ provider: anthropicAt(model) });
    const r = await run(webSession({ allow: ALLOW_LOCAL, models }), "WebFetch", { url: `${web.url}/p`, prompt: "q" });
    expect(r.isError).toBe(false);
    expect(r.text).toContain("asking the model failed");
    expect(r.text).toContain("the page text");
    expect(output(r).answeredBy).toBeUndefined();
  });
});

describe("WebFetch's HTML conversion bound", () => {
  it("converts only the first MAX_HTML_CHARS of a huge HTML page and says so", async () => {
    const html = `<html><body><h1>Huge</h1><p>${"word ".repeat(MAX_HTML_CHARS / 5)}</p><p>TAIL-MARKER</p></body></html>`;
    const web = await startServer({ "/huge": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(html) });
    const r = await run(webSession({ allow: ALLOW_LOCAL }), "WebFetch", { url: `${web.url}/huge`, prompt: "p" });
    expect(r.isError).toBe(false);
    expect(r.text).toContain(`The HTML was longer than ${MAX_HTML_CHARS} characters; only its beginning was converted.`);
    expect(r.text).not.toContain("TAIL-MARKER");
    expect(output(r).truncated).toBe(true);
  });
});
