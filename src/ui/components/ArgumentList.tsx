import { Box, Text } from "ink";
import { compactJson, terminalSafe } from "./format.js";

/** Characters of one value shown before it is cut (the dialog must stay on the screen). */
const VALUE_CHARS = 400;
/** Lines of a multi-line string value shown. */
const VALUE_LINES = 3;

interface Row {
  depth: number;
  key: string;
  value: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const isScalar = (value: unknown) => value === null || ["string", "number", "boolean"].includes(typeof value);

/** A string as written (its first lines), a list of plain values as a list, anything else as short JSON. */
function valueText(value: unknown): string {
  if (Array.isArray(value) && value.length > 0 && value.every(isScalar)) {
    const list = value.map((item) => (typeof item === "string" ? terminalSafe(item, "input").replace(/\n/g, " ⏎ ") : String(item))).join(", ");
    return list.length > VALUE_CHARS ? `${list.slice(0, VALUE_CHARS - 1)}…` : list;
  }
  if (typeof value !== "string") return compactJson(value, VALUE_CHARS);
  const lines = terminalSafe(value, "input").split("\n");
  const shown = lines.slice(0, VALUE_LINES).join("\n");
  const cut = shown.length > VALUE_CHARS ? `${shown.slice(0, VALUE_CHARS - 1)}…` : shown;
  return lines.length > VALUE_LINES ? `${cut}\n… +${lines.length - VALUE_LINES} lines` : cut === "" ? '""' : cut;
}

/** One row per member; a nested object's members indented under it (one level; deeper ones as JSON). */
function rowsOf(input: Record<string, unknown>, depth: number, out: Row[]): Row[] {
  for (const [key, value] of Object.entries(input)) {
    if (isPlainObject(value) && depth < 1 && Object.keys(value).length > 0) {
      out.push({ depth, key, value: "" });
      rowsOf(value, depth + 1, out);
    } else {
      out.push({ depth, key, value: valueText(value) });
    }
  }
  return out;
}

/** A call's arguments as `key: value` rows, a value wrapping under itself, never the raw JSON of the call. */
export function ArgumentList({ input, maxLines, expanded = false }: { input: unknown; maxLines: number; expanded?: boolean }) {
  if (!isPlainObject(input)) return <Text>{input === undefined ? "(no arguments)" : compactJson(input, VALUE_CHARS)}</Text>;
  const rows = rowsOf(input, 0, []);
  if (rows.length === 0) return <Text dimColor>(no arguments)</Text>;
  const shown = expanded ? rows : rows.slice(0, Math.max(1, maxLines));
  return (
    <Box flexDirection="column">
      {shown.map((row, i) => (
        <Box key={i} flexDirection="row" marginLeft={row.depth * 2}>
          <Box flexShrink={0}>
            <Text dimColor>{`${terminalSafe(row.key, "input")}:${row.value ? " " : ""}`}</Text>
          </Box>
          <Text>{row.value}</Text>
        </Box>
      ))}
      {shown.length < rows.length ? <Text dimColor>{`… +${rows.length - shown.length} more (ctrl+o to show all)`}</Text> : null}
    </Box>
  );
}
