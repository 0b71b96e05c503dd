/**
 * Parsers for what rg prints with `--null`: `path\0N:text` (match), `path\0N-text` (context) and `--`
 * between context groups in content mode; `path\0N` in count mode. A path containing a newline arrives
 * split over several records; the pieces are joined back before the NUL is looked for.
 */

export interface ContentRecord {
  path: string;
  line: number;
  text: string;
  isMatch: boolean;
}

/** A content record is kept as rg printed it and only parsed into a ContentRecord when it is shown. */
export type ParsedRecord =
  | { kind: "content"; path: string; raw: string; isMatch: boolean }
  | { kind: "count"; path: string; count: number }
  | { kind: "binary"; path: string };

const BINARY_NOTICE = /^(.*): binary file matches \(/;

/** A line-record parser for content or count mode; returns undefined for records that carry nothing. */
export function createRecordParser(mode: "content" | "count"): (record: string) => ParsedRecord | undefined {
  let carried = "";
  return (raw) => {
    const record = carried ? `${carried}\n${raw}` : raw;
    const nul = record.indexOf("\0");
    if (nul < 0) {
      carried = "";
      if (record === "--" || record === "") return undefined;
      const binary = BINARY_NOTICE.exec(record);
      if (binary) return { kind: "binary", path: binary[1] };
      carried = record;
      return undefined;
    }
    carried = "";
    const path = record.slice(0, nul);
    if (mode === "count") {
      const count = Number(record.slice(nul + 1));
      return Number.isFinite(count) ? { kind: "count", path, count } : undefined;
    }
    let end = nul + 1;
    while (end < record.length && record.charCodeAt(end) >= 48 && record.charCodeAt(end) <= 57) end++;
    const separator = record[end];
    if (end === nul + 1 || (separator !== ":" && separator !== "-")) return undefined;
    return { kind: "content", path, raw: record, isMatch: separator === ":" };
  };
}

/** A content record (`path\0N:text` or `path\0N-text`) as a ContentRecord with the given path. */
export function toContentRecord(raw: string, path: string): ContentRecord {
  const nul = raw.indexOf("\0");
  const match = /^(\d+)([:-])/.exec(raw.slice(nul + 1));
  const line = match ? Number(match[1]) : 0;
  const text = raw.slice(nul + 1 + (match ? match[0].length : 0));
  return { path, line, text, isMatch: match?.[2] === ":" };
}
