/**
 * Typographic characters a model tends to type in their plain ASCII form. Every mapping is one UTF-16 unit
 * to one, so an index in the normalized text is the same index in the original.
 */
const SINGLE_QUOTES = "\u2018\u2019\u201A\u201B\u2032";
const DOUBLE_QUOTES = "\u201C\u201D\u201E\u201F\u2033";
const DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212";
const SPACES = "\u00A0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000";

const TYPOGRAPHIC = new RegExp(`[${SINGLE_QUOTES}${DOUBLE_QUOTES}${DASHES}${SPACES}]`, "g");

function plainOf(ch: string): string {
  if (SINGLE_QUOTES.includes(ch)) return "'";
  if (DOUBLE_QUOTES.includes(ch)) return '"';
  if (DASHES.includes(ch)) return "-";
  return " ";
}

/** Curly quotes → straight, Unicode dashes → "-", Unicode spaces → " "; same length as the input. */
export function normalizeTypography(text: string): string {
  return text.replace(TYPOGRAPHIC, plainOf);
}

const CURLY_DOUBLE = /[\u201C\u201D]/;
const CURLY_SINGLE = /[\u2018\u2019]/;
const LETTER = /\p{L}/u;
/** After these (or at the start), a quote opens; otherwise it closes. */
const OPENS_AFTER = /[\s([{\u2014\u2013\-\u201C\u2018]/;

function curl(text: string, straight: string, open: string, close: string, apostrophe: boolean): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch !== straight) {
      out += ch;
      continue;
    }
    const prev = i > 0 ? text[i - 1] : "";
    const next = i + 1 < text.length ? text[i + 1] : "";
    if (apostrophe && LETTER.test(prev) && LETTER.test(next)) out += close;
    else out += prev === "" || OPENS_AFTER.test(prev) ? open : close;
  }
  return out;
}

/**
 * The new text in the quote style of the file region it replaces. When old_string only matched after its
 * straight quotes were compared with the file's curly ones, the file is typographic there, so the straight
 * quotes of new_string become curly too (“ ” ‘ ’; an apostrophe between letters stays ’). The other way
 * round, curly quotes the model typed for a straight-quoted region become straight.
 */
export function preserveQuoteStyle(oldString: string, actual: string, newString: string): string {
  let out = newString;
  const fileCurlyDouble = CURLY_DOUBLE.test(actual);
  const fileCurlySingle = CURLY_SINGLE.test(actual);
  if (fileCurlyDouble && oldString.includes('"') && !CURLY_DOUBLE.test(oldString)) out = curl(out, '"', "\u201C", "\u201D", false);
  if (fileCurlySingle && oldString.includes("'") && !CURLY_SINGLE.test(oldString)) out = curl(out, "'", "\u2018", "\u2019", true);
  if (!fileCurlyDouble && actual.includes('"') && CURLY_DOUBLE.test(oldString)) out = out.replace(/[\u201C\u201D]/g, '"');
  if (!fileCurlySingle && actual.includes("'") && CURLY_SINGLE.test(oldString)) out = out.replace(/[\u2018\u2019]/g, "'");
  return out;
}
