/**
 * Where a patch's hunks go in a file and what replaces them: a pure function of the file's text (LF line
 * endings) and the hunks. Hunks apply in order, each after the previous one. A hunk's old lines (context and
 * "-" lines) are looked for exactly, then ignoring whitespace at line ends, then ignoring indentation and
 * spacing inside lines, then also treating Unicode quotes, dashes and spaces as ASCII; each looser tier is
 * tried only when the stricter found nothing, and a tier that finds several places refuses: never a guess.
 */
import { diagnoseNoMatch } from "../Edit/diagnose.js";
import type { Replacement } from "../Edit/match.js";
import { normalizeTypography } from "../Edit/quotes.js";
import type { Hunk } from "./parse.js";

export type HunkTier = "exact" | "trailing_whitespace" | "whitespace" | "typography";

const TIERS: ReadonlyArray<{ tier: HunkTier; key: (line: string) => string }> = [
  { tier: "exact", key: (l) => l },
  { tier: "trailing_whitespace", key: (l) => l.trimEnd() },
  { tier: "whitespace", key: (l) => l.trim().replace(/\s+/g, " ") },
  { tier: "typography", key: (l) => normalizeTypography(l).trim().replace(/\s+/g, " ") },
];

const TIER_WORDS: Record<HunkTier, string> = {
  exact: "",
  trailing_whitespace: "once whitespace at line ends was ignored",
  whitespace: "once indentation and spacing inside lines were ignored",
  typography: "once spacing, quotes and dashes were compared loosely",
};

export function describeTier(tier: HunkTier): string {
  return TIER_WORDS[tier];
}

export type HunkResult =
  | { ok: true; replacements: Replacement[]; tiers: HunkTier[] }
  | { ok: false; code: "no_match" | "ambiguous"; message: string };

interface FileLines {
  lines: string[];
  /** Start offset of each line, plus one past the end. */
  starts: number[];
  endsWithNewline: boolean;
}

function splitFile(lf: string): FileLines {
  const endsWithNewline = lf.endsWith("\n");
  const lines = lf === "" ? [] : (endsWithNewline ? lf.slice(0, -1) : lf).split("\n");
  const starts: number[] = [];
  let pos = 0;
  for (const line of lines) {
    starts.push(pos);
    pos += line.length + 1;
  }
  starts.push(Math.min(pos, lf.length));
  return { lines, starts, endsWithNewline };
}

function findAnchor(file: FileLines, anchor: string, from: number): number | undefined {
  for (const { key } of TIERS) {
    const want = key(anchor);
    for (let i = from; i < file.lines.length; i++) if (key(file.lines[i]) === want) return i;
  }
  return undefined;
}

function matchesAt(file: FileLines, old: readonly string[], at: number, key: (l: string) => string): boolean {
  for (let k = 0; k < old.length; k++) if (key(file.lines[at + k]) !== key(old[k])) return false;
  return true;
}

const lineList = (lines: number[]) => lines.map((n) => n + 1).join(", ");

export function applyHunks(lf: string, hunks: readonly Hunk[], shownPath: string): HunkResult {
  const file = splitFile(lf);
  const replacements: Replacement[] = [];
  const tiers: HunkTier[] = [];
  let cursor = 0;
  for (const [index, hunk] of hunks.entries()) {
    const name = `Hunk ${index + 1} of ${hunks.length} for ${shownPath} (patch line ${hunk.patchLine})`;
    let from = cursor;
    if (hunk.anchor !== undefined) {
      const at = findAnchor(file, hunk.anchor, cursor);
      if (at === undefined) {
        return { ok: false, code: "no_match", message: `${name}: its "@@ ${hunk.anchor}" line was not found${cursor ? ` after line ${cursor}` : ""}. Use a line that is in the file (Read it again if it may have changed).` };
      }
      from = at + 1;
    }
    const old = hunk.lines.filter((l) => l.kind !== "add").map((l) => l.text);
    let at: number | undefined;
    let tier: HunkTier = "exact";
    if (old.length === 0) {
      // Only added lines: they go right after the @@ line, or at the end of the file.
      at = hunk.anchor !== undefined && !hunk.atEnd ? from : file.lines.length;
    } else {
      for (const t of TIERS) {
        const found: number[] = [];
        const last = file.lines.length - old.length;
        const starts = hunk.atEnd ? (last >= from ? [last] : []) : Array.from({ length: Math.max(0, last - from + 1) }, (_, k) => from + k);
        for (const s of starts) if (matchesAt(file, old, s, t.key)) found.push(s);
        if (found.length > 1) {
          return {
            ok: false,
            code: "ambiguous",
            message: `${name} matches ${found.length} places${t.tier === "exact" ? "" : ` ${TIER_WORDS[t.tier]}`}, at lines ${lineList(found.slice(0, 10))}${found.length > 10 ? ", …" : ""}. Add context lines (or an "@@" line naming the enclosing function or class) so that it matches only the place you mean.`,
          };
        }
        if (found.length === 1) {
          at = found[0];
          tier = t.tier;
          break;
        }
      }
      if (at === undefined) {
        const diagnosis = diagnoseNoMatch(lf, old.join("\n"), "");
        const c = diagnosis.closest;
        const closest = c ? `\nThe closest part of the file is ${c.startLine === c.endLine ? `line ${c.startLine}` : `lines ${c.startLine}-${c.endLine}`}:\n${c.excerpt}` : "";
        const diff = c?.firstDifference ? `\nFirst difference, at line ${c.firstDifference.fileLine}: ${c.firstDifference.explanation}.` : "";
        const where = from > 0 ? ` after line ${from}` : "";
        return {
          ok: false,
          code: "no_match",
          message: `${name}: its context and "-" lines were not found${where}${hunk.atEnd ? " at the end of the file" : ""}, not even ignoring whitespace.${closest}${diff}\nRead the file again and copy those lines exactly.`,
        };
      }
    }
    // The new lines: context lines stay as the file has them, "-" lines go, "+" lines come in as written.
    const out: string[] = [];
    let k = at;
    for (const l of hunk.lines) {
      if (l.kind === "add") out.push(l.text);
      else if (l.kind === "context") out.push(file.lines[k++]);
      else k++;
    }
    const start = file.starts[at];
    const end = file.starts[k];
    const reachesEnd = k === file.lines.length;
    let text = out.map((l) => `${l}\n`).join("");
    // The file's last line has no line break: whatever ends up last keeps that style.
    if (reachesEnd && !file.endsWithNewline && file.lines.length > 0) text = text.replace(/\n$/, "");
    // Appending after an unterminated last line needs a line break first.
    if (start === lf.length && lf !== "" && !file.endsWithNewline && text !== "") text = `\n${text.replace(/\n$/, "")}`;
    replacements.push({ start, end: reachesEnd ? lf.length : end, text });
    tiers.push(tier);
    cursor = k;
  }
  return { ok: true, replacements, tiers };
}
