import fs from "node:fs";
import path from "node:path";

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function realPath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function isInside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}

export interface ServerCommandOptions {
  /** The project directories (the server's root, the session's directory): where node_modules/.bin is looked for. */
  dirs: readonly string[];
  env: NodeJS.ProcessEnv;
  /**
   * Whether the folder is trusted. Untrusted, no program is taken from inside `dirs`: sandboxed commands may write
   * there, and a language server runs outside the sandbox.
   */
  trusted: boolean;
}

export interface ServerCommand {
  /** The program to run; undefined when none is found (or only ones inside an untrusted project). */
  program?: string;
  /** Programs inside the project that were passed over because the folder is not trusted. */
  skipped: string[];
}

/**
 * A bare program name from the project's node_modules/.bin (nearest first), then PATH; a path is taken as it is,
 * relative to the first directory. In an untrusted folder only PATH counts, and nothing there that lies in the
 * project, by its path or by where it really is (a PATH entry or a symlink leading into the project).
 */
export function resolveServerCommand(program: string, options: ServerCommandOptions): ServerCommand {
  const { dirs, env, trusted } = options;
  const base = dirs[0] ?? ".";
  const candidates: string[] = [];
  if (program.includes("/") || program.includes(path.sep)) {
    candidates.push(path.resolve(base, program));
  } else {
    for (const dir of dirs) {
      for (let at = path.resolve(dir); ; at = path.dirname(at)) {
        candidates.push(path.join(at, "node_modules", ".bin", program));
        // untrusted, only the project's own are looked at, to say they were passed over
        if (!trusted || path.dirname(at) === at) break;
      }
    }
    for (const dir of (env.PATH ?? "").split(path.delimiter)) if (dir) candidates.push(path.resolve(base, dir, program));
  }
  const projectDirs = dirs.flatMap((dir) => [path.resolve(dir), realPath(dir)]);
  const inProject = (file: string) => projectDirs.some((dir) => isInside(file, dir) || isInside(realPath(file), dir));
  const skipped: string[] = [];
  for (const candidate of candidates) {
    if (!isFile(candidate)) continue;
    if (trusted) return { program: candidate, skipped };
    if (!inProject(candidate)) return { program: candidate, skipped };
    if (!skipped.includes(candidate)) skipped.push(candidate);
  }
  return { skipped };
}

/** Why the project's own programs were not used, for messages and doctor; empty when none was skipped. */
export function skippedProgramsNote(skipped: readonly string[]): string {
  if (!skipped.length) return "";
  return `${skipped.join(", ")} in the project ${skipped.length === 1 ? "was" : "were"} not used because the folder is not trusted: a language server runs outside the sandbox (pass --trust or run toolgate trust add)`;
}
