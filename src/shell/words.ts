/**
 * Shell words from the AST: the text as written and, when no expansion is involved, the value bash
 * would pass to the program after quote removal.
 */
import type { SyntaxNode } from "./parser.js";

export interface Word {
  /** The source text of the word. */
  raw: string;
  /** The value after quote removal; undefined when it depends on an expansion or substitution. */
  value?: string;
  /** Unquoted glob, brace or tilde syntax that the shell expands, so the value is a pattern, not the final text. */
  expands: boolean;
}

/** Word-like node types that are a single argument. */
export const WORD_NODE_TYPES = new Set([
  "word",
  "number",
  "raw_string",
  "string",
  "ansi_c_string",
  "translated_string",
  "concatenation",
  "simple_expansion",
  "expansion",
  "command_substitution",
  "process_substitution",
  "arithmetic_expansion",
  "brace_expression",
]);

/** Unescaped glob characters. */
const UNQUOTED_GLOB = /(?:^|[^\\])(?:\\\\)*[*?[]/;
/** Brace expansion needs a comma or `..` between the braces (`{a,b}`, `{1..3}`); `stash@{1}` stays as it is. */
const BRACE_EXPANSION = /\{[^]*?(?:,|\.\.)[^]*?\}/;

function unescapeUnquoted(text: string): string {
  return text.replace(/\\\n/g, "").replace(/\\([\s\S])/g, "$1");
}

function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1");
}

const ANSI_C_SIMPLE: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** `$'...'` contents → the string bash produces; undefined for escapes it does not model (`\c`). */
export function decodeAnsiC(body: string): string | undefined {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const next = body[++i];
    if (next === undefined) return undefined;
    if (next in ANSI_C_SIMPLE) {
      out += ANSI_C_SIMPLE[next];
      continue;
    }
    const radix = next === "x" ? { digits: /[0-9a-fA-F]/, max: 2, base: 16 } : next === "u" ? { digits: /[0-9a-fA-F]/, max: 4, base: 16 } : next === "U" ? { digits: /[0-9a-fA-F]/, max: 8, base: 16 } : undefined;
    if (radix) {
      let digits = "";
      while (digits.length < radix.max && radix.digits.test(body[i + 1] ?? "")) digits += body[++i];
      if (!digits) return undefined;
      out += String.fromCodePoint(Number.parseInt(digits, radix.base));
      continue;
    }
    if (/[0-7]/.test(next)) {
      let digits = next;
      while (digits.length < 3 && /[0-7]/.test(body[i + 1] ?? "")) digits += body[++i];
      out += String.fromCharCode(Number.parseInt(digits, 8) & 0xff);
      continue;
    }
    return undefined;
  }
  // bash ends the string at a NUL byte: `$'-exec\x00foo'` is `-exec`
  const nul = out.indexOf("\0");
  return nul < 0 ? out : out.slice(0, nul);
}

function staticValue(node: SyntaxNode): { value?: string; expands: boolean } {
  switch (node.type) {
    case "word": {
      const text = node.text;
      return { value: unescapeUnquoted(text), expands: UNQUOTED_GLOB.test(text) || BRACE_EXPANSION.test(text) || text.startsWith("~") };
    }
    case "number":
      return { value: node.text, expands: false };
    case "raw_string":
      return { value: node.text.slice(1, -1), expands: false };
    case "ansi_c_string":
      return { value: decodeAnsiC(node.text.slice(2, -1)), expands: false };
    case "string":
    case "translated_string": {
      const dynamic = node.namedChildren.some((child) => child !== null && child.type !== "string_content");
      if (dynamic) return { expands: false };
      const text = node.type === "translated_string" ? node.text.slice(1) : node.text;
      return { value: unescapeDoubleQuoted(text.slice(1, -1)), expands: false };
    }
    case "concatenation": {
      let value = "";
      let expands = false;
      for (const child of node.children) {
        if (!child) continue;
        const part = staticValue(child);
        if (part.value === undefined) return { expands: expands || part.expands };
        value += part.value;
        expands ||= part.expands;
      }
      const first = node.children[0];
      if (first?.type === "word" && first.text.startsWith("~")) expands = true;
      // the braces of `x{a,b}` are separate words: judge brace expansion on the whole text
      if (node.children.some((c) => c?.type === "word" && /[{}]/.test(c.text)) && BRACE_EXPANSION.test(node.text)) expands = true;
      return { value, expands };
    }
    case "brace_expression":
      return { value: node.text, expands: true };
    default:
      return { expands: false };
  }
}

export function wordFromNode(node: SyntaxNode): Word {
  const { value, expands } = staticValue(node);
  return value === undefined ? { raw: node.text, expands } : { raw: node.text, value, expands };
}

export function literalWord(value: string): Word {
  return { raw: quoteForDisplay(value), value, expands: false };
}

const BARE_SAFE = /^[^\s'"\\$`;&|<>()#]+$/;

/** A value as a shell word: bare when nothing in it is special, otherwise single-quoted. */
export function quoteForDisplay(value: string): string {
  if (value !== "" && BARE_SAFE.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The canonical text of a word list: static values re-quoted minimally, dynamic words as written. */
export function canonicalText(words: readonly Word[]): string {
  return words.map((w) => (w.value === undefined ? w.raw : quoteForDisplay(w.value))).join(" ");
}

/** The words as the user wrote them, one space apart. */
export function rawText(words: readonly Word[]): string {
  return words.map((w) => w.raw.replace(/\\\n/g, "")).join(" ");
}
