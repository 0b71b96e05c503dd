/** `toolgate trust list|add|remove`: the folders whose own settings, hooks and servers toolgate uses. */
import fs from "node:fs";
import { addTrustedFolder, readTrustStore, realFolder, removeTrustedFolder, trustStorePath } from "../trust/index.js";
import { getToolgateHome } from "../util/home.js";
import { checkDirectory } from "./flags.js";
import { UsageError } from "./errors.js";

export interface TrustFlags {
  json?: boolean;
}

function home(): string {
  return getToolgateHome(process.env);
}

export async function trustListCommand(flags: TrustFlags): Promise<number> {
  const store = readTrustStore(home());
  if (store.error) process.stderr.write(`toolgate: ${store.error}\n`);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ file: trustStorePath(home()), folders: store.folders, ...(store.error ? { error: store.error } : {}) }, null, 2)}\n`);
    return store.error ? 1 : 0;
  }
  if (store.folders.length === 0) {
    process.stdout.write(`No trusted folders (${trustStorePath(home())}). Trust one with: toolgate trust add [folder]\n`);
  } else {
    for (const folder of store.folders) process.stdout.write(`${folder.path}${folder.trustedAt ? `  (since ${folder.trustedAt})` : ""}\n`);
  }
  return store.error ? 1 : 0;
}

export async function trustAddCommand(dir: string | undefined, _flags: TrustFlags): Promise<number> {
  const folder = checkDirectory("trust add", dir ?? process.cwd(), process.cwd());
  try {
    const result = addTrustedFolder(home(), folder);
    process.stdout.write(result.added ? `Trusted ${result.folder} and the folders under it.\n` : `${result.folder} was already trusted.\n`);
    return 0;
  } catch (err) {
    throw new UsageError(`trust add: ${(err as Error).message}`);
  }
}

export async function trustRemoveCommand(dir: string | undefined, _flags: TrustFlags): Promise<number> {
  const target = dir ?? process.cwd();
  // A folder deleted since it was trusted can still be removed by the path it was stored under.
  const shown = fs.existsSync(target) ? realFolder(target) : target;
  try {
    const result = removeTrustedFolder(home(), target);
    if (!result.removed) {
      const covering = readTrustStore(home()).folders.find((f) => shown.startsWith(`${f.path}/`));
      process.stderr.write(`toolgate: ${shown} is not in the trusted folders${covering ? ` (it is trusted through ${covering.path}; remove that one)` : ""}\n`);
      return 1;
    }
    process.stdout.write(`${result.folder} is no longer trusted.\n`);
    return 0;
  } catch (err) {
    throw new UsageError(`trust remove: ${(err as Error).message}`);
  }
}
