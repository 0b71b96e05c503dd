/**
 * The bash grammar (tree-sitter-bash on web-tree-sitter), loaded on first need: loading takes about 60 ms
 * (docs/bash.md, "Parser start-up"), which a session that never runs Bash should not pay. Every path that decides on a
 * command (permission check, validation, the call itself) awaits `loadBashParser()` first; the synchronous
 * `isReadOnly` and `isConcurrencySafe` answer the safe way until it is loaded. Importing the shell surface
 * (`src/shell/index.ts`) waits for it, so library users see a loaded parser from the first call. If the wasm
 * cannot be loaded the parser stays unavailable and every check that needs it fails closed (not read-only, ask).
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import v8 from "node:v8";
import type { Parser } from "web-tree-sitter";
import type { SyntaxTree } from "./syntaxTree.js";

export type { SyntaxNode, SyntaxTree } from "./syntaxTree.js";

const resolveFromHere = createRequire(import.meta.url).resolve;

interface LoadedParser {
  parser: Parser;
  loadMs: number;
}

/** Whether the process was started with Liftoff only: then the flag is ours to leave as it is. */
const startedLiftoffOnly = () => [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((arg) => /^--liftoff[-_]only$/.test(arg));

/**
 * The grammar is compiled by V8's baseline compiler (Liftoff) only. Otherwise V8 also optimises all of its
 * 1.3 MB in background threads, and Node waits for those threads each time it returns to the event loop: the
 * first Bash call then stalled ~400 ms after the parser had loaded (its `bash -n` check could not finish
 * until then). Liftoff code parses command lines about as fast. The flag is put back once the grammar is
 * compiled, so other wasm (undici's HTTP parser) is compiled as before.
 */
async function withBaselineWasmCompiler<T>(compile: () => Promise<T>): Promise<T> {
  if (startedLiftoffOnly()) return compile();
  v8.setFlagsFromString("--liftoff-only");
  try {
    return await compile();
  } finally {
    v8.setFlagsFromString("--no-liftoff-only");
  }
}

async function initParser(): Promise<LoadedParser | { error: string }> {
  const started = performance.now();
  try {
    const { Language, Parser } = await import("web-tree-sitter");
    const language = await withBaselineWasmCompiler(async () => {
      await Parser.init();
      return Language.load(resolveFromHere("tree-sitter-bash/tree-sitter-bash.wasm"));
    });
    const parser = new Parser();
    parser.setLanguage(language);
    return { parser, loadMs: performance.now() - started };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

let loaded: LoadedParser | { error: string } | undefined;
let loading: Promise<void> | undefined;

/** Load the grammar (once per process); resolves when parseBash can answer, also when loading failed. */
export function loadBashParser(): Promise<void> {
  return (loading ??= initParser().then((result) => {
    loaded = result;
  }));
}

/** Whether loading has finished (successfully or not), so parseBash's answer is final. */
export function isBashParserLoaded(): boolean {
  return loaded !== undefined;
}

/** Commands longer than this are not parsed: they are judged too complex. */
export const MAX_PARSE_CHARS = 100_000;

export function bashParserStatus(): { ready: true; loadMs: number } | { ready: false; error: string } {
  if (loaded === undefined) return { ready: false, error: "the bash parser is not loaded yet" };
  return "parser" in loaded ? { ready: true, loadMs: loaded.loadMs } : { ready: false, error: loaded.error };
}

/**
 * Parse a command line; undefined when the parser is unavailable (or not loaded yet) or the text is too long.
 * The caller must `delete()` the tree (it lives in wasm memory).
 */
export function parseBash(source: string): SyntaxTree | undefined {
  if (loaded === undefined || !("parser" in loaded) || source.length > MAX_PARSE_CHARS) return undefined;
  return loaded.parser.parse(source) ?? undefined;
}

const syntaxCache = new Map<string, string | undefined>();
const SYNTAX_CACHE_SIZE = 256;
const pendingChecks = new Map<string, Promise<string | undefined>>();
const DEFAULT_BASH_CHECK_TIMEOUT_MS = 10_000;
const UNCHECKED = "bash could not check it";
/** TOOLGATE_BASH_CHECK_TIMEOUT_MS raises (or lowers) how long bash may take to read a line, for slow machines. */
const bashCheckTimeoutMs = () => {
  const value = Number(process.env.TOOLGATE_BASH_CHECK_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_BASH_CHECK_TIMEOUT_MS;
};

function remember(source: string, error: string | undefined): string | undefined {
  // "bash could not check it" (a timeout under load, a failed spawn) is no verdict on the line: ask again next time.
  if (error?.startsWith(UNCHECKED)) return error;
  if (syntaxCache.size >= SYNTAX_CACHE_SIZE) syntaxCache.delete(syntaxCache.keys().next().value as string);
  syntaxCache.set(source, error);
  return error;
}

// an empty environment: no BASH_ENV or anything else bash would read first
const bashCheck = () => ({ bash: fs.existsSync("/bin/bash") ? "/bin/bash" : "bash", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });

function syntaxVerdict(status: number | null, stderr: string): string | undefined {
  if (status === 0) return undefined;
  return (stderr.split("\n").find((line) => line.trim()) ?? `bash -n exited with ${status}`).replace(/^.*?: line \d+: /, "");
}

/**
 * What bash itself says about a line's syntax (`bash -n`, which reads without running anything): the
 * first error line, or undefined when bash accepts it. tree-sitter-bash accepts many lines bash rejects
 * (`ls ;; pwd`, a stray `fi`), so a line is only allowed unasked once bash agrees. If bash cannot be
 * asked, that is the error. This one blocks the event loop for the 3-40 ms bash takes; the Bash tool's
 * permission check uses bashSyntaxErrorAsync.
 */
export function bashSyntaxError(source: string): string | undefined {
  if (syntaxCache.has(source)) return syntaxCache.get(source);
  const { bash, env } = bashCheck();
  const run = spawnSync(bash, ["-n"], { input: source, env, encoding: "utf8", timeout: bashCheckTimeoutMs(), maxBuffer: 1 << 20 });
  if (run.error || run.status === null) return remember(source, `${UNCHECKED} (${run.error?.message ?? `killed by ${run.signal}`})`);
  return remember(source, syntaxVerdict(run.status, run.stderr));
}

/** bashSyntaxError without blocking: other calls (e.g. under `mcp serve`) go on while bash reads the line. */
export function bashSyntaxErrorAsync(source: string): Promise<string | undefined> {
  if (syntaxCache.has(source)) return Promise.resolve(syntaxCache.get(source));
  let pending = pendingChecks.get(source);
  if (!pending) {
    pending = runBashCheck(source).then((error) => remember(source, error)).finally(() => pendingChecks.delete(source));
    pendingChecks.set(source, pending);
  }
  return pending;
}

function runBashCheck(source: string): Promise<string | undefined> {
  const { bash, env } = bashCheck();
  return new Promise((resolve) => {
    const child = spawn(bash, ["-n"], { env, stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), bashCheckTimeoutMs());
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 1 << 20) stderr += chunk;
    });
    // bash may stop reading early (e.g. a line it cannot parse): its verdict comes with its exit
    child.stdin.on("error", () => undefined);
    child.stdin.end(source);
    child.on("error", (err) => {
      clearTimeout(timer);
      resolve(`${UNCHECKED} (${err.message})`);
    });
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve(status === null ? `${UNCHECKED} (killed by ${signal})` : syntaxVerdict(status, stderr));
    });
  });
}
