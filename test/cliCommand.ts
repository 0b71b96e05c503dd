/** How tests start the real `toolgate` CLI: the build as users run it when it is current, else the sources. */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { checkSandboxSupport } from "../src/sandbox/index.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

// CI builds dist/ in `npm ci`; a build older than the sources is never used, so it cannot hide a change.
const builtCli = path.join(repoRoot, "dist/cli/main.js");
export const builtIsFresh = fs.existsSync(builtCli) && fs.statSync(builtCli).mtimeMs >= newestMtime(path.join(repoRoot, "src"));

// tsx by its path, so the CLI can start in any directory (a test project, a terminal's shell)
const tsxLoader = pathToFileURL(path.join(repoRoot, "node_modules/tsx/dist/loader.mjs")).href;

/** Node's arguments before the CLI's own. */
export const cliArgs: readonly string[] = builtIsFresh ? [builtCli] : ["--import", tsxLoader, path.join(repoRoot, "src/cli/main.ts")];

/** Environment the CLI needs from any directory: tsx reads the JSX setting from the tsconfig it is pointed at. */
export const cliEnv: Readonly<Record<string, string>> = builtIsFresh ? {} : { TSX_TSCONFIG_PATH: path.join(repoRoot, "tsconfig.json") };

/** Whether Bash's OS sandbox can run here. Where it cannot, the CLI warns once at start (tested in test/sandbox). */
export const sandboxAvailable = checkSandboxSupport().available;

/** `stderr` without that one start-up warning, for tests about other output; where the sandbox runs, unchanged. */
export function withoutSandboxNotice(stderr: string): string {
  if (sandboxAvailable) return stderr;
  return stderr
    .split(/(?<=\n)/)
    .filter((line) => !line.startsWith("[toolgate] warning: The sandbox is unavailable"))
    .join("");
}
