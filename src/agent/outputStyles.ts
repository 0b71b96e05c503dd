/**
 * Output styles: how the model talks to the person (tone, format, teaching), chosen with the `outputStyle`
 * setting or `/output-style`. Three are built in; more are markdown files with front matter (`name`,
 * `description`) in the project's `.toolgate/output-styles/` or `.claude/output-styles/` and the user's
 * `~/.toolgate/output-styles/` or `~/.claude/output-styles/`. A style adds a section to the system prompt; the
 * base prompt's working rules stay whatever the style says.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { parseFrontMatter } from "../util/frontMatter.js";

export interface OutputStyle {
  name: string;
  description: string;
  /** What goes into the system prompt; empty for the default style. */
  prompt: string;
  source: "builtin" | "project" | "user";
  file?: string;
}

export const DEFAULT_OUTPUT_STYLE = "default";

export const BUILTIN_OUTPUT_STYLES: readonly OutputStyle[] = [
  { name: DEFAULT_OUTPUT_STYLE, description: "toolgate's usual voice: brief, to the point, focused on getting the task done", prompt: "", source: "builtin" },
  {
    name: "explanatory",
    description: "does the task and explains the choices it makes and the patterns it finds on the way",
    source: "builtin",
    prompt: [
      "The user wants to understand the code as well as have the task done. While you work, explain what you find and why you choose what you do:",
      "- Before or after a meaningful step, add a short note headed `Insight:` (two or three sentences) on a design decision, a pattern of this codebase, or a trade-off you weighed.",
      "- Prefer insights specific to this project over general programming advice.",
      "- Keep the notes apart from the work itself: the code you write stays as it would be without them.",
    ].join("\n"),
  },
  {
    name: "learning",
    description: "works with the user as a teacher: explains, and leaves small meaningful pieces for them to write",
    source: "builtin",
    prompt: [
      "The user wants to learn by doing. Work with them as a patient teacher:",
      "- Explain your reasoning in short `Insight:` notes as you go, tied to this codebase.",
      "- Where a piece of the change is small but instructive (a condition, a loop, a key function body of up to about ten lines), do not write it: leave a `TODO(human)` comment at that spot, say exactly what it should do and what to consider, and ask the user to write it.",
      "- Do the routine parts (boilerplate, wiring, tests scaffolding) yourself. Leave at most one piece to the user at a time, and look at what they wrote before you continue.",
    ].join("\n"),
  },
];

/** The `outputStyle` key of settings.json: a style's name. */
export const outputStyleSettingsSection = { key: "outputStyle", schema: z.string().min(1) };

export function readOutputStyleSetting(settings: Readonly<Record<string, unknown>>): string | undefined {
  const parsed = outputStyleSettingsSection.schema.safeParse(settings.outputStyle);
  return parsed.success ? parsed.data : undefined;
}

export interface OutputStyleLocations {
  cwd: string;
  /** toolgate's data home (`~/.toolgate`). */
  home: string;
  /** The user's home directory, for `~/.claude/output-styles`. */
  userHome?: string;
}

export interface LoadedOutputStyles {
  /** Built-ins first, then the project's, then the user's; names are unique (case-insensitively). */
  styles: OutputStyle[];
  /** Files that could not be read or parsed, or that lost to a style of the same name. */
  problems: string[];
  find(name: string): OutputStyle | undefined;
}

const MAX_STYLE_FILES_PER_FOLDER = 100;

function styleFolders(locations: OutputStyleLocations): Array<{ dir: string; source: "project" | "user" }> {
  return [
    { dir: path.join(locations.cwd, ".toolgate", "output-styles"), source: "project" },
    { dir: path.join(locations.cwd, ".claude", "output-styles"), source: "project" },
    { dir: path.join(locations.home, "output-styles"), source: "user" },
    { dir: path.join(locations.userHome ?? os.homedir(), ".claude", "output-styles"), source: "user" },
  ];
}

/** One style file: its front matter's name (else the file's name), description and body. */
export function parseOutputStyleFile(file: string, text: string, source: "project" | "user"): OutputStyle {
  const { attributes, body } = parseFrontMatter(text);
  const named = typeof attributes.name === "string" && attributes.name.trim() ? attributes.name.trim() : path.basename(file, path.extname(file));
  const description = typeof attributes.description === "string" ? attributes.description.trim() : "";
  return { name: named, description, prompt: body.trim(), source, file };
}

/** Every style there is for this project and user; bad files are reported, never fatal. */
export function loadOutputStyles(locations: OutputStyleLocations): LoadedOutputStyles {
  const styles: OutputStyle[] = [...BUILTIN_OUTPUT_STYLES];
  const problems: string[] = [];
  const byName = new Map(styles.map((s) => [s.name.toLowerCase(), s]));
  const seen = new Set<string>();
  for (const { dir, source } of styleFolders(locations)) {
    if (seen.has(dir)) continue;
    seen.add(dir);
    let names: string[];
    try {
      names = fs.readdirSync(dir).filter((n) => n.endsWith(".md")).sort();
    } catch {
      continue;
    }
    for (const name of names.slice(0, MAX_STYLE_FILES_PER_FOLDER)) {
      const file = path.join(dir, name);
      let style: OutputStyle;
      try {
        if (!fs.statSync(file).isFile()) continue;
        style = parseOutputStyleFile(file, fs.readFileSync(file, "utf8"), source);
      } catch (err) {
        problems.push(`output style ${file}: ${(err as Error).message}`);
        continue;
      }
      const taken = byName.get(style.name.toLowerCase());
      if (taken) {
        problems.push(`output style ${file} is ignored: ${taken.file ?? "the built-in style"} is also named "${style.name}"`);
        continue;
      }
      byName.set(style.name.toLowerCase(), style);
      styles.push(style);
    }
  }
  return { styles, problems, find: (name) => byName.get(name.trim().toLowerCase()) };
}

/** The system prompt section of a style; undefined for the default one (the base prompt alone). */
export function outputStyleSection(style: OutputStyle | undefined): string | undefined {
  if (!style || !style.prompt) return undefined;
  return `<output_style name="${style.name}">\nThe user chose the "${style.name}" output style. Follow it in every answer, on top of the rules above:\n\n${style.prompt}\n</output_style>`;
}

/** `system` with its output style section (if any) replaced by the one of `style`. */
export function withOutputStyle(system: readonly string[], style: OutputStyle | undefined): string[] {
  const kept = system.filter((section) => !section.startsWith("<output_style "));
  const section = outputStyleSection(style);
  return section ? [...kept, section] : kept;
}
