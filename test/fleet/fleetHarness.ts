/** Real processes for the fleet tests: a redis-server on a free port, `toolgate worker`s, `toolgate fleet …`. */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { afterAll } from "vitest";
import { cliArgs, cliEnv, repoRoot } from "../cliCommand.js";
import { freePort, tempDir } from "../helpers.js";

const started: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(started.splice(0).map((child) => stopProcess(child, "SIGKILL")));
});

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}

/** Resolves once `check` returns a value, checking whenever `wake` fires (or every 50 ms for state outside). */
export async function until<T>(check: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** A redis-server with an append-only file fsynced on every write, so a restart on the same dir loses nothing. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const dir = tempDir("toolgate-redis-");
  let child: ChildProcess | undefined;
  const start = async () => {
    const proc = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", dir], { stdio: ["ignore", "pipe", "pipe"] });
    started.push(proc);
    child = proc;
    let output = "";
    await new Promise<void>((resolve, reject) => {
      proc.stdout!.on("data", (chunk: Buffer) => {
        output += chunk;
        if (output.includes("Ready to accept connections")) resolve();
      });
      proc.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    start,
    stop: () => stopProcess(child!, "SIGTERM"),
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  events: Array<Record<string, any>>;
  stderr: () => string;
  exited: Promise<number | null>;
  /** The first event (already seen or still to come) that `match` accepts. */
  waitFor(match: (event: Record<string, any>) => boolean, what: string): Promise<Record<string, any>>;
}

/** The data home and the API key every worker and CLI of a test shares; the base URL comes from each task. */
export function fleetEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...cliEnv, TOOLGATE_HOME: home, ANTHROPIC_API_KEY: "test" };
  for (const key of ["ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "TOOLGATE_PROVIDER", "TOOLGATE_MODEL", "TOOLGATE_REDIS_URL"]) delete env[key];
  for (const key of Object.keys(env)) if (key.startsWith("OTEL_")) delete env[key];
  return env;
}

export function startWorker(redisUrl: string, env: NodeJS.ProcessEnv, extra: string[] = []): WorkerProcess {
  const child = spawn(process.execPath, [...cliArgs, "worker", "--redis", redisUrl, "--json", ...extra], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  started.push(child);
  const events: Array<Record<string, any>> = [];
  const waiters: Array<() => void> = [];
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk));
  readline.createInterface({ input: child.stdout! }).on("line", (line) => {
    try {
      events.push(JSON.parse(line));
    } catch {
      return;
    }
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    pid: child.pid!,
    events,
    stderr: () => stderr,
    exited,
    async waitFor(match, what) {
      for (;;) {
        const found = events.find(match);
        if (found) return found;
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`worker ${child.pid} exited before ${what}: ${stderr}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          child.once("exit", () => resolve());
        });
      }
    },
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function fleetCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const child = spawn(process.execPath, [...cliArgs, "fleet", ...args], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

export function writeTasks(dir: string, tasks: Array<Record<string, unknown> | string>): string {
  const file = path.join(dir, "tasks.jsonl");
  fs.writeFileSync(file, tasks.map((task) => (typeof task === "string" ? task : JSON.stringify(task))).join("\n") + "\n");
  return file;
}

/** The text of the first user message of a model request: which task sent it. */
export function promptOf(body: any): string {
  const content = body?.messages?.[0]?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((block: any) => (block.type === "text" ? block.text : "")).join("");
  return "";
}

/** Running: exists and is not a zombie waiting to be reaped. */
export function processAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
