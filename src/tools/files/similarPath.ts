import fs from "node:fs";
import path from "node:path";
import { isPathInside } from "../../core/paths.js";

const MAX_DIR_ENTRIES = 5000;
const SEARCH_MAX_DIRS = 2000;
const SEARCH_MAX_DEPTH = 8;
const SKIPPED_DIRS = new Set(["node_modules", ".git", ".hg", ".svn", "dist", "build", "target", ".venv", "__pycache__"]);

export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

function stem(name: string): string {
  const dot = name.indexOf(".", 1);
  return (dot === -1 ? name : name.slice(0, dot)).toLowerCase();
}

/** Lower is closer; undefined when `candidate` is not a plausible intended spelling of `wanted`. */
function nameScore(wanted: string, candidate: string): number | undefined {
  if (wanted.toLowerCase() === candidate.toLowerCase()) return 0;
  if (stem(wanted) === stem(candidate) && stem(wanted).length > 0) return 1;
  const distance = editDistance(wanted.toLowerCase(), candidate.toLowerCase());
  const allowed = Math.max(1, Math.floor(Math.max(wanted.length, candidate.length) / 4));
  return distance <= allowed ? 1 + distance : undefined;
}

function listDir(dir: string): string[] {
  try {
    const entries = fs.readdirSync(dir);
    return entries.length > MAX_DIR_ENTRIES ? entries.slice(0, MAX_DIR_ENTRIES) : entries;
  } catch {
    return [];
  }
}

function closestName(dir: string, wanted: string): string | undefined {
  let best: { name: string; score: number } | undefined;
  for (const name of listDir(dir)) {
    const score = nameScore(wanted, name);
    if (score !== undefined && (!best || score < best.score)) best = { name, score };
  }
  return best?.name;
}

/** Walk down from the deepest existing ancestor, correcting each missing segment to its closest sibling. */
function correctSegments(absPath: string): string | undefined {
  const missing: string[] = [];
  let base = absPath;
  while (!fs.existsSync(base)) {
    const parent = path.dirname(base);
    if (parent === base) return undefined;
    missing.unshift(path.basename(base));
    base = parent;
  }
  let current = base;
  for (const segment of missing) {
    const next = closestName(current, segment);
    if (!next) return undefined;
    current = path.join(current, next);
  }
  return current === absPath ? undefined : current;
}

/** A breadth-first search of `root` for files named `basename`, bounded in directories and depth. */
function findByName(root: string, basename: string): string | undefined {
  const queue: Array<{ dir: string; depth: number }> = [{ dir: root, depth: 0 }];
  let visited = 0;
  while (queue.length && visited < SEARCH_MAX_DIRS) {
    const { dir, depth } = queue.shift() as { dir: string; depth: number };
    visited++;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name === basename && !entry.isDirectory()) return path.join(dir, entry.name);
    }
    if (depth >= SEARCH_MAX_DEPTH) continue;
    for (const entry of entries) {
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) queue.push({ dir: path.join(dir, entry.name), depth: depth + 1 });
    }
  }
  return undefined;
}

export interface SimilarPathOptions {
  cwd: string;
  /** Suggestions the model must not learn about (e.g. Read-denied paths) are dropped. */
  isVisible?: (absPath: string) => boolean;
}

/**
 * An existing path the model probably meant when `absPath` does not exist: the same path under cwd
 * (a leading `/` written by mistake), a misspelt or differently-cased name or extension, or a file of the
 * same name elsewhere under cwd.
 */
export function suggestSimilarPath(absPath: string, { cwd, isVisible = () => true }: SimilarPathOptions): string | undefined {
  const candidates: Array<() => string | undefined> = [
    () => {
      if (isPathInside(absPath, cwd)) return undefined;
      const underCwd = path.join(cwd, absPath);
      return fs.existsSync(underCwd) ? underCwd : undefined;
    },
    () => correctSegments(absPath),
    () => {
      const name = path.basename(absPath);
      return name.length >= 3 && /\./.test(name) ? findByName(cwd, name) : undefined;
    },
  ];
  for (const candidate of candidates) {
    const found = candidate();
    if (found && found !== absPath && isVisible(found)) return found;
  }
  return undefined;
}
