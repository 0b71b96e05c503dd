/** JSON.parse with the position of a syntax error as line and column (Node's messages do not always say). */

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; message: string; line: number; column: number };

/** Offset of the first syntax error in `text` (text.length when it ends too early). */
function findErrorOffset(text: string): number {
  let i = 0;
  const fail = (at: number): never => {
    throw at;
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) if (text[i++] !== ch) fail(i - 1);
  };
  const string = () => {
    if (text[i] !== '"') fail(i);
    i++;
    for (;;) {
      if (i >= text.length) fail(i);
      const ch = text[i];
      if (ch === '"') {
        i++;
        return;
      }
      if (ch < " ") fail(i);
      if (ch === "\\") {
        const next = text[i + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail(i);
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) {
          i += 2;
        } else {
          fail(i);
        }
        continue;
      }
      i++;
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match) fail(i);
    i += match![0].length;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        string();
        ws();
        if (text[i] !== ":") fail(i);
        i++;
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        fail(i);
      }
    }
    if (ch === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        fail(i);
      }
    }
    if (ch === '"') return string();
    if (ch === "t") return literal("true");
    if (ch === "f") return literal("false");
    if (ch === "n") return literal("null");
    if (ch === "-" || (ch >= "0" && ch <= "9")) return number();
    fail(i);
  };
  try {
    value();
    ws();
    return i < text.length ? i : -1;
  } catch (offset) {
    return Math.min(offset as number, text.length);
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - (before.lastIndexOf("\n") + 1) + 1;
  return { line, column };
}

/** Parse JSON; on failure say what and where (1-based line and column). */
export function parseJsonWithLocation(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const offset = findErrorOffset(text);
    const at = offset < 0 ? text.length : offset;
    const { line, column } = lineAndColumn(text, at);
    const found = at >= text.length ? "unexpected end of the file" : `unexpected ${JSON.stringify(text[at])}`;
    const detail = err instanceof Error ? err.message.replace(/, "[\s\S]*" is not valid JSON$/, "").replace(/ in JSON at position \d+[\s\S]*$/, "") : String(err);
    return { ok: false, line, column, message: `${found} (${detail})` };
  }
}
