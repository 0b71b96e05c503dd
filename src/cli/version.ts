import { readFileSync } from "node:fs";

let cached: string | undefined;

/** toolgate's version, from package.json (two levels up from src/cli and from dist/cli). */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  return cached;
}
