/** How Read shows text, shared by Read (which writes it) and Edit (which recognises it pasted back into old_string). */

export const DEFAULT_READ_LIMIT = 2000;
export const MAX_LINE_CHARS = 2000;

/** Appended to a line cut at MAX_LINE_CHARS. */
export function truncatedLineMarker(fullBytes: number): string {
  return ` … [line truncated at ${MAX_LINE_CHARS} characters; the full line is ${fullBytes} bytes]`;
}

/** Recognises truncatedLineMarker's text inside old_string. */
export const TRUNCATED_LINE_PATTERN = /… \[line truncated at \d+ characters; the full line is \d+ bytes\]/;

/** `N\t` before each line, N 1-based: the format Read uses and Edit's messages quote. */
export function numberLines(lines: readonly string[], firstLine: number): string {
  return lines.map((line, i) => `${firstLine + i}\t${line}`).join("\n");
}

/** numberLines for lines already joined with "\n": one pass over the text, no array of lines in between. */
export function numberText(text: string, firstLine: number): string {
  let out = "";
  let line = firstLine;
  let from = 0;
  for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", from)) {
    out += `${line++}\t${text.slice(from, end + 1)}`;
    from = end + 1;
  }
  return `${out}${line}\t${text.slice(from)}`;
}

/** Read's line-number prefix (`12\t`, or the `12→` some agents use) at the start of a line. */
export const LINE_NUMBER_PREFIX = /^ *-?\d+(?:\t|\u2192)/;
