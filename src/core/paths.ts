import os from "node:os";
import path from "node:path";

/** `~` and `~/x` to the home directory, relative paths against `cwd`; always absolute and normalized. */
export function expandPath(input: string, cwd: string, home: string = os.homedir()): string {
  const trimmed = input.trim();
  if (trimmed === "~") return home;
  if (trimmed.startsWith("~/")) return path.join(home, trimmed.slice(2));
  return path.resolve(cwd, trimmed);
}

/** Whether `target` is `dir` or inside it (both absolute). */
export function isPathInside(target: string, dir: string): boolean {
  const rel = path.relative(dir, target);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** The path as the user would like to see it: relative to cwd when inside it. */
export function displayPath(target: string, cwd: string): string {
  return isPathInside(target, cwd) ? path.relative(cwd, target) || "." : target;
}

export { resolvePhysicalPath } from "../util/physicalPath.js";
