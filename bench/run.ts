/**
 * `npm run bench [-- name…]`: runs every bench/<name>/index.ts (or the named ones) one after another,
 * each in its own process so one bench's memory and timers cannot skew the next.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { formatRow, ROW_PREFIX, type BenchRow } from "./report.js";

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const available = fs
  .readdirSync(benchDir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && fs.existsSync(path.join(benchDir, e.name, "index.ts")))
  .map((e) => e.name)
  .sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length) {
  console.error(`unknown bench: ${unknown.join(", ")}; available: ${available.join(", ")}`);
  process.exit(2);
}
let failed = 0;
const rows: { bench: string; row: BenchRow }[] = [];
for (const name of wanted.length ? wanted : available) {
  console.log(`\n=== bench/${name} ===`);
  const result = spawnSync(process.execPath, ["--import", "tsx", path.join(benchDir, name, "index.ts")], {
    stdio: ["inherit", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  });
  // Rows are collected for the summary; everything else passes through as the bench wrote it.
  for (const line of (result.stdout?.toString() ?? "").split("\n")) {
    if (line.startsWith(ROW_PREFIX)) rows.push({ bench: name, row: JSON.parse(line.slice(ROW_PREFIX.length)) as BenchRow });
    else process.stdout.write(`${line}\n`);
  }
  if (result.status !== 0) {
    failed++;
    console.error(`bench/${name} exited with ${result.status ?? result.signal}`);
  }
  // Let the disk and page cache settle (bench/files writes and deletes gigabytes) before the next one.
  spawnSync("sync");
  await new Promise((resolve) => setTimeout(resolve, 3_000));
}
if (rows.length) {
  console.log("\n=== summary: each figure with its peer from the same run ===");
  for (const { bench, row } of rows) console.log(`${bench.padEnd(12)} ${formatRow(row)}`);
}
process.exit(failed ? 1 : 0);
