import { stripVTControlCharacters } from "node:util";
import { Box, Text } from "ink";
import { Marked, type MarkedExtension } from "marked";
import { markedTerminal } from "marked-terminal";
import { highlight, supportsLanguage } from "cli-highlight";
import { colorEnabled, styles, type Style } from "./color.js";
import { terminalSafe } from "./format.js";

type Styles = ReturnType<typeof styles>;

/** cli-highlight's token classes → our styles (every class named, so its own chalk-based theme is never used). */
function codeTheme(s: Styles): Record<string, Style> {
  return {
    keyword: s.blue,
    built_in: s.cyan,
    type: s.cyan,
    literal: s.blue,
    number: s.green,
    regexp: s.red,
    string: s.red,
    subst: s.plain,
    symbol: s.plain,
    class: s.blue,
    function: s.yellow,
    title: s.plain,
    params: s.plain,
    comment: s.green,
    doctag: s.green,
    meta: s.gray,
    "meta-keyword": s.plain,
    "meta-string": s.plain,
    section: s.plain,
    tag: s.gray,
    name: s.blue,
    "builtin-name": s.plain,
    attr: s.cyan,
    attribute: s.plain,
    variable: s.plain,
    bullet: s.plain,
    code: s.plain,
    emphasis: s.italic,
    strong: s.bold,
    formula: s.plain,
    link: s.underline,
    quote: s.plain,
    "selector-tag": s.plain,
    "selector-id": s.plain,
    "selector-class": s.plain,
    "selector-attr": s.plain,
    "selector-pseudo": s.plain,
    "template-tag": s.plain,
    "template-variable": s.plain,
    addition: s.green,
    deletion: s.red,
    default: s.plain,
  };
}

/**
 * Highlighted code blocks (highlighting costs ~10-25 ms a block here): while a message streams in it is drawn
 * again on every update, and only its last block is still changing.
 */
const highlighted = new Map<string, string>();
const HIGHLIGHT_CACHE_ENTRIES = 200;

/**
 * A code block, highlighted when colour is on and its language is named and known. Never guessed: highlight.js
 * tries every grammar to guess, which took over 2 s for one line here.
 */
function highlightCode(code: string, lang: string | undefined, color: boolean, s: Styles): string {
  const language = lang?.trim().split(/\s+/)[0];
  if (!color || !language || !supportsLanguage(language)) return code;
  const key = `${language}\u0000${code}`;
  const cached = highlighted.get(key);
  if (cached !== undefined) return cached;
  let result: string;
  try {
    result = highlight(code, { language, ignoreIllegals: true, theme: codeTheme(s) });
  } catch {
    result = code;
  }
  if (highlighted.size >= HIGHLIGHT_CACHE_ENTRIES) highlighted.delete(highlighted.keys().next().value as string);
  highlighted.set(key, result);
  return result;
}

const parsers = new Map<string, Marked>();

function parserFor(columns: number, color: boolean): Marked {
  const key = `${columns}:${color}`;
  const cached = parsers.get(key);
  if (cached) return cached;
  const s = styles(color);
  const marked = new Marked();
  // @types/marked-terminal says it returns a renderer; it returns a marked extension
  const extension = markedTerminal({
    width: columns,
    reflowText: true,
    tab: 2,
    emoji: false,
    // without colour the `#` marks are what sets a heading apart
    showSectionPrefix: !color,
    code: s.yellow,
    blockquote: s.grayItalic,
    html: s.gray,
    heading: s.boldGreen,
    firstHeading: s.boldMagentaUnderline,
    hr: s.plain,
    listitem: s.plain,
    table: s.plain,
    paragraph: s.plain,
    strong: s.bold,
    em: s.italic,
    codespan: s.yellow,
    del: s.strike,
    link: s.blue,
    href: s.blueUnderline,
    text: s.plain,
  }) as unknown as MarkedExtension;
  marked.use(extension);
  // marked-terminal highlights only when its own chalk finds a colour terminal; ours follows the `color` prop
  marked.use({
    renderer: {
      code({ text, lang }) {
        const body = highlightCode(text, lang, color, s);
        return `${body
          .split("\n")
          .map((line) => `  ${line}`)
          .join("\n")}\n\n`;
      },
    },
  });
  if (parsers.size > 16) parsers.clear();
  parsers.set(key, marked);
  return marked;
}

/** Markdown as terminal text, wrapped to `columns`; plain (no escape codes) when colour is off. */
export function renderMarkdown(text: string, columns: number, color = colorEnabled()): string {
  let rendered: string;
  try {
    rendered = parserFor(Math.max(20, Math.floor(columns)), color).parse(terminalSafe(text, "output"), { async: false });
  } catch {
    rendered = terminalSafe(text, "output");
  }
  // tables and a few inline pieces colour themselves through their own libraries
  if (!color) rendered = stripVTControlCharacters(rendered);
  return rendered.replace(/\n+$/, "");
}

export interface MarkdownProps {
  children: string;
  columns: number;
  /** Default: on unless NO_COLOR or FORCE_COLOR=0. */
  color?: boolean;
}

/** marked-terminal reflows paragraphs only; the box makes Ink wrap list items and headings to the width too. */
export function Markdown({ children, columns, color }: MarkdownProps) {
  return (
    <Box width={Math.max(20, Math.floor(columns))} flexDirection="column">
      <Text>{renderMarkdown(children, columns, color ?? colorEnabled())}</Text>
    </Box>
  );
}
