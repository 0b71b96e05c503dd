/**
 * Runs one fleet task as a headless session: the real CLI with `-p --output-format stream-json`, as a child
 * process, so a crash or a hung tool ends that task and not the worker.
 */
import { spawn, execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { promisify } from "node:util";
import { transcriptPath } from "../agent/transcript.js";
import { getToolgateHome } from "../util/home.js";
import { LIFELINE_ENV } from "./lifeline.js";
import type { FleetTask } from "./task.js";

const run = promisify(execFile);

export interface TaskProgress {
  attempt: number;
  sessionId: string;
  /** Model turns so far. */
  turns: number;
  toolCalls: number;
  lastTool?: string;
}

export interface TaskResult {
  /** The result line's subtype: success, error_max_turns, error_during_execution, … */
  subtype: string;
  isError: boolean;
  /** The final text (or the error message). */
  text: string;
  numTurns: number;
  durationMs: number;
  usage: unknown;
  modelUsage: unknown;
  costUsd: number;
  permissionDenials: unknown[];
  errors: unknown[];
  sessionId: string;
  transcriptPath: string | null;
  /** The working directory the session ran in (a fresh clone for repo tasks). */
  cwd: string;
  /** Each turn's change summary (files written, edited, deleted). */
  changes: unknown[];
  exitCode: number | null;
  attempt: number;
  worker: string;
}

/** The session ended on a provider 429: the fleet should wait `retryAfterMs` before starting tasks. */
export class ProviderRateLimited extends Error {
  constructor(readonly retryAfterMs: number, message: string) {
    super(message);
    this.name = "ProviderRateLimited";
  }
}

export interface RunTaskOptions {
  task: FleetTask;
  jobId: string;
  attempt: number;
  worker: string;
  /** Node and the arguments that start the CLI (the worker's own). */
  command: { executable: string; args: string[] };
  /** How long the fleet waits after a 429 that did not say how long. */
  rateLimitWaitMs: number;
  /** Where repo tasks are cloned. */
  workDir: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  onProgress(progress: TaskProgress): void;
  /** The session's process started. */
  onStart?(pid: number): void;
  /** Diagnostics (stderr of the session, clone steps). */
  log(text: string): void;
}

/** A fresh clone of `repo` at `ref` for one attempt: a retry never sees a half-done attempt's files. */
async function checkout(repo: string, ref: string, dir: string): Promise<void> {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => run("git", args, { cwd: dir, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } });
  await git("init", "-q");
  await git("fetch", "-q", "--depth", "1", repo, ref);
  await git("checkout", "-q", "--detach", "FETCH_HEAD");
}

function cliArguments(task: FleetTask, cwd: string, sessionId: string): string[] {
  const args = ["-p", "--output-format", "stream-json", "--toolgate-events", "--cwd", cwd, "--session-id", sessionId];
  for (const rule of task.allowedTools ?? []) args.push("--allowedTools", rule);
  if (task.permissionMode) args.push("--permission-mode", task.permissionMode);
  if (task.model) args.push("--model", task.model);
  if (task.maxTurns !== undefined) args.push("--max-turns", String(task.maxTurns));
  if (task.settings) args.push("--settings", JSON.stringify(task.settings));
  if (task.trust === true) args.push("--trust");
  args.push("--", task.prompt);
  return args;
}

const RATE_LIMITED = /\b429\b|rate[_ ]limit/i;

/** The wait the provider asked for, when the session's output says it; else `fallbackMs`. */
function retryAfterMs(text: string, fallbackMs: number): number {
  const match = /retry[- ]after[^0-9]{0,4}(\d+(?:\.\d+)?)/i.exec(text);
  return match ? Math.ceil(Number(match[1]) * 1000) : fallbackMs;
}

export async function runTask(options: RunTaskOptions): Promise<TaskResult> {
  const { task, attempt } = options;
  const sessionId = crypto.randomUUID();
  let cwd: string;
  if (task.repo !== undefined) {
    cwd = path.join(options.workDir, options.jobId);
    await checkout(task.repo, task.ref!, cwd);
  } else {
    cwd = path.resolve(task.cwd!);
    if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`cwd ${cwd} is not a directory on this worker`);
  }

  const child = spawn(options.command.executable, [...options.command.args, ...cliArguments(task, cwd, sessionId)], {
    cwd,
    env: { ...options.env, [LIFELINE_ENV]: "3" },
    // fd 3 is the lifeline: the session stops when this worker dies
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    detached: true,
  });
  if (child.pid !== undefined) options.onStart?.(child.pid);
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const spawnFailed = new Promise<never>((_, reject) => child.once("error", reject));
  const stop = () => child.kill("SIGTERM");
  options.signal.addEventListener("abort", stop, { once: true });

  const progress: TaskProgress = { attempt, sessionId, turns: 0, toolCalls: 0 };
  const changes: unknown[] = [];
  let result: Record<string, any> | undefined;
  let lastMessageId: string | undefined;
  let stderrTail = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    stderrTail = (stderrTail + text).slice(-4_000);
    options.log(text);
  });
  const lines = readline.createInterface({ input: child.stdout! });
  lines.on("line", (line) => {
    let event: Record<string, any>;
    try {
      event = JSON.parse(line);
    } catch {
      return;
    }
    if (event.type === "assistant") {
      // each content block is a line of its own; the lines of one model turn share the message id
      if (event.message?.id !== lastMessageId) {
        lastMessageId = event.message?.id;
        progress.turns++;
      }
      const blocks: Array<Record<string, any>> = event.message?.content ?? [];
      for (const block of blocks) {
        if (block.type === "tool_use") {
          progress.toolCalls++;
          progress.lastTool = block.name;
        }
      }
      options.onProgress({ ...progress });
    } else if (event.type === "change_summary") {
      const { type: _type, uuid: _uuid, session_id: _session, ...summary } = event;
      changes.push(summary);
    } else if (event.type === "result") {
      result = event;
    }
  });

  let exitCode: number | null;
  try {
    exitCode = await Promise.race([exited, spawnFailed]);
  } finally {
    options.signal.removeEventListener("abort", stop);
  }
  if (options.signal.aborted) throw new Error("the task was stopped");
  if (!result) throw new Error(`the session ended (exit ${exitCode}) without a result${stderrTail.trim() ? `: ${stderrTail.trim().split("\n").slice(-3).join(" ")}` : ""}`);

  const text = typeof result.result === "string" ? result.result : "";
  if (result.is_error && RATE_LIMITED.test(`${text} ${JSON.stringify(result.errors ?? [])}`)) {
    throw new ProviderRateLimited(retryAfterMs(`${text} ${stderrTail}`, options.rateLimitWaitMs), text);
  }
  const home = getToolgateHome(options.env);
  const transcript = transcriptPath(home, cwd, sessionId);
  return {
    subtype: String(result.subtype),
    isError: result.is_error === true,
    text,
    numTurns: Number(result.num_turns ?? progress.turns),
    durationMs: Number(result.duration_ms ?? 0),
    usage: result.usage ?? null,
    modelUsage: result.modelUsage ?? null,
    costUsd: Number(result.total_cost_usd ?? 0),
    permissionDenials: result.permission_denials ?? [],
    errors: result.errors ?? [],
    sessionId,
    transcriptPath: fs.existsSync(transcript) ? transcript : null,
    cwd,
    changes,
    exitCode,
    attempt,
    worker: options.worker,
  };
}
