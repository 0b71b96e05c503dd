/**
 * What a provider makes of a 200 answer to a streaming request that is not an event stream: some servers and
 * proxies ignore `stream: true` and send the whole message as JSON, others send an HTML page or nothing.
 */

/** The body as a JSON object, or undefined when it is not one. */
export function parseJsonObject(raw: string): Record<string, unknown> | undefined {
  const trimmed = raw.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** One sentence naming what arrived instead of `expected`, with the start of the body. */
export function unexpectedBody(status: number, contentType: string, raw: string, expected: string): string {
  const preview = raw.replace(/\s+/g, " ").trim().slice(0, 200);
  const what = raw.trim() ? `${contentType || "no content type"}: ${preview}${raw.trim().length > 200 ? "…" : ""}` : `an empty body${contentType ? ` (${contentType})` : ""}`;
  return `The model server answered HTTP ${status} with ${what}, which is neither an event stream nor ${expected}. Check the base URL: it should be the API's root, not a web page or another service.`;
}
