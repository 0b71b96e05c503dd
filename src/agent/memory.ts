/**
 * Memory: the instruction files the model reads at every start (see instructions.ts), which the person adds to
 * with `#` in the UI and edits with `/memory`. A note is appended as a bullet through an atomic write that
 * starts from the file's current content, so nothing there is ever lost.
 */
import fs from "node:fs";
import path from "node:path";
import { writeFileAtomicSync } from "../util/atomicWrite.js";
import { INSTRUCTION_FILE_NAMES } from "./instructions.js";

export interface MemoryTarget {
  scope: "project" | "user";
  file: string;
  /** For the picker: what the file is for. */
  label: string;
}

/** The name the folder already uses for instructions, else AGENTS.md (read by toolgate, Codex and others). */
function instructionFileIn(dir: string): string {
  const existing = INSTRUCTION_FILE_NAMES.find((name) => {
    try {
      return fs.statSync(path.join(dir, name)).isFile();
    } catch {
      return false;
    }
  });
  return path.join(dir, existing ?? "AGENTS.md");
}

/** Where a note can go: the project's instruction file (in the working directory) and the user's own. */
export function memoryTargets(cwd: string, home: string): MemoryTarget[] {
  const project = instructionFileIn(cwd);
  const user = instructionFileIn(home);
  return [
    { scope: "project", file: project, label: `Project memory: ${path.basename(project)} (shared with everyone working here)` },
    { scope: "user", file: user, label: `User memory: ${user} (yours, every project)` },
  ];
}

/** The note as the bullet it becomes: `# ` and surrounding space dropped, inner lines kept under the bullet. */
export function memoryBullet(note: string): string {
  const text = note.replace(/^#+\s*/, "").trim();
  return `- ${text.split(/\r?\n/).map((l) => l.trimEnd()).join("\n  ")}`;
}

/** Appends `note` as a bullet to `file` (created with its folder when missing); returns the bullet written. */
export function appendMemory(file: string, note: string): string {
  const bullet = memoryBullet(note);
  if (bullet === "- ") throw new Error("the note is empty");
  let current = "";
  try {
    current = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    fs.mkdirSync(path.dirname(file), { recursive: true });
  }
  const separator = current === "" || current.endsWith("\n") ? "" : "\n";
  writeFileAtomicSync(file, `${current}${separator}${bullet}\n`);
  return bullet;
}
