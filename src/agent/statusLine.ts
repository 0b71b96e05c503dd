/**
 * The `statusLine` setting, as Claude Code has it: `{"type": "command", "command": "…", "padding": 0}`. The
 * command gets the session as JSON on stdin and the first line it prints is shown under the prompt. It is the
 * person's own program: it runs with a time limit, without toolgate's credentials, and whatever goes wrong
 * (a crash, a hang, junk output) is reported as a value, never thrown.
 */
import { spawn } from "node:child_process";
import { z } from "zod";

export const statusLineSettingsSection = {
  key: "statusLine",
  schema: z.looseObject({ type: z.literal("command"), command: z.string().min(1), padding: z.number().int().min(0).max(20).optional() }),
};

export interface StatusLineSetting {
  command: string;
  padding: number;
}

export function readStatusLineSetting(settings: Readonly<Record<string, unknown>>): StatusLineSetting | undefined {
  const parsed = statusLineSettingsSection.schema.safeParse(settings.statusLine);
  return parsed.success ? { command: parsed.data.command, padding: parsed.data.padding ?? 0 } : undefined;
}

/** What the command reads on stdin (the fields Claude Code documents, plus toolgate's permission mode). */
export interface StatusLineInput {
  hook_event_name: "Status";
  session_id: string;
  transcript_path: string;
  cwd: string;
  model: { id: string; display_name: string };
  workspace: { current_dir: string; project_dir: string };
  version: string;
  output_style: { name: string };
  permission_mode: string;
  cost?: { total_cost_usd: number; total_duration_ms: number };
}

export const STATUS_LINE_TIMEOUT_MS = 5_000;
/** Output read from the command, at most (the rest is dropped). */
const MAX_OUTPUT_BYTES = 16 * 1024;
/** The line shown, at most (a terminal row is shorter anyway). */
const MAX_LINE_CHARS = 500;

export type StatusLineOutcome = { ok: true; line: string } | { ok: false; error: string };

export interface RunStatusLineOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Runs the command once with `input` on stdin; resolves with its first line of output, or why there is none. */
export function runStatusLineCommand(command: string, input: StatusLineInput, options: RunStatusLineOptions): Promise<StatusLineOutcome> {
  const timeoutMs = options.timeoutMs ?? STATUS_LINE_TIMEOUT_MS;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: StatusLineOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    let child: ReturnType<typeof spawn>;
    try {
      // its own process group, so a timeout ends what it started too
      child = spawn("/bin/sh", ["-c", command], { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "ignore"], detached: true });
    } catch (err) {
      resolve({ ok: false, error: (err as Error).message });
      return;
    }
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const timer = setTimeout(() => {
      kill();
      finish({ ok: false, error: `timed out after ${timeoutMs} ms` });
    }, timeoutMs);
    const onAbort = () => {
      kill();
      finish({ ok: false, error: "cancelled" });
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    let out = Buffer.alloc(0);
    child.stdout!.on("data", (chunk: Buffer) => {
      if (out.length < MAX_OUTPUT_BYTES) out = Buffer.concat([out, chunk]).subarray(0, MAX_OUTPUT_BYTES);
    });
    child.on("error", (err) => finish({ ok: false, error: err.message }));
    child.on("close", (code, signal) => {
      if (code !== 0) return finish({ ok: false, error: signal ? `ended by ${signal}` : `exit code ${code}` });
      const first = out.toString("utf8").split(/\r?\n/).find((l) => l.trim() !== "") ?? "";
      finish({ ok: true, line: first.slice(0, MAX_LINE_CHARS) });
    });
    // a command that never reads stdin closes it early: that is not its failure
    child.stdin!.on("error", () => undefined);
    child.stdin!.end(JSON.stringify(input));
  });
}
