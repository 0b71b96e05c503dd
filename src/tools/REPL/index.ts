import path from "node:path";
import { z } from "zod";
import { AbortError } from "../../core/errors.js";
import { buildTool } from "../../core/buildTool.js";
import type { PermissionResult } from "../../core/permissionTypes.js";
import { createTaskId } from "../../core/tasks.js";
import { OutputCollector } from "../Bash/output.js";
import { timeoutInput } from "../Bash/timeoutInput.js";
import { NO_PYTHON_MESSAGE, STATE_LOST } from "./host.js";
import { DEFAULT_TIMEOUT_MS, INTERRUPT_GRACE_MS, MAX_TIMEOUT_MS, MAX_VALUE_CHARS, REPL_TOOL_NAME, replDescription, replPrompt } from "./prompt.js";

export { createReplHost, findPython3, NO_PYTHON_MESSAGE, type ReplHost } from "./host.js";
export { REPL_TOOL_NAME } from "./prompt.js";

const inputSchema = () =>
  z.strictObject({
    code: z.string().describe("Python 3 source to run; the value of a final expression is returned"),
    timeout: timeoutInput(DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS),
  });

export type ReplInput = z.infer<ReturnType<typeof inputSchema>>;

export interface ReplOutput {
  stdout: string;
  stderr: string;
  /** repr() of the last expression, when there was one and it was not None. */
  value?: string;
  /** The traceback of an uncaught exception, or why the code did not run. */
  error?: string;
  isError: boolean;
  /** What the model must know: a timeout, a restart, lost state. */
  notes: string[];
  truncated: boolean;
  sandboxed: boolean;
}

function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}

const failed = (error: string, notes: string[] = []): { data: ReplOutput } => ({
  data: { stdout: "", stderr: "", error, isError: true, notes, truncated: false, sandboxed: false },
});

export const REPLTool = buildTool<ReplInput, ReplOutput>({
  name: REPL_TOOL_NAME,
  searchHint: "python interpreter repl execute code compute notebook",
  maxResultSizeChars: 40_000,
  inputSchema,
  description: () => replDescription(),
  prompt: () => replPrompt(),
  describeInput: (input) => (typeof input.code === "string" ? input.code : ""),
  interruptBehavior: () => "cancel",
  // any code may write in the write scope: the working directories are snapshotted around it, so rewind covers it
  writesAnywhere: () => true,
  toAutoClassifierInput: (input) => input.code,
  isResultTruncated: (output) => output.truncated,
  async validateInput(input) {
    if (!input.code.trim()) return { result: false, message: "The code is empty: pass the Python source to run in `code`.", errorCode: 1 };
    return { result: true };
  },

  // arbitrary code: no opinion of its own, so a `REPL` allow rule, a hook or the user decides (ask by default)
  async checkPermissions(): Promise<PermissionResult> {
    return {
      behavior: "passthrough",
      message: "REPL runs arbitrary Python code (in the sandbox, with the write access of an allowed Bash command); it runs only with your permission.",
      suggestions: [{ type: "addRules", behavior: "allow", rules: [{ toolName: REPL_TOOL_NAME }], destination: "localSettings" }],
    };
  },

  async call(input, context) {
    const host = context.repl;
    if (!host) return failed(NO_PYTHON_MESSAGE);
    const signal = context.abortController.signal;
    if (signal.aborted) throw new AbortError();
    const acquired = await host.acquire(context);
    if ("error" in acquired) return failed(acquired.error, acquired.notes);
    const { process, notes } = acquired;
    const runId = (context.toolUseID ?? createTaskId("repl-")).replace(/[^A-Za-z0-9_-]/g, "_");
    const dir = path.join(context.paths.sessionDir, "repl");
    const stdout = new OutputCollector({ filePath: path.join(dir, `${runId}.stdout.log`), eager: false });
    const stderr = new OutputCollector({ filePath: path.join(dir, `${runId}.stderr.log`), eager: false });
    const timeoutMs = input.timeout ?? DEFAULT_TIMEOUT_MS;
    const end = await process.run({ code: input.code, timeoutMs, interruptGraceMs: INTERRUPT_GRACE_MS, signal, stdout, stderr });
    const out = stdout.snapshot();
    const err = stderr.snapshot();
    await Promise.all([stdout.finish(out.truncated), stderr.finish(err.truncated)]);

    let error: string | undefined;
    let value: string | undefined;
    let isError = false;
    const lost = STATE_LOST;
    if (end.kind === "done") {
      if (end.aborted) throw new AbortError();
      if (end.value !== null) value = end.value.length > MAX_VALUE_CHARS ? `${end.value.slice(0, MAX_VALUE_CHARS)}… (repr cut at ${MAX_VALUE_CHARS} of ${end.value.length} characters)` : end.value;
      if (end.error !== null) {
        error = end.error;
        isError = true;
      }
      if (end.timedOut && end.interrupted) notes.push(`The code timed out after ${formatDuration(timeoutMs)} and was stopped with KeyboardInterrupt; the interpreter and its state are kept.`);
      else if (end.timedOut) notes.push(`The code timed out after ${formatDuration(timeoutMs)}; it finished as it was being interrupted.`);
    } else if (end.kind === "killed") {
      await host.forget(`This is a new Python process: the previous one was killed. ${lost}`);
      if (end.aborted) throw new AbortError();
      isError = true;
      error = !end.timedOut
        ? `The Python process was stopped before this code could run, and will be restarted on the next call. ${lost}`
        : `The code timed out after ${formatDuration(timeoutMs)} and did not stop on KeyboardInterrupt within ${formatDuration(INTERRUPT_GRACE_MS)}, so the Python process was killed and will be restarted on the next call. ${lost}`;
    } else {
      await host.forget(`This is a new Python process: the previous one ended. ${lost}`);
      isError = true;
      const how = end.detail ? `was stopped with its sandbox (${end.detail})` : end.signal ? `was killed by ${end.signal}` : `exited with code ${end.code}`;
      error = `The Python process ${how} while running the code; the next call starts a new one. ${lost}`;
    }
    return {
      data: {
        stdout: out.text,
        stderr: err.text,
        ...(value !== undefined ? { value } : {}),
        ...(error !== undefined ? { error } : {}),
        isError,
        notes,
        truncated: out.truncated || err.truncated,
        sandboxed: acquired.sandboxed,
      },
    };
  },

  mapToolResultToToolResultBlockParam(output, toolUseID) {
    const trim = (text: string) => text.replace(/\s+$/, "");
    const parts: string[] = [...output.notes];
    if (trim(output.stdout)) parts.push(`stdout:\n${trim(output.stdout)}`);
    if (trim(output.stderr)) parts.push(`stderr:\n${trim(output.stderr)}`);
    if (output.error) parts.push(trim(output.error));
    if (output.value !== undefined) parts.push(`value: ${output.value}`);
    if (parts.length === output.notes.length) parts.push("(no output, no value)");
    return { type: "tool_result", tool_use_id: toolUseID, content: parts.join("\n"), ...(output.isError ? { is_error: true } : {}) };
  },
});
