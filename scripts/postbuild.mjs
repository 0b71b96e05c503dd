// Make the CLI entry point executable after tsc emits it.
import { chmodSync, existsSync } from "node:fs";
const cli = new URL("../dist/cli/main.js", import.meta.url);
if (existsSync(cli)) chmodSync(cli, 0o755);

// The sandbox supervisor runs as a plain file inside the sandbox (tsc does not emit .mjs sources): beside
// dist/sandbox/persistent.js, where the bundle in dist/cli also looks for it (../sandbox/supervisor.mjs).
import { copyFileSync, mkdirSync } from "node:fs";
const supervisorTarget = new URL("../dist/sandbox/", import.meta.url);
mkdirSync(supervisorTarget, { recursive: true });
copyFileSync(new URL("../src/sandbox/supervisor.mjs", import.meta.url), new URL("supervisor.mjs", supervisorTarget));
