/**
 * Project instructions the model reads at the start of every session: `TOOLGATE.md`, `CLAUDE.md` and
 * `AGENTS.md` in the working directory and every directory above it, plus the user's own in the data home.
 * Files written for Claude Code or Codex work unchanged.
 */
import fs from "node:fs";
import path from "node:path";

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
}

function readInstructionFile(file: string): string | undefined {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return undefined;
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
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

export function findProjectInstructions(options: { cwd: string; home: string }): ProjectInstructions {
  const candidates: Array<{ path: string; scope: InstructionFile["scope"] }> = [
    ...INSTRUCTION_FILE_NAMES.map((name) => ({ path: path.join(options.home, name), scope: "user" as const })),
    ...directoriesDownTo(options.cwd).flatMap((dir) => INSTRUCTION_FILE_NAMES.map((name) => ({ path: path.join(dir, name), scope: "project" as const }))),
  ];
  const files: InstructionFile[] = [];
  const omitted: string[] = [];
  const seenReal = new Set<string>();
  const seenContent = new Set<string>();
  let total = 0;
  for (const candidate of candidates) {
    const raw = readInstructionFile(candidate.path);
    if (raw === undefined || raw.trim() === "") continue;
    // AGENTS.md is often a symlink to CLAUDE.md (or a copy): the model reads it once.
    let real = candidate.path;
    try {
      real = fs.realpathSync(candidate.path);
    } catch {
      // read above, so it exists; keep the path as named
    }
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
  return { files, omitted };
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
