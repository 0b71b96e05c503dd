import fs from "node:fs";
import path from "node:path";
import { writeFileAtomicSync } from "../util/atomicWrite.js";
import { readSettingsFile } from "./load.js";

export class SettingsWriteError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = "SettingsWriteError";
  }
}

/** Write `text` to `file` atomically (temp file in the same directory, fsync, rename); the old mode is kept. */
export function writeSettingsFileAtomic(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomicSync(file, text);
}

function detectIndent(text: string): string | number {
  const match = /^[ \t]+(?=")/m.exec(text);
  return match ? match[0] : 2;
}

/**
 * Change one settings file through `mutate` on its parsed JSON, keeping every other key as it was;
 * creates the file when missing. Refuses (SettingsWriteError) to rewrite a file that is malformed now,
 * so a broken file is never silently replaced.
 */
export function updateSettingsFile(file: string, mutate: (settings: Record<string, unknown>) => void): void {
  const current = readSettingsFile(file);
  if (current.status === "error") {
    throw new SettingsWriteError(file, `not changed because it is malformed (${current.message}); fix it first`);
  }
  const raw = current.status === "ok" ? structuredClone(current.raw) : {};
  mutate(raw);
  const indent = current.status === "ok" ? detectIndent(current.text) : 2;
  writeSettingsFileAtomic(file, `${JSON.stringify(raw, null, indent)}\n`);
}
