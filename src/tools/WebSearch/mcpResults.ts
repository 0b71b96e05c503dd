/**
 * Search results out of whatever an MCP search server returns: JSON (structured content or a text block)
 * holding a list of objects with a URL, or text records of `Title:` / `URL:` / `Description:` lines.
 */
import type { WebSearchHit } from "../../core/Tool.js";

const URL_KEYS = ["url", "link", "href", "uri"];
const TITLE_KEYS = ["title", "name", "headline"];
const SNIPPET_KEYS = ["description", "snippet", "content", "text", "summary", "body", "abstract"];
const SNIPPET_MAX = 500;

type Obj = Record<string, unknown>;

function firstString(item: Obj, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = item[key];
    if (typeof value === "string" && value.trim()) return value.trim();
  }
  return undefined;
}

function isHttpUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

function hitOf(item: unknown): WebSearchHit | undefined {
  if (!item || typeof item !== "object" || Array.isArray(item)) return undefined;
  const url = firstString(item as Obj, URL_KEYS);
  if (!url || !isHttpUrl(url)) return undefined;
  const title = firstString(item as Obj, TITLE_KEYS) ?? url;
  const snippet = firstString(item as Obj, SNIPPET_KEYS);
  return { title, url, ...(snippet ? { snippet: snippet.length > SNIPPET_MAX ? `${snippet.slice(0, SNIPPET_MAX)}…` : snippet } : {}) };
}

/** The first list (depth-first, a few levels down) whose entries look like results. */
function hitsInJson(value: unknown, depth = 0): WebSearchHit[] | undefined {
  if (depth > 4 || value === null || typeof value !== "object") return undefined;
  if (Array.isArray(value)) {
    const hits = value.map(hitOf).filter((h): h is WebSearchHit => h !== undefined);
    if (hits.length) return hits;
    for (const entry of value) {
      const nested = hitsInJson(entry, depth + 1);
      if (nested) return nested;
    }
    return undefined;
  }
  for (const entry of Object.values(value as Obj)) {
    const nested = hitsInJson(entry, depth + 1);
    if (nested) return nested;
  }
  return undefined;
}

function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

const FIELD = /^\s*(title|name|url|link|description|snippet|summary)\s*:\s*(.*)$/i;

/** Records of `Key: value` lines separated by blank lines (the Brave search server's text format, among others). */
function hitsInText(text: string): WebSearchHit[] {
  const hits: WebSearchHit[] = [];
  for (const record of text.split(/\n\s*\n/)) {
    const fields: Obj = {};
    for (const line of record.split("\n")) {
      const match = FIELD.exec(line);
      if (match) fields[match[1].toLowerCase()] ??= match[2].trim();
    }
    const hit = hitOf(fields);
    if (hit) hits.push(hit);
  }
  return hits;
}

/** Hits from an MCP result; `undefined` when it is text that does not read as a list of results. */
export function hitsFromMcpResult(structuredContent: unknown, texts: readonly string[]): WebSearchHit[] | undefined {
  // JSON with no result-like entries is an empty result list, not an unreadable one.
  if (structuredContent !== undefined && structuredContent !== null) return hitsInJson(structuredContent) ?? [];
  for (const text of texts) {
    const json = parseJson(text);
    if (json !== undefined) return hitsInJson(json) ?? [];
  }
  const fromText = texts.flatMap(hitsInText);
  return fromText.length ? fromText : undefined;
}
