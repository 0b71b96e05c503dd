/**
 * Cold start: `toolgate exec` with one Read of a small file, process start to exit, vs `node -e 0` and (when
 * installed) `claude --version`, the native Claude Code binary; and `exec` with one Bash call (`true`, in the
 * sandbox as by default and with --no-sandbox) vs `exec` with one Read: what the first Bash call adds (the bash
 * parser, `bash -n`, the sandbox's start). Each round runs every command once in a
 * rotating order, so load on this shared machine hits them alike; ratios are per round, then the median.
 * Runs the built CLI (dist/cli/main.js): `npm run build` first. The peer binary is `$CLAUDE_BIN`, else
 * `claude` on PATH; without it that row is skipped with a note. `STARTUP_BASELINE=<path to another build's
 * dist/cli/main.js>` adds that build to the same rounds (before → after in one run).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { pairedRatios, reportRow } from "../report.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cli = path.join(root, "dist/cli/main.js");
if (!fs.existsSync(cli)) {
  console.error(`startup bench: ${cli} is missing; run npm run build first`);
  process.exit(1);
}

const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-startup-bench-")));
const home = path.join(cwd, ".home");
fs.mkdirSync(home);
const file = path.join(cwd, "small.txt");
fs.writeFileSync(file, "one\ntwo\nthree\n");
const env = { ...process.env, HOME: home, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") };
const readLine = `${JSON.stringify({ type: "tool_use", id: "r1", name: "Read", input: { file_path: file } })}\n`;
const bashLine = `${JSON.stringify({ type: "tool_use", id: "b1", name: "Bash", input: { command: "true" } })}\n`;
const readDone = /"tool_result".*1\\tone/;
const bashDone = /"tool_use_id":"b1","content":"\(Bash completed with no output\)"/;

function findClaude(): string | undefined {
  if (process.env.CLAUDE_BIN) return process.env.CLAUDE_BIN;
  const found = spawnSync("sh", ["-c", "command -v claude"], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() || undefined : undefined;
}

interface Subject {
  name: string;
  file: string;
  args: string[];
  input?: string;
  /** What a good run prints, so a broken build is not timed as a fast one. */
  expect: RegExp;
}

const subjects: Subject[] = [
  { name: "toolgate exec (Read)", file: process.execPath, args: [cli, "exec", "--cwd", cwd], input: readLine, expect: readDone },
  { name: "toolgate exec --no-sandbox (Read)", file: process.execPath, args: [cli, "exec", "--no-sandbox", "--cwd", cwd], input: readLine, expect: readDone },
  { name: "toolgate exec (Bash)", file: process.execPath, args: [cli, "exec", "--cwd", cwd], input: bashLine, expect: bashDone },
  { name: "toolgate exec --no-sandbox (Bash)", file: process.execPath, args: [cli, "exec", "--no-sandbox", "--cwd", cwd], input: bashLine, expect: bashDone },
  { name: "node -e 0", file: process.execPath, args: ["-e", "0"], expect: /^$/ },
];
const baseline = process.env.STARTUP_BASELINE;
if (baseline) {
  subjects.push(
    { name: "baseline exec --no-sandbox (Read)", file: process.execPath, args: [path.resolve(baseline), "exec", "--no-sandbox", "--cwd", cwd], input: readLine, expect: readDone },
    { name: "baseline exec --no-sandbox (Bash)", file: process.execPath, args: [path.resolve(baseline), "exec", "--no-sandbox", "--cwd", cwd], input: bashLine, expect: bashDone },
  );
}
const claude = findClaude();
if (claude) subjects.push({ name: "claude --version", file: claude, args: ["--version"], expect: /Claude Code/ });
else console.log("claude --version peer skipped: set CLAUDE_BIN or put claude on PATH");

function timeOnce(subject: Subject): number {
  const start = performance.now();
  const run = spawnSync(subject.file, subject.args, { input: subject.input ?? "", env: { ...env, DISABLE_AUTOUPDATER: "1" }, cwd, encoding: "utf8" });
  const ms = performance.now() - start;
  if (run.status !== 0 || !subject.expect.test(run.stdout)) {
    throw new Error(`${subject.name} failed (exit ${run.status}): ${run.stdout.slice(0, 300)}${run.stderr.slice(0, 300)}`);
  }
  return ms;
}

const ROUNDS = Number(process.env.STARTUP_ROUNDS ?? 15);
const times = new Map<string, number[]>(subjects.map((s) => [s.name, []]));
for (const subject of subjects) timeOnce(subject); // warm the page cache
for (let round = 0; round < ROUNDS; round++) {
  // rotate who goes first so no subject always runs right after another
  for (let k = 0; k < subjects.length; k++) {
    const subject = subjects[(round + k) % subjects.length];
    times.get(subject.name)!.push(timeOnce(subject));
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (name: string) => `${median(times.get(name)!).toFixed(0)} ms`;
console.log(`startup bench, ${ROUNDS} rounds (medians):`);
for (const subject of subjects) console.log(`  ${subject.name.padEnd(36)} ${ms(subject.name)}`);

const node = times.get("node -e 0")!;
for (const ours of ["toolgate exec (Read)", "toolgate exec --no-sandbox (Read)"]) {
  const { ratio, spread } = pairedRatios(times.get(ours)!, node);
  reportRow({ what: `${ours}, start to exit`, peer: "node -e 0", ratio, spread, detail: `${ms(ours)} vs ${ms("node -e 0")}`, goal: "≤ 2×" });
  if (claude) {
    const peer = pairedRatios(times.get(ours)!, times.get("claude --version")!);
    reportRow({ what: `${ours}, start to exit`, peer: "claude --version", ratio: peer.ratio, spread: peer.spread, detail: `${ms(ours)} vs ${ms("claude --version")}`, goal: "< 1×" });
  }
}
for (const [bash, read] of [
  ["toolgate exec (Bash)", "toolgate exec (Read)"],
  ["toolgate exec --no-sandbox (Bash)", "toolgate exec --no-sandbox (Read)"],
]) {
  const { ratio, spread } = pairedRatios(times.get(bash)!, times.get(read)!);
  reportRow({ what: `${bash}, start to exit`, peer: read, ratio, spread, detail: `${ms(bash)} vs ${ms(read)}`, goal: "≤ 1.3×" });
}
if (baseline) {
  for (const tool of ["Read", "Bash"]) {
    const ours = `toolgate exec --no-sandbox (${tool})`;
    const theirs = `baseline exec --no-sandbox (${tool})`;
    const { ratio, spread } = pairedRatios(times.get(ours)!, times.get(theirs)!);
    reportRow({ what: `${ours}, this build`, peer: `the build at ${baseline}`, ratio, spread, detail: `${ms(ours)} vs ${ms(theirs)}` });
  }
}
fs.rmSync(cwd, { recursive: true, force: true });
