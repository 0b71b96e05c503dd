/** Running the real CLI (`toolgate -p`, `toolgate diff`, …) against the scripted model server. */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from "../../scripts/fake-model.mjs";
import { tempDir } from "../helpers.js";
import { cliArgs, repoRoot } from "../cliCommand.js";

export { cliArgs, repoRoot } from "../cliCommand.js";

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

export async function serveModel(script: FakeModelScript): Promise<FakeModelServer> {
  const server = await startFakeModelServer({ script });
  servers.push(server);
  return server;
}

/** A project directory with files, and a data home inside it. */
export function project(files: Record<string, string> = {}): string {
  const dir = tempDir("toolgate-observe-");
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  fs.mkdirSync(path.join(dir, ".home"));
  return dir;
}

/** The environment for a run against `server` (Anthropic protocol), with nothing of the caller's telemetry settings. */
export function agentEnv(server: FakeModelServer | undefined, dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TOOLGATE_HOME: path.join(dir, ".home"), ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server?.url ?? "", OPENAI_API_KEY: "", OPENAI_BASE_URL: "" };
  for (const key of Object.keys(env)) if (key.startsWith("OTEL_") || key.startsWith("TOOLGATE_TELEMETRY") || key === "TOOLGATE_ENABLE_TELEMETRY") delete env[key];
  return { ...env, ...extra };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout lines that are JSON. */
  lines: Array<Record<string, any>>;
}

export interface StartedCli {
  child: ChildProcessWithoutNullStreams;
  done: Promise<CliRun>;
  /** stdout lines that are JSON, as they come. */
  lines: Array<Record<string, any>>;
  onLine(listener: (line: Record<string, any>) => void): void;
  /** The first JSON line (already printed or still to come) that `match` accepts. */
  waitFor(match: (line: Record<string, any>) => boolean): Promise<Record<string, any>>;
}

/** Starts the CLI in the repository's root with stdin a pipe, ended after `stdin` when given; each JSON line is seen as it comes. */
export function startCli(args: string[], env: NodeJS.ProcessEnv, stdin?: string): StartedCli {
  const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: repoRoot, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let partial = "";
  const lines: Array<Record<string, any>> = [];
  const listeners: Array<(line: Record<string, any>) => void> = [];
  child.stdout.on("data", (d: Buffer) => {
    stdout += d;
    partial += d;
    let nl: number;
    while ((nl = partial.indexOf("\n")) >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      try {
        const value = JSON.parse(line);
        lines.push(value);
        for (const l of listeners) l(value);
      } catch {
        // text output
      }
    }
  });
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  if (stdin !== undefined) child.stdin.end(stdin);
  const done = new Promise<CliRun>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr, lines })));
  const waitFor = (match: (line: Record<string, any>) => boolean) =>
    new Promise<Record<string, any>>((resolve) => {
      const found = lines.find(match);
      if (found) return resolve(found);
      listeners.push((l) => match(l) && resolve(l));
    });
  return { child, done, lines, onLine: (l) => void listeners.push(l), waitFor };
}

/** Runs the CLI in `cwd` (default the repository's root). */
export function runCli(args: string[], env: NodeJS.ProcessEnv, stdin?: string, cwd: string = repoRoot): Promise<CliRun> {
  const child = spawn(process.execPath, [...cliArgs, ...args], { cwd, env, stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
  if (stdin !== undefined) child.stdin!.end(stdin);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d));
  child.stderr!.on("data", (d: Buffer) => (stderr += d));
  return new Promise((resolve) =>
    child.on("close", (code) => {
      const lines = stdout.split("\n").flatMap((line) => {
        try {
          const value = JSON.parse(line);
          return value && typeof value === "object" && !Array.isArray(value) ? [value] : [];
        } catch {
          return [];
        }
      });
      resolve({ code, stdout, stderr, lines });
    }),
  );
}
