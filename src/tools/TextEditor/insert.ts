import type { TextRewrite } from "../Edit/editFile.js";
import { normalizeToLf } from "../files/lineEndings.js";

function lineCount(lf: string): number {
  if (lf === "") return 0;
  return lf.split("\n").length - (lf.endsWith("\n") ? 1 : 0);
}

/**
 * insert: `text` becomes the lines after line `line` (0: before the first). The inserted block always ends
 * with a line break unless it is appended to a file whose last line has none, which keeps that style.
 */
export function insertAfterLine(line: number, text: string): TextRewrite {
  return (lf) => {
    const total = lineCount(lf);
    if (line > total) {
      return {
        ok: false,
        code: "no_match",
        message: `insert_line ${line} is past the end of the file, which has ${total} line${total === 1 ? "" : "s"}. Use a value from 0 (top of the file) to ${total} (after the last line).`,
      };
    }
    const body = normalizeToLf(text);
    let at = 0;
    for (let k = 0; k < line; k++) at = lf.indexOf("\n", at) + 1 || lf.length;
    const appendsToUnterminated = line === total && total > 0 && !lf.endsWith("\n");
    const inserted = appendsToUnterminated ? `\n${body.replace(/\n$/, "")}` : body.endsWith("\n") ? body : `${body}\n`;
    return { ok: true, replacements: [{ start: at, end: at, text: inserted }] };
  };
}
