/**
 * Search tools on a generated tree of 50 000 files: the Grep tool through runToolUse vs raw rg with the
 * same argv (what the tool adds: spawn plumbing, parsing, deny post-filter, mtime sort, paging, text),
 * and the Glob tool vs `rg --files -g` vs tinyglobby. Median wall time of several alternating runs each, one
 * process; the Glob rows also print the spread of the paired ratios.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { glob as tinyglobby } from "tinyglobby";
import { createToolUseContext } from "../../src/core/context.js";
import { runToolUse } from "../../src/core/pipeline/index.js";
import type { AnyTool, CanUseToolFn } from "../../src/core/Tool.js";
import type { AssistantMessage } from "../../src/core/messages.js";
import { hasPermissionsToUseTool, matchingReadDenyRule, parsePermissionRule, readDenyGlobsForRoot } from "../../src/permissions/index.js";
import { createReadDenyFilter } from "../../src/tools/search/denyFilter.js";
import { pairedRatios, reportRow } from "../report.js";
import { sortNewestFirst } from "../../src/tools/search/newestFirst.js";
import { GlobTool } from "../../src/tools/Glob/index.js";
import { GrepTool } from "../../src/tools/Grep/index.js";
import { buildGrepArgs, type GrepOutputMode } from "../../src/tools/Grep/args.js";
import { BASE_ARGS, exclusionGlobArgs, rgPath, VCS_DIRECTORIES } from "../../src/tools/search/ripgrep.js";

const FILES = 50_000;
const ITERATIONS = 3;
/** The deny-rule count case is a headline figure: more paired rounds. */
const DENY_ITERATIONS = 7;
/** Glob against rg --files -g: more rounds, as the gap is small next to the machine's noise. */
const GLOB_ITERATIONS = 9;

/** Writes run concurrently (the fs thread pool), which on a busy machine is several times faster than one by one. */
async function generateTree(root: string): Promise<void> {
  const exts = [".ts", ".js", ".md", ".json", ".txt"];
  const writes: Array<[string, string]> = [];
  let n = 0;
  for (let pkg = 0; n < FILES; pkg++) {
    for (let mod = 0; mod < 10 && n < FILES; mod++) {
      const dir = path.join(root, `pkg${pkg}`, mod % 4 === 0 ? `.hidden${mod}` : `mod${mod}`, "src");
      fs.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 25 && n < FILES; f++, n++) {
        const lines: string[] = [];
        for (let l = 0; l < 20; l++) lines.push(`line ${l} of file ${n} ${l % 7 === 0 ? `needle_${n % 100}` : "hay"} lorem ipsum dolor sit amet`);
        writes.push([path.join(dir, `file${f}${exts[n % exts.length]}`), `${lines.join("\n")}\n`]);
      }
    }
  }
  for (let i = 0; i < writes.length; i += 256) {
    await Promise.all(writes.slice(i, i + 256).map(([file, text]) => fs.promises.writeFile(file, text)));
  }
  fs.mkdirSync(path.join(root, ".git"));
  fs.writeFileSync(path.join(root, ".git", "config"), "needle_7\n");
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Run the contenders in turns (A B C A B C …) after one warm-up round, so a noisy neighbour on the
 * machine slows them alike; returns each one's median wall time and its result count.
 */
async function race(contenders: Array<() => Promise<number>>, iterations = ITERATIONS): Promise<Array<{ ms: number; count: number; runs: number[] }>> {
  const times = contenders.map(() => [] as number[]);
  const counts = contenders.map(() => 0);
  for (let round = 0; round <= iterations; round++) {
    for (const [i, fn] of contenders.entries()) {
      const start = performance.now();
      counts[i] = await fn();
      if (round > 0) times[i].push(performance.now() - start);
    }
  }
  return contenders.map((_, i) => ({ ms: median(times[i]), count: counts[i], runs: times[i] }));
}

/** rg with the given argv, all output collected; returns the number of records. */
function rawRg(args: string[], cwd: string, separator: "\0" | "\n"): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, args, { cwd, stdio: ["ignore", "pipe", "ignore"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.once("error", reject);
    child.once("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      resolve(text.split(separator).filter(Boolean).length);
    });
  });
}

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-search-")));
const home = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-home-"));
try {
  const genStart = performance.now();
  await generateTree(root);
  console.log(`tree: ${FILES} files in ${root} (generated in ${((performance.now() - genStart) / 1000).toFixed(1)} s), ${ITERATIONS} runs each, median`);

  const permissionContext = {
    mode: "default" as const,
    cwd: root,
    additionalWorkingDirectories: [],
    rules: [{ source: "session" as const, ruleBehavior: "deny" as const, ruleValue: parsePermissionRule("Read(./pkg3/**)") }],
    shouldAvoidPermissionPrompts: true,
  };
  const session = (withDeny: boolean) =>
    createToolUseContext({
      tools: [GlobTool, GrepTool] as AnyTool[],
      cwd: root,
      home,
      permissionContext: withDeny ? permissionContext : { ...permissionContext, rules: [] },
      permissionDecider: hasPermissionsToUseTool,
    });
  const open = session(false);
  const guarded = session(true);
  const allow: CanUseToolFn = async () => ({ behavior: "allow" });
  const message: AssistantMessage = { role: "assistant", id: "bench", content: [] };
  let id = 0;
  const tool = async (name: string, input: object, total: (output: any) => number, context = open): Promise<number> => {
    for await (const update of runToolUse({ type: "tool_use", id: `b${id++}`, name, input }, message, allow, context)) {
      if (update.type === "result") {
        if (update.outcome !== "success") throw new Error(`${name} failed: ${JSON.stringify(update.block.content).slice(0, 300)}`);
        return total(update.output);
      }
    }
    throw new Error("no result");
  };
  const denyGlobs = readDenyGlobsForRoot(permissionContext, root);

  const rows: Array<[string, string, number, number, number, number]> = [];
  const grepCases: Array<{ label: string; mode: GrepOutputMode; pattern: string; deny?: boolean }> = [
    { label: "files needle_7 (500 files)", mode: "files_with_matches", pattern: "needle_7\\b" },
    { label: "content needle (150k lines)", mode: "content", pattern: "needle" },
    { label: "count needle (50k files), 1 deny rule", mode: "count", pattern: "needle", deny: true },
  ];
  for (const c of grepCases) {
    const args = buildGrepArgs({ pattern: c.pattern, mode: c.mode, globs: [], caseInsensitive: false, multiline: false }, c.deny ? denyGlobs : [], ".");
    const [ours, raw] = await race(
      [
        () =>
          tool("Grep", { pattern: c.pattern, output_mode: c.mode }, (o) => (o.mode === "content" ? o.numLines : o.numFiles), c.deny ? guarded : open),
        () => rawRg(args, root, c.mode === "files_with_matches" ? "\0" : "\n"),
      ],
      c.deny ? DENY_ITERATIONS : ITERATIONS,
    );
    rows.push([`Grep ${c.label}`, "raw rg (same argv)", ours.ms, raw.ms, ours.count, raw.count]);
    if (c.deny) {
      reportRow({
        what: "Grep count mode, 1 Read deny rule, 50 000 files",
        peer: "raw rg (same argv)",
        ...pairedRatios(ours.runs, raw.runs),
        detail: `${ours.ms.toFixed(0)} ms vs ${raw.ms.toFixed(0)} ms, ${DENY_ITERATIONS} paired runs`,
        goal: "≤ 1.15×",
      });
    }
  }

  const vcs = exclusionGlobArgs([]);
  const globCases = [
    { label: "**/*.ts (10k)", pattern: "**/*.ts" },
    { label: "pkg1*/mod1/**/*.md (1.1k)", pattern: "pkg1*/mod1/**/*.md" },
    { label: "**/file7.md (2k)", pattern: "**/file7.md" },
  ];
  const tinyIgnore = VCS_DIRECTORIES.map((d) => `**/${d}/**`);
  const globSpreads: string[] = [];
  for (const c of globCases) {
    const [ours, rgGlob, tiny] = await race(
      [
        () => tool("Glob", { pattern: c.pattern }, (o) => o.numFiles),
        () => rawRg([...BASE_ARGS, "--files", "--hidden", "--no-ignore", `--glob=/${c.pattern}`, ...vcs, "--", "."], root, "\0"),
        async () => (await tinyglobby(c.pattern, { cwd: root, dot: true, ignore: tinyIgnore, followSymbolicLinks: false })).length,
      ],
      GLOB_ITERATIONS,
    );
    rows.push([`Glob ${c.label}`, "rg --files -g", ours.ms, rgGlob.ms, ours.count, rgGlob.count]);
    if (c.pattern === "**/*.ts") {
      reportRow({
        what: "Glob **/*.ts (10 000 matches)",
        peer: "rg --files -g",
        ...pairedRatios(ours.runs, rgGlob.runs),
        detail: `${ours.ms.toFixed(0)} ms vs ${rgGlob.ms.toFixed(0)} ms, ${GLOB_ITERATIONS} paired runs`,
        goal: "≤ 1.1×",
      });
    }
    rows.push([`Glob ${c.label}`, "tinyglobby", ours.ms, tiny.ms, ours.count, tiny.count]);
    // Each Glob run against the rg run right after it: the middle half of those ratios is the spread.
    const pairs = ours.runs.map((ms, i) => ms / rgGlob.runs[i]).sort((a, b) => a - b);
    const quartile = (q: number) => pairs[Math.floor(q * (pairs.length - 1))].toFixed(2);
    const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} ms`;
    globSpreads.push(
      `Glob ${c.label} vs rg --files -g: ${GLOB_ITERATIONS} paired runs, ratio IQR ${quartile(0.25)}–${quartile(0.75)}; Glob ${range(ours.runs)}, rg ${range(rgGlob.runs)}`,
    );
  }

  console.log("");
  console.log(`${"case".padEnd(42)} ${"peer".padEnd(20)} ${"tool ms".padStart(8)} ${"peer ms".padStart(8)} ${"ratio".padStart(6)} ${"results (tool/peer)".padStart(20)}`);
  for (const [label, peer, toolMs, peerMs, toolCount, peerCount] of rows) {
    console.log(
      `${label.padEnd(42)} ${peer.padEnd(20)} ${toolMs.toFixed(0).padStart(8)} ${peerMs.toFixed(0).padStart(8)} ${(toolMs / peerMs).toFixed(2).padStart(6)} ${`${toolCount}/${peerCount}`.padStart(20)}`,
    );
  }
  console.log(`\n${globSpreads.join("\n")}`);
  const grepRows = rows.filter((r) => r[0].startsWith("Grep") && !r[0].includes("deny"));
  const overheads = grepRows.map((r) => r[2] - r[3]);
  console.log(
    `\nGrep tool over raw rg, no deny rules: ratios ${grepRows.map((r) => (r[2] / r[3]).toFixed(2)).join(", ")}; added ${overheads.map((ms) => ms.toFixed(0)).join(", ")} ms`,
  );
  // what the two per-result steps cost, measured alone on 10 000 paths of the tree
  const sample = (await tinyglobby("**/*.txt", { cwd: root, dot: true, absolute: true })).slice(0, 10_000);
  let start = performance.now();
  for (const file of sample) matchingReadDenyRule(file, permissionContext);
  const denyUs = ((performance.now() - start) * 1000) / sample.length;
  start = performance.now();
  const walked = createReadDenyFilter(permissionContext, { walked: true });
  for (const file of sample) walked(file);
  const walkedUs = ((performance.now() - start) * 1000) / sample.length;
  start = performance.now();
  await sortNewestFirst(sample);
  const sortUs = ((performance.now() - start) * 1000) / sample.length;
  console.log(
    `per result path: Read-deny check alone (matchingReadDenyRule, 1 rule) ${denyUs.toFixed(1)} µs, as the search filter (each directory resolved once) ${walkedUs.toFixed(1)} µs; mtime sort (stat) ${sortUs.toFixed(1)} µs.`,
  );
  console.log("Glob and Grep's files mode sort every match by mtime; rg --files -g and tinyglobby return unsorted lists.");
} finally {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
}
