/**
 * Project instructions the model reads at the start of every session: `TOOLGATE.md`, `CLAUDE.md` and
 * `AGENTS.md` in the working directory and every directory above it, plus the user's own in the data home.
 * Files written for Claude Code or Codex work unchanged.
 */
import fs from "node:fs";
import path from "node:path";
import { openVerifiedFile, PathChangedError } from "../util/verifiedPath.js";

export const INSTRUCTION_FILE_NAMES = ["TOOLGATE.md", "CLAUDE.md", "AGENTS.md"] as const;
/** One file's share of the prompt; a longer one is cut and says so. */
export const MAX_INSTRUCTION_FILE_CHARS = 40_000;
/** All files together; files beyond it are named but not included. */
export const MAX_INSTRUCTION_TOTAL_CHARS = 100_000;

export interface InstructionFile {
  path: string;
  scope: "user" | "project";
  content: string;
  /** The file was longer than its share and was cut. */
  truncated: boolean;
}

export interface ProjectInstructions {
  files: InstructionFile[];
  /** Files found but left out because the total budget was spent. */
  omitted: string[];
  /** Files that were not read at all, and why (the user is told; the model is not given them). */
  refused: Array<{ path: string; reason: string }>;
}

export interface FindInstructionsOptions {
  cwd: string;
  home: string;
  /**
   * The session's Read verdict on a file (the path as named and where it really is): a message when a Read rule
   * denies it. Instruction files reach the model as surely as a Read does, so they pass the same rules.
   */
  readDenial?: (file: string, realPath: string) => string | undefined;
}

type Candidate = { path: string; scope: InstructionFile["scope"] };
type Outcome = { content: string; real: string } | { refused: string } | undefined;

function isInside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * A file of the project's directories may be a symlink (AGENTS.md -> CLAUDE.md) but only to a file within the
 * directory it sits in: sandboxed commands can plant links there, and a link to ~/.ssh/id_rsa must not put the key
 * in the prompt. The user's own files (in the data home) may link anywhere. Either way a Read deny rule wins. The file
 * is opened where it was judged to be (a link swapped in between is refused) and read through that descriptor.
 */
function readInstructionFile(candidate: Candidate, readDenial: FindInstructionsOptions["readDenial"]): Outcome {
  let real: string;
  try {
    real = fs.realpathSync.native(candidate.path);
  } catch {
    return undefined;
  }
  if (candidate.scope === "project") {
    let dir = path.dirname(candidate.path);
    try {
      dir = fs.realpathSync.native(dir);
    } catch {
      return undefined;
    }
    if (!isInside(real, dir)) return { refused: `it leads to ${real}, outside ${dir}` };
  }
  const denied = readDenial?.(candidate.path, real);
  if (denied) return { refused: denied };
  let fd: number;
  try {
    fd = openVerifiedFile(real, fs.constants.O_RDONLY);
  } catch (err) {
    return err instanceof PathChangedError ? { refused: err.message } : undefined;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return undefined;
    return { content: fs.readFileSync(fd, "utf8"), real };
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Directories from the outermost down to `cwd`, so the nearest instructions come last and read as the most specific. */
function directoriesDownTo(cwd: string): string[] {
  const dirs: string[] = [];
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    dirs.unshift(dir);
    if (path.dirname(dir) === dir) return dirs;
  }
}

export function findProjectInstructions(options: FindInstructionsOptions): ProjectInstructions {
  const candidates: Candidate[] = [
    ...INSTRUCTION_FILE_NAMES.map((name) => ({ path: path.join(options.home, name), scope: "user" as const })),
    ...directoriesDownTo(options.cwd).flatMap((dir) => INSTRUCTION_FILE_NAMES.map((name) => ({ path: path.join(dir, name), scope: "project" as const }))),
  ];
  const files: InstructionFile[] = [];
  const omitted: string[] = [];
  const refused: ProjectInstructions["refused"] = [];
  const seenReal = new Set<string>();
  const seenContent = new Set<string>();
  let total = 0;
  for (const candidate of candidates) {
    const outcome = readInstructionFile(candidate, options.readDenial);
    if (outcome && "refused" in outcome) refused.push({ path: candidate.path, reason: outcome.refused });
    if (!outcome || !("content" in outcome) || outcome.content.trim() === "") continue;
    const { content: raw, real } = outcome;
    // AGENTS.md is often a symlink to CLAUDE.md (or a copy): the model reads it once.
    if (seenReal.has(real) || seenContent.has(raw)) continue;
    seenReal.add(real);
    seenContent.add(raw);
    if (total >= MAX_INSTRUCTION_TOTAL_CHARS) {
      omitted.push(candidate.path);
      continue;
    }
    const share = Math.min(MAX_INSTRUCTION_FILE_CHARS, MAX_INSTRUCTION_TOTAL_CHARS - total);
    const truncated = raw.length > share;
    const content = truncated ? raw.slice(0, share) : raw;
    total += content.length;
    files.push({ path: candidate.path, scope: candidate.scope, content, truncated });
  }
  return { files, omitted, refused };
}

/** The instructions as one prompt section, each file under its path. */
export function formatProjectInstructions(instructions: ProjectInstructions): string | undefined {
  if (instructions.files.length === 0) return undefined;
  const parts = instructions.files.map((file) => {
    const cut = file.truncated ? `\n[This file was cut at ${file.content.length} characters; read it with the Read tool for the rest.]` : "";
    const who = file.scope === "user" ? "the user's own instructions, for every project" : "instructions for this project";
    return `Contents of ${file.path} (${who}):\n\n${file.content.trimEnd()}${cut}`;
  });
  if (instructions.omitted.length) parts.push(`Not included, for length (read them if they matter): ${instructions.omitted.join(", ")}`);
  return `The user's instructions follow. They take precedence over your defaults; follow them exactly.\n\n${parts.join("\n\n")}`;
}
