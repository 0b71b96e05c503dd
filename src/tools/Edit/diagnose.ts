/**
 * Why old_string was not found, in terms the model can act on: the closest region of the file with line
 * numbers, its first differing line and how it differs, and common slips (Read's line-number prefixes or
 * truncation marker pasted into old_string, wrong letter case, an edit that was already applied).
 * Pure functions of the texts (LF line endings).
 */
import { LINE_NUMBER_PREFIX, TRUNCATED_LINE_PATTERN, numberLines } from "../files/readFormat.js";
import { leadingWhitespace, lineNumbersOf, oldLinesOf, type MatchOutcome, type MatchStrategy } from "./match.js";
import { normalizeTypography } from "./quotes.js";

const FUZZY_MAX_LINES = 200_000;
const CASE_SEARCH_MAX_CHARS = 32 * 1024 * 1024;
const EXCERPT_MAX_LINES = 24;
const EXCERPT_CONTEXT = 2;
const NEW_STRING_MIN_CHARS = 10;

export interface LineDifference {
  /** 1-based line of the file. */
  fileLine: number;
  fileText: string;
  /** 1-based line within old_string. */
  oldLine: number;
  oldText: string;
  explanation: string;
}

export interface ClosestRegion {
  startLine: number;
  endLine: number;
  /** Lines of old_string equal to their counterpart here, ignoring whitespace, typography and case. */
  similarLines: number;
  oldLineCount: number;
  excerpt: string;
  firstDifference?: LineDifference;
}

export interface NoMatchDiagnosis {
  closest?: ClosestRegion;
  /** new_string is already in the file, at this line. */
  newStringLine?: number;
  /** old_string carries Read's `N\t` prefixes; `matchLine` is where it matches without them. */
  lineNumberPrefixes?: { matchLine?: number };
  truncationMarker?: boolean;
  /** old_string matches here when letter case is ignored. */
  caseInsensitiveLine?: number;
  /** old_string ends with a line break, but it matches the file's last line, which has none. */
  missingFinalNewline?: boolean;
  /** old_string has literal `\n` / `\t` escapes; with real line breaks and tabs it matches at this line. */
  escapedLine?: number;
}

/** A line as compared for closeness: typography, whitespace runs and letter case do not count. */
const key = (line: string) => normalizeTypography(line).trim().replace(/\s+/g, " ").toLowerCase();

function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  for (let i = 0; i < text.length - 1; i++) {
    const g = text.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  return grams;
}

function dice(a: Map<string, number>, aSize: number, b: string): number {
  const bGrams = bigrams(b);
  let overlap = 0;
  for (const [g, count] of bGrams) overlap += Math.min(count, a.get(g) ?? 0);
  const total = aSize + Math.max(0, b.length - 1);
  return total === 0 ? 0 : (2 * overlap) / total;
}

/** The start line (0-based, may be negative) where old_string's lines line up best with the file's. */
function bestAlignment(fileLines: string[], oldLines: string[]): number | undefined {
  const anchors = new Map<string, number[]>();
  oldLines.forEach((line, k) => {
    const kk = key(line);
    if (kk.length < 2) return;
    const list = anchors.get(kk);
    if (list) list.push(k);
    else anchors.set(kk, [k]);
  });
  const votes = new Map<number, number>();
  if (anchors.size) {
    for (let j = 0; j < fileLines.length; j++) {
      const kk = key(fileLines[j]);
      const hits = anchors.get(kk);
      if (hits) for (const k of hits) votes.set(j - k, (votes.get(j - k) ?? 0) + kk.length);
    }
  }
  let best: number | undefined;
  let bestVotes = 0;
  for (const [start, v] of votes) {
    if (v > bestVotes || (v === bestVotes && best !== undefined && start < best)) {
      best = start;
      bestVotes = v;
    }
  }
  if (best !== undefined || fileLines.length > FUZZY_MAX_LINES) return best;

  // No line matches even loosely: align the longest line of old_string with the most similar file line.
  let probe = -1;
  for (let k = 0; k < oldLines.length; k++) if (probe === -1 || key(oldLines[k]).length > key(oldLines[probe]).length) probe = k;
  const probeKey = key(oldLines[probe] ?? "");
  if (probeKey.length < 4) return undefined;
  const probeGrams = bigrams(probeKey);
  let bestScore = 0.5;
  for (let j = 0; j < fileLines.length; j++) {
    const kk = key(fileLines[j]);
    if (kk.length < probeKey.length / 2 || kk.length > probeKey.length * 2) continue;
    const score = dice(probeGrams, probeKey.length - 1, kk);
    if (score > bestScore) {
      bestScore = score;
      best = j - probe;
    }
  }
  return best;
}

function indentWords(indent: string): string {
  if (indent === "") return "no indentation";
  const tabs = [...indent].filter((c) => c === "\t").length;
  const spaces = indent.length - tabs;
  return [tabs ? `${tabs} tab${tabs === 1 ? "" : "s"}` : "", spaces ? `${spaces} space${spaces === 1 ? "" : "s"}` : ""].filter(Boolean).join(" and ");
}

function explainDifference(fileText: string, oldText: string): string {
  if (fileText.trimEnd() === oldText.trimEnd()) return "only trailing whitespace differs";
  if (fileText.trim() === oldText.trim()) {
    return `indentation differs: the file has ${indentWords(leadingWhitespace(fileText))}, old_string has ${indentWords(leadingWhitespace(oldText))}`;
  }
  if (fileText.toLowerCase() === oldText.toLowerCase()) return "letter case differs";
  if (key(fileText) === key(oldText)) return "quotes, dashes, spacing or letter case inside the line differ";
  return "the text differs";
}

function lineAgrees(fileText: string, oldText: string, k: number, n: number): boolean {
  if (n === 1) return fileText.includes(oldText);
  if (k === 0) return fileText.endsWith(oldText);
  if (k === n - 1) return fileText.startsWith(oldText);
  return fileText === oldText;
}

function closestRegion(fileLines: string[], oldLines: string[]): ClosestRegion | undefined {
  const aligned = bestAlignment(fileLines, oldLines);
  if (aligned === undefined) return undefined;
  const n = oldLines.length;
  const start = Math.max(0, aligned);
  const end = Math.min(fileLines.length, aligned + n);
  let similarLines = 0;
  let firstDifference: LineDifference | undefined;
  for (let k = 0; k < n; k++) {
    const j = aligned + k;
    if (j < 0 || j >= fileLines.length) continue;
    if (key(fileLines[j]) === key(oldLines[k])) similarLines++;
    if (!firstDifference && !lineAgrees(fileLines[j], oldLines[k], k, n)) {
      firstDifference = {
        fileLine: j + 1,
        fileText: fileLines[j],
        oldLine: k + 1,
        oldText: oldLines[k],
        explanation: explainDifference(fileLines[j], oldLines[k]),
      };
    }
  }
  const from = Math.max(0, start - EXCERPT_CONTEXT);
  const to = Math.min(fileLines.length, end + EXCERPT_CONTEXT, from + EXCERPT_MAX_LINES);
  return {
    startLine: start + 1,
    endLine: Math.max(start + 1, end),
    similarLines,
    oldLineCount: n,
    excerpt: numberLines(fileLines.slice(from, to), from + 1),
    firstDifference,
  };
}

function lineOf(content: string, index: number): number {
  return lineNumbersOf(content, [index])[0];
}

export function diagnoseNoMatch(content: string, oldString: string, newString: string): NoMatchDiagnosis {
  const diagnosis: NoMatchDiagnosis = {};
  const oldLines = oldLinesOf(oldString).lines;

  const nonEmpty = oldLines.filter((l) => l.trim() !== "");
  if (nonEmpty.length && nonEmpty.every((l) => LINE_NUMBER_PREFIX.test(l))) {
    const stripped = oldLines.map((l) => l.replace(LINE_NUMBER_PREFIX, "")).join("\n") + (oldString.endsWith("\n") ? "\n" : "");
    const at = content.indexOf(stripped);
    diagnosis.lineNumberPrefixes = at === -1 ? {} : { matchLine: lineOf(content, at) };
  }
  if (TRUNCATED_LINE_PATTERN.test(oldString)) diagnosis.truncationMarker = true;
  if (content.length <= CASE_SEARCH_MAX_CHARS) {
    const at = content.toLowerCase().indexOf(oldString.toLowerCase());
    if (at !== -1) diagnosis.caseInsensitiveLine = lineOf(content, at);
  }
  if (oldString.endsWith("\n") && !content.endsWith("\n") && content.endsWith(oldString.slice(0, -1))) diagnosis.missingFinalNewline = true;
  if (/\\[nt]/.test(oldString)) {
    const at = content.indexOf(oldString.replace(/\\n/g, "\n").replace(/\\t/g, "\t"));
    if (at !== -1) diagnosis.escapedLine = lineOf(content, at);
  }
  if (newString.trim().length >= NEW_STRING_MIN_CHARS || (newString.trim() && newString.includes("\n"))) {
    const at = content.indexOf(newString);
    if (at !== -1) diagnosis.newStringLine = lineOf(content, at);
  }
  const closest = closestRegion(content.split("\n"), oldLines);
  if (closest) diagnosis.closest = closest;
  return diagnosis;
}

const STRATEGY_WORDS: Record<MatchStrategy, string> = {
  exact: "",
  quote_normalized: " (comparing curly and straight quotes, Unicode dashes and spaces as equal)",
  trailing_whitespace: " (ignoring whitespace at line ends)",
  indentation_shift: " (allowing the indentation to be shifted)",
  whitespace_normalized: " (treating tabs and spaces, and runs of them inside lines, as equal)",
  escape_sequences: " (reading \\n, \\t and \\\" escapes as the characters they stand for, or the reverse)",
  indentation_remapped: " (allowing each indentation level to differ)",
};

export function formatNoMatchMessage(shownPath: string, diagnosis: NoMatchDiagnosis, options: { exactOnly?: string } = {}): string {
  const parts: string[] = [];
  parts.push(
    options.exactOnly
      ? `old_string was not found in ${shownPath}. ${options.exactOnly}`
      : `old_string was not found in ${shownPath}: no exact match, and none after normalizing quotes, dashes and spaces, ignoring trailing whitespace, shifting indentation, treating tabs and spaces alike, reading escape sequences, or remapping indentation levels.`,
  );
  if (diagnosis.newStringLine !== undefined) {
    parts.push(
      `new_string already appears in the file at line ${diagnosis.newStringLine}, so this edit may have been applied already. Read the file to check before retrying.`,
    );
  }
  if (diagnosis.lineNumberPrefixes) {
    const where = diagnosis.lineNumberPrefixes.matchLine !== undefined ? ` Without them it matches at line ${diagnosis.lineNumberPrefixes.matchLine}.` : "";
    parts.push(`old_string starts its lines with Read's line-number prefixes (like "12\\t"); they are not part of the file. Remove them from old_string (and new_string).${where}`);
  }
  if (diagnosis.truncationMarker) {
    parts.push(
      "old_string contains Read's line-truncation marker, which is not in the file. Use a shorter old_string that stops before the cut, or view the full line with Bash (e.g. sed -n 'Np' FILE).",
    );
  }
  if (diagnosis.missingFinalNewline) {
    parts.push("old_string ends with a line break, but the file's last line has none. Drop the final line break from old_string (and new_string).");
  }
  if (diagnosis.escapedLine !== undefined) {
    parts.push(
      `old_string contains the two-character escapes \\n or \\t where the file has real line breaks or tabs; with real ones it matches at line ${diagnosis.escapedLine}. Send actual line breaks and tabs in old_string and new_string.`,
    );
  }
  if (diagnosis.caseInsensitiveLine !== undefined) {
    parts.push(`old_string matches at line ${diagnosis.caseInsensitiveLine} if letter case is ignored; copy the file's exact casing.`);
  }
  const c = diagnosis.closest;
  if (c) {
    const range = c.startLine === c.endLine ? `line ${c.startLine}` : `lines ${c.startLine}-${c.endLine}`;
    parts.push(
      `The closest part of the file is ${range} (${c.similarLines} of old_string's ${c.oldLineCount} line${c.oldLineCount === 1 ? "" : "s"} are nearly identical there):\n${c.excerpt}`,
    );
    const d = c.firstDifference;
    if (d) {
      parts.push(
        `First difference, at line ${d.fileLine} of the file (line ${d.oldLine} of old_string): ${d.explanation}.\n  file:       ${JSON.stringify(d.fileText)}\n  old_string: ${JSON.stringify(d.oldText)}`,
      );
    }
  } else if (parts.length === 1 && !options.exactOnly) {
    parts.push("No part of the file resembles old_string; check that this is the right file (Grep can find where the text lives).");
  }
  parts.push(
    "Next step: copy the text exactly as it is in the file (Read shows each line after its number and a tab; the number and tab are not part of the line) and retry. If the file may have changed, Read it again first.",
  );
  return parts.join("\n\n");
}

export function formatAmbiguousMessage(shownPath: string, outcome: Extract<MatchOutcome, { kind: "ambiguous" }>): string {
  const shown = outcome.lines.join(", ");
  const more = outcome.count > outcome.lines.length ? ", …" : "";
  return (
    `old_string matches ${outcome.count} places in ${shownPath}${STRATEGY_WORDS[outcome.strategy]}, at lines ${shown}${more}. ` +
    `Without replace_all, Edit changes exactly one place. Either add surrounding lines to old_string so that it matches only the place you mean, ` +
    `or set replace_all to true to change all ${outcome.count}.`
  );
}
