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

export type ParsedRecord =
  | { kind: "content"; record: ContentRecord }
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
    const rest = record.slice(nul + 1);
    if (mode === "count") {
      const count = Number(rest);
      return Number.isFinite(count) ? { kind: "count", path, count } : undefined;
    }
    const match = /^(\d+)([:-])/.exec(rest);
    if (!match) return undefined;
    return {
      kind: "content",
      record: { path, line: Number(match[1]), text: rest.slice(match[0].length), isMatch: match[2] === ":" },
    };
  };
}
