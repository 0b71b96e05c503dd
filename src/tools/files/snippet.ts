import { numberLines } from "./readFormat.js";
import { backLines, countNewlines, forwardLines, type TextSource } from "./textSource.js";

export interface Snippet {
  /** Numbered lines, Read's format. */
  text: string;
  startLine: number;
  endLine: number;
  /** Lines of the region left out because it was longer than the cap. */
  omittedLines: number;
}

/** The lines holding [from, to) with `context` lines around, numbered like Read, at most `maxLines` shown. */
export function snippetAround(source: TextSource, from: number, to: number, context = 3, maxLines = 40): Snippet {
  const windowFrom = backLines(source, from, context);
  const endsAtLineStart = to > from && source.lastIndexOfNewline(to) === to - 1;
  const windowTo = forwardLines(source, to, context + (endsAtLineStart ? 0 : 1));
  const firstLine = countNewlines(source, source.start, windowFrom) + 1;
  const text = source.slice(windowFrom, windowTo);
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  const shown = lines.slice(0, maxLines);
  return {
    text: numberLines(shown, firstLine),
    startLine: firstLine,
    endLine: firstLine + shown.length - 1,
    omittedLines: lines.length - shown.length,
  };
}
