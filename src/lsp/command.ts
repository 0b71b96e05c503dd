import fs from "node:fs";
import path from "node:path";

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** A bare program name from the project's node_modules/.bin (nearest first), then PATH; a path is taken as it is. */
export function resolveServerCommand(program: string, dirs: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  if (program.includes("/") || program.includes(path.sep)) return path.resolve(dirs[0] ?? ".", program);
  const candidates: string[] = [];
  for (const dir of dirs) {
    for (let at = path.resolve(dir); ; at = path.dirname(at)) {
      candidates.push(path.join(at, "node_modules", ".bin", program));
      if (path.dirname(at) === at) break;
    }
  }
  for (const dir of (env.PATH ?? "").split(path.delimiter)) if (dir) candidates.push(path.join(dir, program));
  return candidates.find(isFile);
}
