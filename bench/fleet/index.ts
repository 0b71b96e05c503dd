/**
 * The fleet: throughput of N one-turn tasks with 1, 2 and 4 `toolgate worker` processes (concurrency 1 each)
 * against the scripted model server and a local redis-server, as ratios to 1 worker; and the per-task
 * overhead of the queue (1 worker) against running the same `toolgate -p` commands one after another.
 * Runs the built CLI (dist/cli/main.js): `npm run build` first. FLEET_BENCH_TASKS sets N (default 12).
 * On a shared 2-core machine more workers than cores cannot scale; the figures say how it behaves there.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { startFakeModelServer } from "../../scripts/fake-model.mjs";
import { pairedRatios, reportRow } from "../report.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cli = path.join(root, "dist/cli/main.js");
if (!fs.existsSync(cli)) {
  console.error(`fleet bench: ${cli} is missing; run npm run build first`);
  process.exit(1);
}
if (spawnSync("redis-server", ["--version"]).status !== 0) {
  console.log("fleet bench skipped: redis-server is not installed");
  process.exit(0);
}

const tasks = Number(process.env.FLEET_BENCH_TASKS) || 12;
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-fleet-bench-")));
const home = path.join(dir, ".home");
fs.mkdirSync(home);
const model = await startFakeModelServer({ script: { turns: [{ content: [{ type: "text", text: "done" }] }], loop: true } });
const env: NodeJS.ProcessEnv = { ...process.env, TOOLGATE_HOME: home, HOME: home, ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: model.url };

const port = await new Promise<number>((resolve) => {
  const server = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = server.address() as net.AddressInfo;
    server.close(() => resolve(port));
  });
});
const redisUrl = `redis://127.0.0.1:${port}`;
const redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes", "--dir", dir], { stdio: ["ignore", "pipe", "ignore"] });
await new Promise<void>((resolve) => {
  let out = "";
  redis.stdout!.on("data", (chunk: Buffer) => {
    out += chunk;
    if (out.includes("Ready to accept connections")) resolve();
  });
});
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });

function runCli(args: string[]): Promise<number | null> {
  return new Promise((resolve) => spawn(process.execPath, [cli, ...args], { env, stdio: "ignore" }).on("close", resolve));
}

async function direct(): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < tasks; i++) {
    const code = await runCli(["-p", "--output-format", "stream-json", "--cwd", dir, `direct ${i}`]);
    if (code !== 0) throw new Error(`toolgate -p exited ${code}`);
  }
  return performance.now() - start;
}

function startWorker(queue: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [cli, "worker", "--redis", redisUrl, "--queue", queue, "--json"], { env, stdio: ["ignore", "pipe", "ignore"] });
  return new Promise((resolve) => {
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.includes('"event":"ready"')) resolve(child);
    });
  });
}

async function fleet(workers: number, round: number): Promise<number> {
  const name = `bench-${workers}-${round}`;
  const file = path.join(dir, `${name}.jsonl`);
  fs.writeFileSync(file, Array.from({ length: tasks }, (_, i) => JSON.stringify({ cwd: dir, prompt: `${name} ${i}` })).join("\n"));
  const children = await Promise.all(Array.from({ length: workers }, () => startWorker(name)));
  const queue = new Queue(name, { connection });
  const start = performance.now();
  if ((await runCli(["fleet", "submit", file, "--redis", redisUrl, "--queue", name])) !== 0) throw new Error("submit failed");
  while ((await queue.getJobCounts("completed")).completed < tasks) await new Promise((resolve) => setTimeout(resolve, 25));
  const elapsed = performance.now() - start;
  await Promise.all(children.map((child) => new Promise((resolve) => child.once("exit", resolve).kill("SIGTERM"))));
  await queue.obliterate({ force: true });
  await queue.close();
  return elapsed;
}

// Each round runs every subject once, in an order rotated per round, so load from others on this shared
// machine hits them alike; ratios are taken per round, then the median (with the spread over rounds).
const rounds = Number(process.env.FLEET_BENCH_ROUNDS) || 3;
const subjects = ["direct", "w1", "w2", "w4"] as const;
const times: Record<(typeof subjects)[number], number[]> = { direct: [], w1: [], w2: [], w4: [] };
for (let round = 0; round < rounds; round++) {
  for (let k = 0; k < subjects.length; k++) {
    const subject = subjects[(k + round) % subjects.length]!;
    times[subject].push(subject === "direct" ? await direct() : await fleet(Number(subject.slice(1)), round));
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const perTask = (key: (typeof subjects)[number]) => median(times[key]) / tasks;
const ms = (value: number) => `${Math.round(value)} ms`;
console.log(`${tasks} tasks, ${rounds} rounds, ${os.cpus().length} cores; median per task: direct ${ms(perTask("direct"))}, 1 worker ${ms(perTask("w1"))}, 2 workers ${ms(perTask("w2"))}, 4 workers ${ms(perTask("w4"))}`);
const overhead = pairedRatios(times.w1, times.direct);
reportRow({ what: "fleet, 1 worker, per task", peer: "toolgate -p one after another", ...overhead, detail: `${ms(perTask("w1"))} vs ${ms(perTask("direct"))} (submit, BullMQ and the worker around the same -p process)` });
for (const workers of [2, 4] as const) {
  const key = `w${workers}` as const;
  // throughput ratio = time with 1 worker / time with N
  const speedup = pairedRatios(times.w1, times[key]);
  reportRow({ what: `fleet throughput, ${workers} workers`, peer: "1 worker", ...speedup, higherIsBetter: true, detail: `${(1000 / perTask(key)).toFixed(2)} vs ${(1000 / perTask("w1")).toFixed(2)} tasks/s` });
}

connection.disconnect();
await model.close();
redis.kill("SIGTERM");
fs.rmSync(dir, { recursive: true, force: true });
