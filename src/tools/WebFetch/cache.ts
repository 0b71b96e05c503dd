/** Fetched pages, converted, for 15 minutes: a model often reads the same page again with another question. */
import { LRUCache } from "lru-cache";

export const CACHE_TTL_MS = 15 * 60 * 1000;
/** Bounded by characters held (about 50 MB of text at most), not by entry count. */
const CACHE_MAX_CHARS = 25_000_000;

export interface CachedPage {
  url: string;
  status: number;
  statusText: string;
  contentType: string;
  bytes: number;
  content: string;
  /** The body was cut at the 10 MB cap. */
  truncated: boolean;
  /** Only the first MAX_HTML_CHARS of the HTML were converted. */
  htmlCut?: boolean;
  wholeBody?: boolean;
}

const pages = new LRUCache<string, CachedPage>({
  maxSize: CACHE_MAX_CHARS,
  sizeCalculation: (page) => Math.max(1, page.content.length),
  ttl: CACHE_TTL_MS,
});

export function getCachedPage(url: string): CachedPage | undefined {
  return pages.get(url);
}

export function cachePage(key: string, page: CachedPage): void {
  // a page larger than the whole cache is simply not kept
  if (page.content.length <= CACHE_MAX_CHARS) pages.set(key, page);
}
