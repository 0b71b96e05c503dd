/**
 * A generic model of a program's command-line options, as getopt_long and git's parse-options read them:
 * bundled short flags (`-la`), short options with a value attached or in the next word (`-n5`, `-n 5`),
 * long options with `=value` or a value in the next word. Only options listed in the table are known;
 * anything else (an abbreviated long option, an option we did not list, a word whose value depends on an
 * expansion in option position) makes the parse fail, so the program is not judged read-only.
 * Long options must be spelled in full: getopt_long accepts any unique prefix, and which option a prefix
 * names depends on the program's whole option table, which we do not know.
 */
import type { Word } from "./words.js";

/**
 * What an option does with its arguments:
 * - `flag`: nothing;
 * - `value`: one value that is not a file (`-n 5`);
 * - `path`: one value naming a file the program reads;
 * - `optional`: a long option whose value may only be attached (`--color`, `--color=always`);
 * - `pair`: two values (`jq --arg name value`);
 * - `namedPath`: a name, then a file it reads (`jq --rawfile name file`).
 */
export type OptionKind = "flag" | "value" | "path" | "optional" | "pair" | "namedPath";

export interface OptionTable {
  short: ReadonlyMap<string, OptionKind>;
  long: ReadonlyMap<string, OptionKind>;
  /** A bare `-N` is an option (`head -5`, `git log -3`). */
  numeric: boolean;
  /** Options end at the first operand (POSIX and bash builtins); GNU tools read options anywhere. */
  optionsFirst: boolean;
  /** Every word is an operand (`echo`, `test`). */
  noOptions: boolean;
}

export interface OptionTableSpec {
  /** Short flags, as one string of letters (`"laRh"`). */
  flags?: string;
  /** Short options taking a value. */
  values?: string;
  /** Short options taking a file to read. */
  paths?: string;
  /** Short options whose value may only be attached (`date -I`, `date -Iseconds`). */
  optional?: string;
  /** Long options, space separated, without `--`; a name may end with `=` (value), `=?` (optional value), `=path`, `=pair` or `=namedPath`. */
  long?: string;
  numeric?: boolean;
  optionsFirst?: boolean;
  noOptions?: boolean;
}

const LONG_KIND: Record<string, OptionKind> = { "": "flag", "=": "value", "=?": "optional", "=path": "path", "=pair": "pair", "=namedPath": "namedPath" };

export function optionTable(spec: OptionTableSpec): OptionTable {
  const short = new Map<string, OptionKind>();
  for (const ch of spec.flags ?? "") short.set(ch, "flag");
  for (const ch of spec.values ?? "") short.set(ch, "value");
  for (const ch of spec.paths ?? "") short.set(ch, "path");
  for (const ch of spec.optional ?? "") short.set(ch, "optional");
  const long = new Map<string, OptionKind>();
  for (const entry of (spec.long ?? "").split(/\s+/).filter(Boolean)) {
    const at = entry.indexOf("=");
    const name = at < 0 ? entry : entry.slice(0, at);
    const kind = LONG_KIND[at < 0 ? "" : entry.slice(at)];
    if (kind === undefined) throw new Error(`bad option spec ${entry}`);
    long.set(name, kind);
  }
  return { short, long, numeric: spec.numeric ?? false, optionsFirst: spec.optionsFirst ?? false, noOptions: spec.noOptions ?? false };
}

/** Merge tables (later ones win), for programs that share option groups (git's diff and log options). */
export function mergeTables(...tables: OptionTable[]): OptionTable {
  return {
    short: new Map(tables.flatMap((t) => [...t.short])),
    long: new Map(tables.flatMap((t) => [...t.long])),
    numeric: tables.some((t) => t.numeric),
    optionsFirst: tables.some((t) => t.optionsFirst),
    noOptions: tables.some((t) => t.noOptions),
  };
}

export interface ParsedOption {
  /** `-n` or `--lines`. */
  name: string;
  /** The values, as words (a value may depend on an expansion). */
  values: Word[];
  /** For an attached value (`-n5`, `--lines=5`): its text, taken from the option word. */
  attached?: string;
}

export interface ParsedArguments {
  options: ParsedOption[];
  /** Operands, in order. */
  operands: Word[];
  /** Values of `path` and `namedPath` options, with the word they came from. */
  optionPaths: Array<{ text: string | undefined; word: Word }>;
  /** A word in option position depends on an expansion: it could be any option. */
  dynamic: boolean;
}

export type ParseResult = ParsedArguments | { unknown: string };

/** Read the arguments (after the program name) against a table. */
export function parseArguments(args: readonly Word[], table: OptionTable): ParseResult {
  const result: ParsedArguments = { options: [], operands: [], optionPaths: [], dynamic: false };
  let endOfOptions = false;
  const takeValues = (name: string, kind: OptionKind, at: number, attached: string | undefined, word: Word): number => {
    const count = kind === "pair" || kind === "namedPath" ? 2 : kind === "flag" || (kind === "optional" && attached === undefined) ? 0 : 1;
    const values: Word[] = [];
    let next = at + 1;
    if (attached !== undefined) {
      values.push({ raw: word.raw, value: attached, expands: word.expands });
    }
    while (values.length < count) {
      if (next >= args.length) return -1;
      values.push(args[next++]);
    }
    if (kind === "path" || kind === "namedPath") {
      const fileWord = values[values.length - 1];
      result.optionPaths.push({ text: fileWord.value === undefined ? undefined : fileWord === values[0] && attached !== undefined ? attached : fileWord.value, word: fileWord });
    }
    result.options.push(attached === undefined ? { name, values } : { name, values, attached });
    return next;
  };
  let i = 0;
  while (i < args.length) {
    const word = args[i];
    const text = word.value;
    if (endOfOptions || table.noOptions) {
      if (text === undefined) result.dynamic = true;
      result.operands.push(word);
      i++;
      continue;
    }
    if (text === undefined) {
      // an expansion in option position may turn into any option
      result.dynamic = true;
      result.operands.push(word);
      i++;
      continue;
    }
    if (text === "--") {
      endOfOptions = true;
      i++;
      continue;
    }
    if (!text.startsWith("-") || text === "-") {
      result.operands.push(word);
      if (table.optionsFirst) endOfOptions = true;
      i++;
      continue;
    }
    if (table.numeric && /^-\d+$/.test(text)) {
      result.options.push({ name: text, values: [] });
      i++;
      continue;
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const name = eq < 0 ? text.slice(2) : text.slice(2, eq);
      const kind = table.long.get(name);
      if (kind === undefined) return { unknown: eq < 0 ? text : text.slice(0, eq) };
      if (eq >= 0 && kind === "flag") return { unknown: text };
      const attached = eq < 0 ? undefined : text.slice(eq + 1);
      if (attached !== undefined && (kind === "pair" || kind === "namedPath")) return { unknown: text };
      const next = takeValues(`--${name}`, kind, i, attached, word);
      if (next < 0) return { unknown: `${text} without its value` };
      i = next;
      continue;
    }
    let next = i + 1;
    for (let c = 1; c < text.length; c++) {
      const ch = text[c];
      const kind = table.short.get(ch);
      if (kind === undefined) return { unknown: `-${ch}` };
      if (kind === "flag") {
        result.options.push({ name: `-${ch}`, values: [] });
        continue;
      }
      const rest = text.slice(c + 1);
      next = takeValues(`-${ch}`, kind, i, rest === "" ? undefined : rest, word);
      if (next < 0) return { unknown: `-${ch} without its value` };
      break;
    }
    i = next;
  }
  return result;
}

/** Whether an option was given (by any of its names). */
export function hasOption(parsed: ParsedArguments, ...names: string[]): boolean {
  return parsed.options.some((o) => names.includes(o.name));
}

/**
 * A glob or brace word can expand to an option (`*` matches a file named `-delete`, `{-o,x}` is `-o x`),
 * unless it starts with literal text that is not `-` (`src/*.ts`). Such words are treated as unknown.
 */
export function expandingAsUnknown(words: readonly Word[]): Word[] {
  return words.map((w) => (w.expands && w.value !== undefined && /^[-*?[{]/.test(w.value) ? { raw: w.raw, expands: true } : w));
}
