/**
 * The bash grammar (tree-sitter-bash on web-tree-sitter), loaded once at module initialisation with a
 * top-level await: isReadOnly and isConcurrencySafe are synchronous and must see a real AST from the
 * first call. Loading takes about 60 ms (see docs/bash.md). If the wasm cannot be loaded the parser
 * stays unavailable and every check that needs it fails closed (not read-only, ask).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";
import type { SyntaxTree } from "./syntaxTree.js";

export type { SyntaxNode, SyntaxTree } from "./syntaxTree.js";

const require = createRequire(import.meta.url);

interface LoadedParser {
  parser: Parser;
  loadMs: number;
}

async function loadParser(): Promise<LoadedParser | { error: string }> {
  const started = performance.now();
  try {
    await Parser.init();
    const language = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
    const parser = new Parser();
    parser.setLanguage(language);
    return { parser, loadMs: performance.now() - started };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

const loaded = await loadParser();

/** Commands longer than this are not parsed: they are judged too complex. */
export const MAX_PARSE_CHARS = 100_000;

export function bashParserStatus(): { ready: true; loadMs: number } | { ready: false; error: string } {
  return "parser" in loaded ? { ready: true, loadMs: loaded.loadMs } : { ready: false, error: loaded.error };
}

/**
 * Parse a command line; undefined when the parser is unavailable or the text is too long.
 * The caller must `delete()` the tree (it lives in wasm memory).
 */
export function parseBash(source: string): SyntaxTree | undefined {
  if (!("parser" in loaded) || source.length > MAX_PARSE_CHARS) return undefined;
  return loaded.parser.parse(source) ?? undefined;
}

const syntaxCache = new Map<string, string | undefined>();
const SYNTAX_CACHE_SIZE = 256;

/**
 * What bash itself says about a line's syntax (`bash -n`, which reads without running anything): the
 * first error line, or undefined when bash accepts it. tree-sitter-bash accepts many lines bash rejects
 * (`ls ;; pwd`, a stray `fi`), so a line is only allowed unasked once bash agrees. If bash cannot be
 * asked, that is the error.
 */
export function bashSyntaxError(source: string): string | undefined {
  if (syntaxCache.has(source)) return syntaxCache.get(source);
  const bash = fs.existsSync("/bin/bash") ? "/bin/bash" : "bash";
  // an empty environment: no BASH_ENV or anything else bash would read first
  const run = spawnSync(bash, ["-n"], { input: source, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, encoding: "utf8", timeout: 10_000, maxBuffer: 1 << 20 });
  const error =
    run.error || run.status === null
      ? `bash could not check it (${run.error?.message ?? `killed by ${run.signal}`})`
      : run.status === 0
        ? undefined
        : (run.stderr.split("\n").find((line) => line.trim()) ?? `bash -n exited with ${run.status}`).replace(/^.*?: line \d+: /, "");
  if (syntaxCache.size >= SYNTAX_CACHE_SIZE) syntaxCache.delete(syntaxCache.keys().next().value as string);
  syntaxCache.set(source, error);
  return error;
}
