// The CLI as an esbuild bundle: `toolgate` starts by reading and compiling one file instead of resolving
// ~270 modules one by one. What is imported on demand (the MCP SDK, the UI) becomes a chunk of its own and stays lazy.
// tsc's per-module output stays for library users (dist/index.js and its .d.ts); only dist/cli/main.js is replaced.
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";

const outdir = "dist/cli";
// chunk names carry a content hash: drop the previous build's
for (const name of fs.existsSync(outdir) ? fs.readdirSync(outdir) : []) {
  if (name.startsWith("chunk-")) fs.rmSync(path.join(outdir, name));
}

// Packages that find their own files next to their code (wasm, binaries, helper scripts) stay in node_modules.
// react-devtools-core is Ink's optional debugger (imported only with DEV=true) and is not installed.
// The Bedrock and Vertex SDKs pull in the AWS SDK and google-auth-library (megabytes): they load from
// node_modules on the first request to those platforms, not as chunks of ours.
// bullmq and ioredis (the fleet) load optional native msgpack code of their own: they stay in node_modules too.
const external = ["bullmq", "ioredis", "web-tree-sitter", "tree-sitter-bash", "@anthropic-ai/sandbox-runtime", "@vscode/ripgrep", "react-devtools-core", "@anthropic-ai/bedrock-sdk", "@anthropic-ai/vertex-sdk"];

await build({
  // WebFetch converts pages in a worker thread, whose script sits beside the chunk that starts it
  entryPoints: { main: "src/cli/main.ts", convertWorker: "src/tools/WebFetch/convertWorker.ts" },
  outdir,
  // chunks sit beside main.js, so import.meta.url-relative paths (../../package.json) hold for them too
  chunkNames: "chunk-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  sourcemap: "linked",
  // bundled CommonJS packages (commander, iconv-lite, …) call require() for Node's own modules
  banner: { js: 'import { createRequire as __toolgateCreateRequire } from "node:module";\nconst require = __toolgateCreateRequire(import.meta.url);' },
  logLevel: "warning",
});
