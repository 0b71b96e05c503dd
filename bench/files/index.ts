/**
 * File tools against the plain tools a shell offers:
 * - Read of the last 2000 lines of a 2 GB file with offset=-2000 (read backward from the end, lines not counted)
 *   vs `tail -n 2000`; then, in the same session, the same lines by their absolute line number (a full pass that
 *   counts every line and builds the line index), then 900 lines from the middle from that index vs `sed -n 'A,Bp;Bq'`;
 * - Edit of one line in a 100 MB file (read-before-edit state, staleness check, matching, checkpoint, atomic
 *   write with fsync, patch) vs readFileSync + replace + writeFileSync.
 * Every measured task runs in a child process; peak RSS is that child's (ours: process.resourceUsage, tail: /usr/bin/time).
 * Page cache is warm: the files were just written.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { reportRow } from "../report.js";

const WORKER = fileURLToPath(new URL("./worker.ts", import.meta.url));
const BIG_BYTES = 2 * 1024 ** 3;
const EDIT_BYTES = 100 * 1024 ** 2;
const RUNS = 5;
const EDIT_RUNS = 5;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-files-"));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs: number[], digits = 1) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
/** Ratio of medians, and the range of the per-pair ratios (each run of ours against the peer's run next to it). */
const ratio = (ours: number[], theirs: number[]) => {
  const pairs = ours.map((m, i) => m / theirs[i]);
  return `${(median(ours) / median(theirs)).toFixed(2)}x (pairs ${spread(pairs, 2)})`;
};
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

const FILLER = "the quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs 0123456789\n";
const BLOCK_LINES = Math.floor((1024 * 1024) / FILLER.length);
const BLOCK = Buffer.from(FILLER.repeat(BLOCK_LINES));

/** `bytes` of ~100-byte filler lines in 1 MiB blocks, with `middle` lines halfway and `tail` lines at the end; returns the line count. */
function generate(file: string, bytes: number, middle: string[], tail: string[]): number {
  const fd = fs.openSync(file, "w");
  let lines = 0;
  const fill = (amount: number) => {
    for (let written = 0; written + BLOCK.length <= amount; written += BLOCK.length) {
      fs.writeSync(fd, BLOCK);
      lines += BLOCK_LINES;
    }
  };
  fill(bytes / 2);
  fs.writeSync(fd, middle.join(""));
  fill(bytes / 2);
  fs.writeSync(fd, tail.join(""));
  fs.closeSync(fd);
  return lines + middle.length + tail.length;
}

function worker(...args: string[]): { ms: number[]; rssKB: number; note?: string } {
  const result = spawnSync(process.execPath, ["--import", "tsx", WORKER, ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`worker ${args[0]} failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split("\n").pop() as string);
}

/** Wall time of a shell tool (spawn included), its peak RSS from /usr/bin/time, and how many lines it printed. */
function timed(command: string[]): { ms: number; rssKB: number; lines: number } {
  const start = performance.now();
  const result = spawnSync("/usr/bin/time", ["-f", "%M", ...command], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - start;
  return { ms, rssKB: Number(result.stderr.trim().split("\n").pop()), lines: result.stdout.split("\n").length - 1 };
}

try {
  const rows: string[][] = [];
  const baseline = worker("baseline").rssKB;

  const big = path.join(dir, "big.log");
  const tailLines = Array.from({ length: 2000 }, (_, i) => `tail line ${i + 1}\n`);
  let start = performance.now();
  const totalLines = generate(big, BIG_BYTES, [], tailLines);
  console.log(`generated ${(fs.statSync(big).size / 1024 ** 3).toFixed(2)} GB, ${totalLines} lines in ${((performance.now() - start) / 1000).toFixed(1)} s`);

  // The filler lines are ~100 bytes, so 900 of them stay under Read's 100 000-character result cap.
  const middle = Math.floor(totalLines / 2);
  const middleLines = 900;
  const last = middle + middleLines - 1;
  const windows = `-2000:2000,${totalLines - 1999}:2000,${middle}:${middleLines}`;
  // Paired and alternating (ours, then the peer), so a busy neighbour on the machine slows both alike.
  const reads: Array<ReturnType<typeof worker>> = [];
  const tails: Array<ReturnType<typeof timed>> = [];
  const seds: Array<ReturnType<typeof timed>> = [];
  for (let run = 0; run < RUNS; run++) {
    reads.push(worker("read", big, windows));
    tails.push(timed(["tail", "-n", "2000", big]));
    seds.push(timed(["sed", "-n", `${middle},${last}p;${last}q`, big]));
  }
  if (tails[0].lines !== 2000 || seds[0].lines !== middleLines) throw new Error("tail or sed printed the wrong number of lines");
  console.log(`Read notes: ${reads[0].note}`);
  const readRss = Math.max(...reads.map((r) => r.rssKB));
  const [endMs, countedMs, middleMs] = [0, 1, 2].map((k) => reads.map((r) => r.ms[k]));
  const tailMs = tails.map((t) => t.ms);
  const sedMs = seds.map((t) => t.ms);
  rows.push([
    "Read offset=-2000 (last 2000 lines), 2 GB",
    `${median(endMs).toFixed(1)} ms (${spread(endMs)})`,
    `tail -n 2000: ${median(tailMs).toFixed(1)} ms (${spread(tailMs)})`,
    ratio(endMs, tailMs),
    `${mb(readRss)} (worker floor ${mb(baseline)}); tail ${mb(tails[0].rssKB)}`,
  ]);
  reportRow({
    what: "Read offset -2000 (last 2000 lines) of a 2 GB file",
    peer: "tail -n 2000",
    ratio: median(endMs) / median(tailMs),
    spread: [Math.min(...endMs.map((m, i) => m / tailMs[i])), Math.max(...endMs.map((m, i) => m / tailMs[i]))],
    detail: `${median(endMs).toFixed(1)} ms vs ${median(tailMs).toFixed(1)} ms, ${RUNS} alternating pairs`,
    goal: "≤ 1.5×",
  });
  rows.push([
    "Read the same lines by line number (counts all)",
    `${median(countedMs).toFixed(0)} ms (${spread(countedMs, 0)})`,
    `tail -n 2000: ${median(tailMs).toFixed(1)} ms`,
    ratio(countedMs, tailMs),
    "",
  ]);
  rows.push([
    `Read ${middleLines} middle lines, same session (line index)`,
    `${median(middleMs).toFixed(1)} ms (${spread(middleMs)})`,
    `sed -n 'A,Bp;Bq': ${median(sedMs).toFixed(0)} ms (${spread(sedMs, 0)})`,
    ratio(middleMs, sedMs),
    `sed ${mb(seds[0].rssKB)}`,
  ]);
  fs.rmSync(big);

  const edited = path.join(dir, "edit.txt");
  const plain = path.join(dir, "plain.txt");
  for (const file of [edited, plain]) generate(file, EDIT_BYTES, ["MARKER_0\n"], []);
  const ours = worker("edit", edited, String(EDIT_RUNS));
  const theirs = worker("plain", plain, String(EDIT_RUNS));
  rows.push([
    "Edit one line, 100 MB",
    `${median(ours.ms).toFixed(0)} ms (${spread(ours.ms, 0)})`,
    `read+replace+write: ${median(theirs.ms).toFixed(0)} ms (${spread(theirs.ms, 0)})`,
    `${(median(ours.ms) / median(theirs.ms)).toFixed(2)}x`,
    `${mb(ours.rssKB)}; plain ${mb(theirs.rssKB)}`,
  ]);
  if (fs.readFileSync(edited).equals(fs.readFileSync(plain)) === false) throw new Error("Edit and plain results differ");

  const header = ["case", "toolgate (median)", "peer (median)", "ratio", "peak RSS"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  console.log(`\n${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n${rows.map(line).join("\n")}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
