/**
 * A fetched body as text for the model: HTML through readability and turndown to markdown, other text
 * types decoded as they are, binary types refused. The HTML libraries load on first use, so starting
 * toolgate never pays for them.
 */
import { TextDecoder } from "node:util";

export type PageKind = "html" | "text" | "binary";

export interface ConvertedPage {
  kind: "html" | "text";
  /** Markdown for HTML, the decoded text otherwise. */
  content: string;
  title?: string;
  /** Readability found no article, so the whole body was converted. */
  wholeBody?: boolean;
  /** The HTML was longer than MAX_HTML_CHARS and only its beginning was converted. */
  htmlCut?: boolean;
}

const TEXT_APPLICATION_TYPES = new Set([
  "application/json",
  "application/ld+json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/x-yaml",
  "application/yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/graphql",
  "application/x-ndjson",
  "application/rss+xml",
  "application/atom+xml",
]);

/** The media type without parameters, lower-cased: `text/html; charset=utf-8` → `text/html`. */
export function mediaTypeOf(contentType: string): string {
  return contentType.split(";")[0].trim().toLowerCase();
}

/** What a body is, from its media type; without one, from its first bytes. */
export function classifyBody(contentType: string, body: Buffer): PageKind {
  const type = mediaTypeOf(contentType);
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type.startsWith("text/") || TEXT_APPLICATION_TYPES.has(type) || type.endsWith("+json") || type.endsWith("+xml")) return "text";
  if (type && type !== "application/octet-stream") return "binary";
  const head = body.subarray(0, 1024);
  if (head.includes(0)) return "binary";
  return /^\s*(<!doctype html|<html|<head|<body)/i.test(head.toString("latin1")) ? "html" : "text";
}

function charsetOfContentType(contentType: string): string | undefined {
  return /charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType)?.[1];
}

/** `<meta charset=…>` or `<meta http-equiv="content-type" content="…; charset=…">` in the first 2 KB. */
function charsetOfMeta(body: Buffer): string | undefined {
  const head = body.subarray(0, 2048).toString("latin1");
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
}

function bomCharset(body: Buffer): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return "utf-8";
  if (body[0] === 0xff && body[1] === 0xfe) return "utf-16le";
  if (body[0] === 0xfe && body[1] === 0xff) return "utf-16be";
  return undefined;
}

function makeDecoder(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.toLowerCase());
  } catch {
    return undefined;
  }
}

/** Decode with the charset the BOM, the header or (for HTML) a meta tag names; UTF-8 otherwise or when unknown. */
export function decodeBody(body: Buffer, contentType: string, kind: PageKind): string {
  const decoder =
    makeDecoder(bomCharset(body)) ??
    makeDecoder(charsetOfContentType(contentType)) ??
    (kind === "html" ? makeDecoder(charsetOfMeta(body)) : undefined) ??
    new TextDecoder("utf-8");
  return decoder.decode(body);
}

/**
 * A named export of a CommonJS package loaded with import(): Node and tsx give it as a named export, the CLI
 * bundle (esbuild, node mode) may give only `default` for packages that set `__esModule`.
 */
function namedExport<M extends object, K extends keyof M>(module: M, name: K): M[K] {
  const value = module[name] ?? (module as { default?: M }).default?.[name];
  if (value === undefined) throw new Error(`WebFetch could not load ${String(name)} from its HTML converter packages.`);
  return value;
}

type TurndownLike = { turndown(html: string): string };
let turndownService: Promise<TurndownLike> | undefined;

function getTurndown(): Promise<TurndownLike> {
  return (turndownService ??= Promise.all([import("turndown"), import("turndown-plugin-gfm")]).then(([turndownModule, gfmModule]) => {
    const TurndownService = turndownModule.default;
    const gfm = namedExport(gfmModule, "gfm");
    const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
    service.use(gfm);
    // Markdown escaping (`\--jobs`, `1\.`) would make flags, code and numbers differ from the page; the reader is a model, not a renderer.
    service.escape = (text: string) => text;
    // Page chrome and code the model cannot use; <title> would otherwise leak into the text.
    service.remove(["script", "style", "noscript", "title", "template", "iframe", "svg", "canvas", "form"] as never);
    return service;
  }));
}

/**
 * linkedom builds a broken tree from HTML without a `<body>` tag (a fragment, or a page that leaves the tags
 * out, as HTML allows): give it the full document shape, the head's content kept in the head.
 */
export function asFullDocument(html: string): string {
  if (/<body[\s>]/i.test(html)) return html;
  const head = /<head(?:\s[^>]*)?>([\s\S]*?)<\/head>/i.exec(html);
  const rest = (head ? html.slice(0, head.index) + html.slice(head.index + head[0].length) : html)
    .replace(/<!doctype[^>]*>/i, "")
    .replace(/<\/?html(?:\s[^>]*)?>/gi, "");
  return `<!doctype html><html><head>${head?.[1] ?? ""}</head><body>${rest}</body></html>`;
}

/** HTML → markdown: readability's article when it finds one, otherwise the whole body. */
export async function htmlToMarkdown(rawHtml: string, url: string): Promise<ConvertedPage> {
  const html = asFullDocument(rawHtml);
  const [linkedom, readability, turndown] = await Promise.all([import("linkedom"), import("@mozilla/readability"), getTurndown()]);
  const parseHTML = namedExport(linkedom, "parseHTML");
  const Readability = namedExport(readability, "Readability");
  const { document } = parseHTML(html);
  const title = document.title?.trim() || undefined;
  let article: { title?: string | null; content?: string | null; textContent?: string | null } | null = null;
  try {
    // Readability rewrites the document it is given; a second parse keeps the original for the fallback.
    const copy = parseHTML(html).document;
    setDocumentUrl(copy, url);
    article = new Readability(copy as never).parse();
  } catch {
    article = null;
  }
  if (article?.content && article.textContent?.trim()) {
    const heading = article.title?.trim() || title;
    const body = turndown.turndown(article.content).trim();
    return { kind: "html", content: heading ? `# ${heading}\n\n${body}` : body, ...(heading ? { title: heading } : {}) };
  }
  const whole = turndown.turndown(document.body?.innerHTML ?? html).trim();
  return { kind: "html", content: title ? `# ${title}\n\n${whole}` : whole, wholeBody: true, ...(title ? { title } : {}) };
}

/** Readability resolves relative links against the document's URL; linkedom documents have none by default. */
function setDocumentUrl(document: unknown, url: string): void {
  try {
    Object.defineProperty(document, "documentURI", { value: url, configurable: true });
    Object.defineProperty(document, "baseURI", { value: url, configurable: true });
  } catch {
    // links stay relative: harmless
  }
}

/**
 * HTML converted at most (characters). Conversion is synchronous and roughly linear (about 2.5 s per MB on an
 * idle core, in a worker thread: convertOffThread.ts); the model reads at most the first 100 000 characters of
 * the result anyway.
 */
export const MAX_HTML_CHARS = 2_000_000;

export async function convertBody(body: Buffer, contentType: string, url: string): Promise<ConvertedPage | { kind: "binary"; mediaType: string }> {
  const kind = classifyBody(contentType, body);
  if (kind === "binary") return { kind, mediaType: mediaTypeOf(contentType) || "application/octet-stream" };
  const text = decodeBody(body, contentType, kind);
  if (kind === "html") {
    if (text.length <= MAX_HTML_CHARS) return htmlToMarkdown(text, url);
    return { ...(await htmlToMarkdown(text.slice(0, MAX_HTML_CHARS), url)), htmlCut: true };
  }
  return { kind: "text", content: text };
}
