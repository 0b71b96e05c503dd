/** A path's stat, or undefined when nothing is there: ENOENT, or a directory on the way that is not one (ENOTDIR). Other errors are thrown. */
import fs from "node:fs";

function ifExists(stat: (absPath: string) => fs.Stats, absPath: string): fs.Stats | undefined {
  try {
    return stat(absPath);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}

/** The stat of what the path leads to (links followed). */
export const statIfExists = (absPath: string): fs.Stats | undefined => ifExists((p) => fs.statSync(p), absPath);

/** The stat of the path itself (a link is not followed). */
export const lstatIfExists = (absPath: string): fs.Stats | undefined => ifExists((p) => fs.lstatSync(p), absPath);
