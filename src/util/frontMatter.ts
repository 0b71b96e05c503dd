/** Markdown files with a YAML front matter block (custom agents, skills, slash commands). */
import { createRequire } from "node:module";

// yaml (~280 KB of code) is required on the first file that has front matter, not at start-up.
const requireHere = createRequire(import.meta.url);
let yaml: typeof import("yaml") | undefined;
const parseYaml = (text: string): unknown => (yaml ??= requireHere("yaml") as typeof import("yaml")).parse(text);

export interface FrontMatterDocument {
  /** The front matter's keys; `{}` when the file has none. */
  attributes: Record<string, unknown>;
  /** The text after the front matter. */
  body: string;
}

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*$/m;

/**
 * Split `---\nkey: value\n---\nbody`. A file without an opening `---` line is all body. Throws when the block
 * is not closed or is not a YAML mapping, so a loader can report the file instead of guessing.
 */
export function parseFrontMatter(text: string): FrontMatterDocument {
  const open = OPENING.exec(text);
  if (!open) return { attributes: {}, body: text };
  const rest = text.slice(open[0].length);
  const close = CLOSING.exec(rest);
  if (!close) throw new Error("the front matter starting with --- on the first line has no closing --- line");
  const yamlText = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length).replace(/^\r?\n/, "");
  const attributes: unknown = yamlText.trim() === "" ? {} : parseYaml(yamlText);
  if (attributes === null || typeof attributes !== "object" || Array.isArray(attributes)) {
    throw new Error("the front matter is not a set of `key: value` lines");
  }
  return { attributes: attributes as Record<string, unknown>, body };
}
