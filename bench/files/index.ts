/**
 * File tools against the plain tools a shell offers:
 * - Read of the last 2000 lines of a 2 GB file (streamed, lines counted, hashing skipped above 1 GiB) vs `tail -n 2000`,
 *   then 900 lines from the middle in the same session (from the line index the first read built) vs `sed -n 'A,Bp;Bq'`;
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

const WORKER = fileURLToPath(new URL("./worker.ts", import.meta.url));
const BIG_BYTES = 2 * 1024 ** 3;
const EDIT_BYTES = 100 * 1024 ** 2;
const RUNS = 3;
const EDIT_RUNS = 5;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-files-"));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
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
  const reads = Array.from({ length: RUNS }, () => worker("read", big, `${totalLines - 1999}:2000,${middle}:${middleLines}`));
  const tails = Array.from({ length: RUNS }, () => timed(["tail", "-n", "2000", big]));
  const last = middle + middleLines - 1;
  const seds = Array.from({ length: RUNS }, () => timed(["sed", "-n", `${middle},${last}p;${last}q`, big]));
  if (tails[0].lines !== 2000 || seds[0].lines !== middleLines) throw new Error("tail or sed printed the wrong number of lines");
  console.log(`Read notes: ${reads[0].note}`);
  const readRss = Math.max(...reads.map((r) => r.rssKB));
  const endMs = median(reads.map((r) => r.ms[0]));
  const middleMs = median(reads.map((r) => r.ms[1]));
  const tailMs = median(tails.map((t) => t.ms));
  const sedMs = median(seds.map((t) => t.ms));
  rows.push(["Read last 2000 lines, 2 GB (first read)", `${endMs.toFixed(0)} ms`, `tail -n 2000: ${tailMs.toFixed(1)} ms`, `${(endMs / tailMs).toFixed(0)}x`, `${mb(readRss)} (worker floor ${mb(baseline)}); tail ${mb(tails[0].rssKB)}`]);
  rows.push([`Read ${middleLines} middle lines, same session (line index)`, `${middleMs.toFixed(1)} ms`, `sed -n 'A,Bp;Bq': ${sedMs.toFixed(0)} ms`, `${(middleMs / sedMs).toFixed(2)}x`, `sed ${mb(seds[0].rssKB)}`]);
  fs.rmSync(big);

  const edited = path.join(dir, "edit.txt");
  const plain = path.join(dir, "plain.txt");
  for (const file of [edited, plain]) generate(file, EDIT_BYTES, ["MARKER_0\n"], []);
  const ours = worker("edit", edited, String(EDIT_RUNS));
  const theirs = worker("plain", plain, String(EDIT_RUNS));
  const editMs = median(ours.ms);
  const plainMs = median(theirs.ms);
  rows.push(["Edit one line, 100 MB", `${editMs.toFixed(0)} ms`, `read+replace+write: ${plainMs.toFixed(0)} ms`, `${(editMs / plainMs).toFixed(1)}x`, `${mb(ours.rssKB)}; plain ${mb(theirs.rssKB)}`]);
  if (fs.readFileSync(edited).equals(fs.readFileSync(plain)) === false) throw new Error("Edit and plain results differ");

  const header = ["case", "toolgate (median)", "peer (median)", "ratio", "peak RSS"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  console.log(`\n${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n${rows.map(line).join("\n")}`);
  console.log(`\nEdit runs: ${ours.ms.map((m) => m.toFixed(0)).join(", ")} ms; plain runs: ${theirs.ms.map((m) => m.toFixed(0)).join(", ")} ms`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
