/**
 * Where old_string is in a file, and what replaces it: a pure function of (content, old, new, replaceAll),
 * all texts with LF line endings. Strategies, loosest last, each tried only when the previous found nothing:
 *
 * 1. exact               the bytes the model gave.
 * 2. quote_normalized    curly/straight quotes, Unicode dashes and spaces compared as their ASCII forms; the
 *                        file's own characters are replaced and new_string takes the file's quote style.
 * 3. trailing_whitespace line by line, ignoring whitespace at line ends (and typography, as in 2).
 * 4. indentation_shift   whole lines whose indentation differs from old_string's by one constant prefix;
 *                        new_string is re-indented by the same shift (unless it is already indented for the file).
 * 5. whitespace_normalized tabs and spaces: runs of spaces and tabs inside lines compared as one space, and
 *                        indentation compared by width (a tab as 2, 4 or 8 columns, one width for the block).
 * 6. escape_sequences    old_string with \\n, \\t, \\" written literally where the file has the real characters,
 *                        or the reverse; new_string is converted the same way.
 * 7. indentation_remapped uneven indentation: each indentation of old_string stands for one of the file's,
 *                        keeping their order (2-space levels written for 4-space ones, say); new_string follows.
 *
 * 3 to 7 guess, so they apply only to a single candidate (or to all of them with replace_all).
 */
import { lineNumbersAt, stringSource } from "../files/textSource.js";
import { normalizeTypography, preserveQuoteStyle } from "./quotes.js";

export type MatchStrategy =
  | "exact"
  | "quote_normalized"
  | "trailing_whitespace"
  | "indentation_shift"
  | "whitespace_normalized"
  | "escape_sequences"
  | "indentation_remapped";

/** Replace content[start, end) with text. */
export interface Replacement {
  start: number;
  end: number;
  text: string;
}

export type MatchOutcome =
  | {
      kind: "matched";
      strategy: MatchStrategy;
      /** Ascending, non-overlapping. */
      replacements: Replacement[];
      /** For indentation_shift: how the file's indentation differs from old_string's, e.g. "4 more spaces". */
      shift?: string;
    }
  | { kind: "ambiguous"; strategy: MatchStrategy; count: number; /** 1-based lines of the first candidates. */ lines: number[] }
  | { kind: "not_found" };

/** How many candidates' lines an ambiguity report names. */
export const MAX_REPORTED_LINES = 10;

/** Line number (1-based) of each index, for ascending indices, in one pass. */
export function lineNumbersOf(content: string, indices: readonly number[]): number[] {
  return lineNumbersAt(stringSource(content), indices);
}

function findAll(haystack: string, needle: string): number[] {
  const positions: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) positions.push(i);
  return positions;
}

/** Greedy left-to-right: drop candidates overlapping an earlier one. */
function nonOverlapping(candidates: Replacement[]): Replacement[] {
  const kept: Replacement[] = [];
  for (const c of candidates) if (!kept.length || c.start >= kept[kept.length - 1].end) kept.push(c);
  return kept;
}

/**
 * Deleting whole lines (new_string empty, the match starting at a line start) also deletes the line break
 * after them — or, for the last line of a file without a final newline, the one before — so no blank line is
 * left behind. A deletion inside a line leaves the line break alone.
 */
function absorbLineBreak(content: string, r: Replacement, oldString: string): Replacement {
  if (r.text !== "" || oldString.endsWith("\n")) return r;
  const atLineStart = r.start === 0 || content[r.start - 1] === "\n";
  if (!atLineStart) return r;
  if (content[r.end] === "\n") return { ...r, end: r.end + 1 };
  if (r.end === content.length && r.start > 0) return { ...r, start: r.start - 1 };
  return r;
}

function decide(
  content: string,
  strategy: MatchStrategy,
  candidates: Replacement[],
  oldString: string,
  replaceAll: boolean,
  shift?: string,
): MatchOutcome | undefined {
  const found = nonOverlapping(candidates);
  if (found.length === 0) return undefined;
  if (found.length > 1 && !replaceAll) {
    return {
      kind: "ambiguous",
      strategy,
      count: found.length,
      lines: lineNumbersOf(content, found.slice(0, MAX_REPORTED_LINES).map((c) => c.start)),
    };
  }
  const replacements = found.map((r) => absorbLineBreak(content, r, oldString));
  return shift === undefined ? { kind: "matched", strategy, replacements } : { kind: "matched", strategy, replacements, shift };
}

interface Lines {
  text: string[];
  starts: number[];
}

function splitLines(content: string): Lines {
  const text = content.split("\n");
  const starts = new Array<number>(text.length);
  let pos = 0;
  for (let i = 0; i < text.length; i++) {
    starts[i] = pos;
    pos += text[i].length + 1;
  }
  return { text, starts };
}

/** old_string as lines; a final "\n" means the match must include the line break after its last line. */
export function oldLinesOf(oldString: string): { lines: string[]; endsWithNewline: boolean } {
  const lines = oldString.split("\n");
  const endsWithNewline = oldString.endsWith("\n");
  if (endsWithNewline) lines.pop();
  return { lines, endsWithNewline };
}

export function leadingWhitespace(line: string): string {
  return line.slice(0, line.length - line.trimStart().length);
}

const isBlank = (line: string) => line.trim() === "";

/**
 * The replacement text for a loose match. Lines of new_string identical to a line of old_string become the
 * file's own version of that line, so a loose match does not strip trailing whitespace or typography from
 * lines the model did not mean to change; the other lines go through `transform` (quote style, re-indent).
 */
function rebuildNewText(rawOldLines: string[], actual: string, newString: string, transform: (line: string) => string): string {
  if (newString === "") return "";
  const actualLines = oldLinesOf(actual).lines;
  const endsWithNewline = newString.endsWith("\n");
  const newLines = (endsWithNewline ? newString.slice(0, -1) : newString).split("\n");
  const sameCount = newLines.length === rawOldLines.length;
  const body = newLines
    .map((line, j) => {
      const k = sameCount && line === rawOldLines[j] ? j : rawOldLines.indexOf(line);
      return k !== -1 && k < actualLines.length ? actualLines[k] : transform(line);
    })
    .join("\n");
  return endsWithNewline ? `${body}\n` : body;
}

function matchTrailingWhitespace(content: string, lines: Lines, nOld: string, oldString: string, newString: string, replaceAll: boolean): MatchOutcome | undefined {
  const { lines: oldLines, endsWithNewline } = oldLinesOf(nOld);
  const { lines: rawOldLines } = oldLinesOf(oldString);
  const n = oldLines.length;
  const trimmed = oldLines.map((l) => l.trimEnd());
  const candidates: Replacement[] = [];
  const single = n === 1 && !endsWithNewline;
  if (single && trimmed[0] === oldLines[0]) return undefined; // nothing to ignore: the exact search already failed
  for (let i = 0; i + n <= lines.text.length; i++) {
    const first = lines.text[i].trimEnd();
    if (!first.endsWith(trimmed[0])) continue;
    const start = lines.starts[i] + first.length - trimmed[0].length;
    let end: number | undefined;
    if (single) {
      end = lines.starts[i] + lines.text[i].length;
    } else {
      let ok = true;
      const lastFull = endsWithNewline ? n - 1 : n - 2;
      for (let k = 1; k <= lastFull && ok; k++) ok = lines.text[i + k].trimEnd() === trimmed[k];
      if (!ok) continue;
      if (endsWithNewline) {
        const last = i + n - 1;
        if (last + 1 >= lines.text.length) continue; // no line break after the last line
        end = lines.starts[last] + lines.text[last].length + 1;
      } else {
        const last = lines.text[i + n - 1];
        const wanted = oldLines[n - 1];
        if (last.trimEnd() === trimmed[n - 1]) end = lines.starts[i + n - 1] + last.length;
        else if (last.startsWith(wanted)) end = lines.starts[i + n - 1] + wanted.length;
        else continue;
      }
    }
    const actual = content.slice(start, end);
    candidates.push({ start, end, text: rebuildNewText(rawOldLines, actual, newString, (l) => preserveQuoteStyle(oldString, actual, l)) });
  }
  return decide(content, "trailing_whitespace", candidates, oldString, replaceAll);
}

interface Shift {
  kind: "add" | "remove";
  prefix: string;
}

function describeShift(shift: Shift): string {
  const tabs = [...shift.prefix].filter((c) => c === "\t").length;
  const spaces = shift.prefix.length - tabs;
  const parts = [spaces ? `${spaces} space${spaces === 1 ? "" : "s"}` : "", tabs ? `${tabs} tab${tabs === 1 ? "" : "s"}` : ""].filter(Boolean);
  return `${parts.join(" and ")} ${shift.kind === "add" ? "more" : "less"} than old_string`;
}

function shiftLine(line: string, shift: Shift): string {
  if (isBlank(line)) return line;
  if (shift.kind === "add") return shift.prefix + line;
  if (line.startsWith(shift.prefix)) return line.slice(shift.prefix.length);
  const lead = leadingWhitespace(line);
  return line.slice(Math.min(lead.length, shift.prefix.length));
}

function matchIndentationShift(content: string, lines: Lines, nOld: string, oldString: string, newString: string, replaceAll: boolean): MatchOutcome | undefined {
  const { lines: oldLines, endsWithNewline } = oldLinesOf(nOld);
  const { lines: rawOldLines } = oldLinesOf(oldString);
  const n = oldLines.length;
  const anchor = oldLines.findIndex((l) => !isBlank(l));
  if (anchor === -1) return undefined;
  const anchorIndent = leadingWhitespace(oldLines[anchor]);
  const anchorBody = oldLines[anchor].trim();
  const candidates: Replacement[] = [];
  const shifts: Shift[] = [];
  for (let i = 0; i + n <= lines.text.length; i++) {
    const fileLine = lines.text[i + anchor];
    if (fileLine.trim() !== anchorBody) continue;
    const fileIndent = leadingWhitespace(fileLine);
    let shift: Shift;
    if (fileIndent.length > anchorIndent.length && fileIndent.endsWith(anchorIndent)) {
      shift = { kind: "add", prefix: fileIndent.slice(0, fileIndent.length - anchorIndent.length) };
    } else if (anchorIndent.length > fileIndent.length && anchorIndent.endsWith(fileIndent)) {
      shift = { kind: "remove", prefix: anchorIndent.slice(0, anchorIndent.length - fileIndent.length) };
    } else {
      continue;
    }
    let ok = true;
    for (let k = 0; k < n && ok; k++) {
      const have = lines.text[i + k];
      const want = oldLines[k];
      if (isBlank(want)) ok = isBlank(have);
      else if (shift.kind === "add") ok = have.trimEnd() === (shift.prefix + want).trimEnd();
      else ok = want.startsWith(shift.prefix) && have.trimEnd() === want.slice(shift.prefix.length).trimEnd();
    }
    if (!ok) continue;
    const last = i + n - 1;
    if (endsWithNewline && last + 1 >= lines.text.length) continue;
    const start = lines.starts[i];
    const end = lines.starts[last] + lines.text[last].length + (endsWithNewline ? 1 : 0);
    const actual = content.slice(start, end);
    // new_string already written at the file's indentation is not shifted a second time.
    const indented = minIndent(newString) === minIndent(actual);
    const text = rebuildNewText(rawOldLines, actual, newString, (l) => {
      const styled = preserveQuoteStyle(oldString, actual, l);
      return indented ? styled : shiftLine(styled, shift);
    });
    candidates.push({ start, end, text });
    shifts.push(shift);
  }
  const outcome = decide(content, "indentation_shift", candidates, oldString, replaceAll);
  if (outcome?.kind !== "matched") return outcome;
  return { ...outcome, shift: describeShift(shifts[0]) };
}

/** The shallowest indentation of a text's non-blank lines ("" when a line has none). */
function minIndent(text: string): string {
  let best: string | undefined;
  for (const line of text.split("\n")) {
    if (isBlank(line)) continue;
    const lead = leadingWhitespace(line);
    if (best === undefined || lead.length < best.length) best = lead;
  }
  return best ?? "";
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A pattern for old_string's lines in which whitespace is loose: each line's indentation is captured, runs of
 * spaces and tabs inside it match any run, and whitespace at line ends is ignored. Blank lines match blank lines.
 */
function looseLinesPattern(oldLines: readonly string[], endsWithNewline: boolean): RegExp {
  const lines = oldLines.map((line, k) => {
    if (isBlank(line)) return "([ \\t]*)";
    const body = line.trim().split(/[ \t]+/).map(escapeRegExp).join("[ \\t]+");
    // The first line may start inside a file line, the last may stop inside one.
    const head = k === 0 ? "(?:^([ \\t]*))?" : "^([ \\t]*)";
    const tail = k === oldLines.length - 1 && !endsWithNewline ? "" : "[ \\t]*$";
    return `${head}${body}${tail}`;
  });
  return new RegExp(lines.join("\n") + (endsWithNewline ? "\n" : ""), "gm");
}

function widthOf(indent: string, tab: number): number {
  let width = 0;
  for (const c of indent) width += c === "\t" ? tab : 1;
  return width;
}

interface LooseMatch {
  start: number;
  end: number;
  /** The file's indentation of each old_string line (blank lines: undefined). */
  indents: Array<string | undefined>;
  /** The first line of the match starts where its file line starts. */
  atLineStart: boolean;
}

/** Whether every whitespace-free word of old_string is in the content: without them no loose match exists. */
function mayMatchLoosely(nContent: string, nOld: string): boolean {
  const words = nOld.split(/\s+/).filter(Boolean).sort((a, b) => b.length - a.length);
  return words.slice(0, 3).every((word) => nContent.includes(word));
}

function looseMatches(nContent: string, oldLines: readonly string[], endsWithNewline: boolean): LooseMatch[] {
  const pattern = looseLinesPattern(oldLines, endsWithNewline);
  const found: LooseMatch[] = [];
  for (let m = pattern.exec(nContent); m; m = pattern.exec(nContent)) {
    if (m[0] === "") {
      pattern.lastIndex++;
      continue;
    }
    const atLineStart = m.index === 0 || nContent[m.index - 1] === "\n";
    // An empty optional group does not capture (ECMAScript), so an unindented first line reads as undefined.
    const indentOf = (l: string, k: number) => (isBlank(l) ? undefined : (m![k + 1] ?? (k === 0 && atLineStart ? "" : undefined)));
    found.push({ start: m.index, end: m.index + m[0].length, indents: oldLines.map(indentOf), atLineStart });
  }
  return found;
}

/** The tab width (2, 4 or 8) under which every captured indentation is as wide as old_string's, if any. */
function sameWidthTab(match: LooseMatch, oldLines: readonly string[], freeFirst: boolean): number | undefined {
  return [4, 8, 2].find((tab) =>
    oldLines.every((line, k) => {
      const indent = match.indents[k];
      if (indent === undefined || (k === 0 && (freeFirst || !match.atLineStart))) return true;
      return widthOf(indent, tab) === widthOf(leadingWhitespace(line), tab);
    }),
  );
}

/** A line's indentation rewritten to `width` columns in the file's style (tabs when the file indents with them). */
function indentTo(width: number, tab: number, useTabs: boolean): string {
  return useTabs ? "\t".repeat(Math.floor(width / tab)) + " ".repeat(width % tab) : " ".repeat(width);
}

function matchWhitespaceNormalized(content: string, loose: readonly LooseMatch[], nOld: string, oldString: string, newString: string, replaceAll: boolean): MatchOutcome | undefined {
  const { lines: oldLines } = oldLinesOf(nOld);
  const { lines: rawOldLines } = oldLinesOf(oldString);
  // An unindented first line may start inside the file's line, as an exact match would: its indentation stays.
  const freeFirst = leadingWhitespace(oldLines[0]) === "";
  const candidates: Replacement[] = [];
  for (const match of loose) {
    const tab = sameWidthTab(match, oldLines, freeFirst);
    if (tab === undefined) continue;
    const start = freeFirst && match.atLineStart ? match.start + (match.indents[0]?.length ?? 0) : match.start;
    const actual = content.slice(start, match.end);
    const useTabs = match.indents.some((i) => i?.includes("\t"));
    const text = rebuildNewText(rawOldLines, actual, newString, (line) => {
      const styled = preserveQuoteStyle(oldString, actual, line);
      const lead = leadingWhitespace(styled);
      return isBlank(styled) ? styled : indentTo(widthOf(lead, tab), tab, useTabs) + styled.slice(lead.length);
    });
    candidates.push({ start, end: match.end, text });
  }
  return decide(content, "whitespace_normalized", candidates, oldString, replaceAll);
}

/** The ways a model writes escapes the file does not have, or leaves out ones it has. */
const ESCAPE_VARIANTS: ReadonlyArray<(text: string) => string> = [
  (text) => text.replace(/\\([nt"'\\])/g, (_, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : c)),
  (text) => text.replace(/\n/g, "\\n").replace(/\t/g, "\\t"),
  (text) => text.replace(/"/g, '\\"'),
  (text) => text.replace(/\n/g, "\\n").replace(/\t/g, "\\t").replace(/"/g, '\\"'),
];

function matchEscapeSequences(content: string, oldString: string, newString: string, replaceAll: boolean): MatchOutcome | undefined {
  const candidates: Replacement[] = [];
  for (const convert of ESCAPE_VARIANTS) {
    const converted = convert(oldString);
    if (converted === oldString || converted.trim() === "") continue;
    const text = convert(newString);
    for (const start of findAll(content, converted)) candidates.push({ start, end: start + converted.length, text });
  }
  candidates.sort((a, b) => a.start - b.start);
  return decide(content, "escape_sequences", candidates, oldString, replaceAll);
}

/**
 * Uneven indentation: each distinct indentation of old_string maps to one of the file's, deeper to deeper.
 * new_string's indentations follow the same map; one the map lacks is placed relative to the nearest level.
 */
function matchIndentationRemapped(content: string, loose: readonly LooseMatch[], nOld: string, oldString: string, newString: string, replaceAll: boolean): MatchOutcome | undefined {
  const { lines: oldLines } = oldLinesOf(nOld);
  const { lines: rawOldLines } = oldLinesOf(oldString);
  const candidates: Replacement[] = [];
  for (const match of loose) {
    if (!match.atLineStart) continue;
    const map = new Map<string, string>();
    let consistent = true;
    oldLines.forEach((line, k) => {
      const fileIndent = match.indents[k];
      if (fileIndent === undefined) return;
      const oldIndent = leadingWhitespace(line);
      const known = map.get(oldIndent);
      if (known !== undefined && known !== fileIndent) consistent = false;
      map.set(oldIndent, fileIndent);
    });
    const levels = [...map.entries()].sort((a, b) => widthOf(a[0], 4) - widthOf(b[0], 4));
    for (let i = 1; i < levels.length && consistent; i++) consistent = widthOf(levels[i][1], 4) > widthOf(levels[i - 1][1], 4);
    if (!consistent) continue;
    const actual = content.slice(match.start, match.end);
    // new_string written with the file's indentation levels (and not old_string's) is left as it is.
    const newIndents = newString.split("\n").filter((l) => !isBlank(l)).map(leadingWhitespace);
    const fileLevels = new Set(map.values());
    const indented = newIndents.every((i) => fileLevels.has(i)) && !newIndents.every((i) => map.has(i));
    const text = rebuildNewText(rawOldLines, actual, newString, (line) => {
      const styled = preserveQuoteStyle(oldString, actual, line);
      return indented || isBlank(styled) ? styled : remapIndent(styled, levels);
    });
    candidates.push({ start: match.start, end: match.end, text });
  }
  return decide(content, "indentation_remapped", candidates, oldString, replaceAll);
}

/** A new line's indentation through the old → file map; between or beyond known levels, the nearest one plus the difference. */
function remapIndent(line: string, levels: ReadonlyArray<[string, string]>): string {
  const lead = leadingWhitespace(line);
  const body = line.slice(lead.length);
  const exact = levels.find(([oldIndent]) => oldIndent === lead);
  if (exact) return exact[1] + body;
  const width = widthOf(lead, 4);
  const below = [...levels].reverse().find(([oldIndent]) => widthOf(oldIndent, 4) <= width) ?? levels[0];
  const extra = width - widthOf(below[0], 4);
  const useTabs = below[1].includes("\t");
  // How many file columns one old column stands for, from the two shallowest levels (1 when there is one level).
  const ratio = levels.length > 1 ? (widthOf(levels[1][1], 4) - widthOf(levels[0][1], 4)) / Math.max(1, widthOf(levels[1][0], 4) - widthOf(levels[0][0], 4)) : 1;
  const columns = Math.max(0, Math.round(extra * ratio));
  if (extra < 0) return below[1] + body;
  return below[1] + (useTabs ? "\t".repeat(Math.round(columns / 4)) : " ".repeat(columns)) + body;
}

/**
 * Find old_string in content and compute what replaces it. All three texts use LF line endings; old_string
 * must not be empty (an empty old_string means "create the file" and is handled before matching).
 */
export function findReplacements(content: string, oldString: string, newString: string, replaceAll: boolean): MatchOutcome {
  if (oldString === "") throw new RangeError("old_string must not be empty");

  const exact = findAll(content, oldString).map((start) => ({ start, end: start + oldString.length, text: newString }));
  const exactOutcome = decide(content, "exact", exact, oldString, replaceAll);
  if (exactOutcome) return exactOutcome;

  const nContent = normalizeTypography(content);
  const nOld = normalizeTypography(oldString);
  if (nContent !== content || nOld !== oldString) {
    const normalized = findAll(nContent, nOld).map((start) => {
      const end = start + oldString.length;
      return { start, end, text: preserveQuoteStyle(oldString, content.slice(start, end), newString) };
    });
    const outcome = decide(content, "quote_normalized", normalized, oldString, replaceAll);
    if (outcome) return outcome;
  }

  if (oldString.trim() === "") return { kind: "not_found" };
  const lines = splitLines(nContent);
  let loose: LooseMatch[] | undefined;
  // The whitespace-loose scans (tiers 5 and 7) share one pass, and none at all when a word of old_string is missing.
  const looseOnce = () => (loose ??= mayMatchLoosely(nContent, nOld) ? looseMatches(nContent, oldLinesOf(nOld).lines, oldLinesOf(nOld).endsWithNewline) : []);
  return (
    matchTrailingWhitespace(content, lines, nOld, oldString, newString, replaceAll) ??
    matchIndentationShift(content, lines, nOld, oldString, newString, replaceAll) ??
    matchWhitespaceNormalized(content, looseOnce(), nOld, oldString, newString, replaceAll) ??
    matchEscapeSequences(content, oldString, newString, replaceAll) ??
    matchIndentationRemapped(content, looseOnce(), nOld, oldString, newString, replaceAll) ?? { kind: "not_found" }
  );
}

/** Apply ascending, non-overlapping replacements. */
export function applyReplacements(content: string, replacements: readonly Replacement[]): string {
  let out = "";
  let cursor = 0;
  for (const r of replacements) {
    out += content.slice(cursor, r.start) + r.text;
    cursor = r.end;
  }
  return out + content.slice(cursor);
}
