/**
 * How the Bash tool judges and runs a command: the command analysis (bash grammar, read-only tables), the
 * permission check, the sandbox and the shell. Loaded with the parser on first need (see tool.ts), so a
 * session that never runs Bash never loads any of it.
 */
import { readPassEnv, withoutCredentials } from "../../util/childEnv.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { AbortError } from "../../core/errors.js";
import { createTaskId } from "../../core/tasks.js";
import type { ToolCallProgress, ToolResult, ToolUseContext } from "../../core/Tool.js";
import { isInWorkingDirectories } from "../../permissions/index.js";
import { analyzeCommand } from "../../shell/analyze.js";
import { checkBashCommandPermissionAsync, isReadOnlyCommand } from "./permissions/decide.js";
import { startShell, type BashProgress, type ShellProcess, type ShellResult } from "./shell.js";
import { startSandboxedShell, type SandboxedShellResult } from "./sandboxedShell.js";
import { interpretExitCode } from "./exitCodes.js";
import { BashBackgroundTask } from "./backgroundTask.js";
import { prepareBashLaunch, sandboxVerdict, type BashLaunch } from "./sandbox.js";
import { DEFAULT_TIMEOUT_MS } from "./prompt.js";
import type { BashInput, BashOutput } from "./tool.js";

function projectCwd(context: ToolUseContext): string {
  return context.getAppState().toolPermissionContext.cwd;
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The directory to start in: the session's shell cwd, or the project root (with a note) if it vanished. */
function startCwd(context: ToolUseContext, notes: string[]): string {
  const cwd = context.getCwd();
  if (isDirectory(cwd)) return cwd;
  const root = projectCwd(context);
  notes.push(`The shell's directory ${cwd} no longer exists, so the command ran in ${root}.`);
  context.setCwd(root);
  return root;
}

function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}

function outputPath(context: ToolUseContext, folder: string, id: string): string {
  return path.join(context.paths.sessionDir, folder, `${id.replace(/[^A-Za-z0-9_-]/g, "_")}.log`);
}

async function runInBackground(input: BashInput, context: ToolUseContext, notes: string[], cwd: string): Promise<BashOutput> {
  const id = createTaskId("b");
  const launch = await prepareBashLaunch(input, context, { captureCwd: false, commandId: `${context.sessionId}:${id}`, cwd });
  if (launch.kind === "refused") return refusedOutput(launch.message, notes, cwd);
  notes.push(...launch.notes);
  const common = {
    command: input.command,
    cwd,
    env: withoutCredentials(context.env, readPassEnv(context.options.settings)),
    outputFile: outputPath(context, "tasks", id),
    eagerFile: true,
    captureCwd: false,
  };
  let shell: ShellProcess;
  // a sandbox that cannot start fails the task, which TaskOutput reports
  if (launch.kind === "persistent") shell = startSandboxedShell({ ...common, untilGroupEnds: true, start: launch.start });
  else shell = startShell({ ...common, ...(launch.kind === "sandboxed" ? { launch: launch.launch } : {}) });
  if (launch.kind === "sandboxed") void shell.done.finally(() => launch.finish("", cwd)).catch(() => undefined);
  // The snapshot around this call ends when the call returns, while the command goes on.
  notes.push("Files this background command changes from now on are not checkpointed: rewind cannot undo them.");
  const task = new BashBackgroundTask(id, input.command, input.description ?? input.command, shell);
  context.tasks.add(task);
  return {
    output: "",
    exitCode: null,
    signal: null,
    timedOut: false,
    isError: false,
    truncated: false,
    totalBytes: 0,
    outputFile: task.outputFile,
    notes,
    cwd,
    durationMs: 0,
    backgroundTaskId: id,
    ...(launch.kind === "sandboxed" ? { sandboxed: true } : {}),
  };
}

/** The sandbox the command needs cannot run: the call fails with the reason and the fix. */
function refusedOutput(message: string, notes: string[], cwd: string): BashOutput {
  return {
    output: "",
    exitCode: null,
    signal: null,
    timedOut: false,
    isError: true,
    status: message,
    truncated: false,
    totalBytes: 0,
    notes,
    cwd,
    durationMs: 0,
  };
}

export function isReadOnly(input: BashInput): boolean {
  return isReadOnlyCommand(analyzeCommand(input.command));
}

export function isConcurrencySafe(input: BashInput): boolean {
  const analysis = analyzeCommand(input.command);
  return isReadOnlyCommand(analysis) && !analysis.parts.some((p) => p.changesDirectory);
}

export async function checkPermissions(input: BashInput, context: ToolUseContext) {
  const result = await checkBashCommandPermissionAsync({
    command: input.command,
    permissionContext: context.getAppState().toolPermissionContext,
    cwd: context.getCwd(),
    home: context.env.HOME || os.homedir(),
  });
  return sandboxVerdict(result, input, context.sandbox);
}

export async function call(input: BashInput, context: ToolUseContext, onProgress?: ToolCallProgress<BashProgress>): Promise<ToolResult<BashOutput>> {
  const notes: string[] = [];
  const cwd = startCwd(context, notes);
  if (input.run_in_background) return { data: await runInBackground(input, context, notes, cwd) };

  const timeoutMs = input.timeout ?? DEFAULT_TIMEOUT_MS;
  const signal = context.abortController.signal;
  if (signal.aborted) throw new AbortError();
  const runId = context.toolUseID ?? createTaskId("run-");
  const launch: BashLaunch = await prepareBashLaunch(input, context, { captureCwd: true, commandId: `${context.sessionId}:${runId}`, cwd });
  if (launch.kind === "refused") return { data: refusedOutput(launch.message, notes, cwd) };
  notes.push(...launch.notes);
  const options = {
    command: input.command,
    cwd,
    env: withoutCredentials(context.env, readPassEnv(context.options.settings)),
    outputFile: outputPath(context, "bash", runId),
    eagerFile: false,
    captureCwd: true,
    timeoutMs,
    signal,
    onProgress: onProgress && ((data: BashProgress) => onProgress({ toolUseID: context.toolUseID ?? "", data })),
  };
  const shell =
    launch.kind === "persistent"
      ? startSandboxedShell({ ...options, start: launch.start, ...(launch.cwdFile ? { cwdFile: launch.cwdFile } : {}) })
      : startShell({ ...options, ...(launch.kind === "sandboxed" ? { launch: launch.launch } : {}) });
  const result: ShellResult & Partial<SandboxedShellResult> = await shell.done.catch((err: unknown) => {
    if (launch.kind === "sandboxed") launch.finish("", cwd);
    throw err;
  });
  const snapshot = shell.output.snapshot();
  await shell.output.finish(snapshot.truncated);
  const sandboxNotes =
    launch.kind === "sandboxed" ? launch.finish(snapshot.text, cwd) : launch.kind === "persistent" ? launch.finish(result.violations ?? [], snapshot.text, cwd) : [];
  if (result.interrupted) throw new AbortError();

  // the directory carries over, unless it left the working directories
  let finalCwd = cwd;
  if (result.finalCwd && result.finalCwd !== cwd) {
    const permissionContext = context.getAppState().toolPermissionContext;
    if (isDirectory(result.finalCwd) && isInWorkingDirectories(result.finalCwd, permissionContext)) {
      finalCwd = result.finalCwd;
    } else {
      finalCwd = projectCwd(context);
      notes.push(`The shell's directory was reset to ${finalCwd}: the command moved to ${result.finalCwd}, which is outside the working directories.`);
    }
    context.setCwd(finalCwd);
  }
  notes.push(...sandboxNotes);
  if (result.leftoversStopped) {
    notes.push("Processes the command left running in the background were stopped. Use run_in_background for long-running commands.");
  }
  if (result.leftover) {
    // what it left running stays in the sandbox as a background task, stoppable and readable like one
    const id = createTaskId("b");
    const adopted = result.leftover(outputPath(context, "tasks", id));
    context.tasks.add(new BashBackgroundTask(id, input.command, `left running by: ${input.description ?? input.command}`, adopted));
    notes.push(
      `The command left processes running in the background; they keep running as background task ${id} (output file ${adopted.output.filePath}). Read their output with TaskOutput and stop them with TaskStop (task_id ${id}).`,
    );
  }

  let isError = true;
  let status: string | undefined;
  // A timeout starts with the exit-code line as any failed command does: what bash reports for a SIGTERM'd command.
  if (result.timedOut) status = `Exit code ${result.exitCode ?? 143}\nCommand timed out after ${formatDuration(timeoutMs)}; it and every process it started were stopped.`;
  else if (result.signal) status = `Command was killed by ${result.signal}.`;
  else {
    const meaning = interpretExitCode(input.command, result.exitCode ?? 0);
    isError = meaning.isError;
    if (isError) status = `Exit code ${result.exitCode}`;
    if (meaning.note) notes.push(meaning.note);
  }
  return {
    data: {
      output: snapshot.text,
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      isError,
      ...(status ? { status } : {}),
      truncated: snapshot.truncated,
      totalBytes: snapshot.totalBytes,
      outputFile: snapshot.outputFile,
      notes,
      cwd: finalCwd,
      durationMs: result.durationMs,
      ...(launch.kind !== "unsandboxed" ? { sandboxed: true } : {}),
    },
  };
}
