import fs from "node:fs";
import path from "node:path";

/** Entries listed at most; the listing says when it stopped. */
export const MAX_LISTED_ENTRIES = 1000;

export interface DirectoryListing {
  /** Paths relative to the directory, directories with a trailing "/". */
  entries: string[];
  truncated: boolean;
}

/**
 * The directory and its subdirectories' entries, two levels deep, hidden entries (and what is inside them)
 * left out, sorted by path. `visible` drops entries the session may not read.
 */
export function listDirectory(dir: string, visible: (absPath: string) => boolean): DirectoryListing {
  const entries: string[] = [];
  let truncated = false;
  const walk = (abs: string, rel: string, depth: number) => {
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of dirents) {
      if (d.name.startsWith(".")) continue;
      const childAbs = path.join(abs, d.name);
      if (!visible(childAbs)) continue;
      if (entries.length >= MAX_LISTED_ENTRIES) {
        truncated = true;
        return;
      }
      const childRel = rel ? `${rel}/${d.name}` : d.name;
      entries.push(d.isDirectory() ? `${childRel}/` : childRel);
      if (d.isDirectory() && depth < 2) walk(childAbs, childRel, depth + 1);
    }
  };
  walk(dir, "", 1);
  return { entries, truncated };
}
