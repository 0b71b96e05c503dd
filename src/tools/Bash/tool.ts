import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import { loadBashParser } from "../../shell/parser.js";
import type { BashProgress } from "./shell.js";
import { BASH_TOOL_NAME, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, bashDescription, bashPrompt } from "./prompt.js";
import { timeoutInput } from "./timeoutInput.js";

const inputSchema = () =>
  z.strictObject({
    command: z.string().describe("The command line to run in bash"),
    timeout: timeoutInput(DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS),
    description: z.string().optional().describe("A few words saying what the command does, e.g. 'Install dependencies'"),
    run_in_background: z
      .boolean()
      .optional()
      .describe("Start the command as a background task and return at once; read it with TaskOutput, stop it with TaskStop"),
    dangerouslyDisableSandbox: z
      .boolean()
      .optional()
      .describe("Run outside the OS sandbox. Honoured only when the settings allow unsandboxed commands, and then it always asks the user"),
  });

export type BashInput = z.infer<ReturnType<typeof inputSchema>>;

export interface BashOutput {
  /** Combined stdout and stderr, shortened to head + tail when long. */
  output: string;
  exitCode: number | null;
  /** The signal that killed bash itself, if any. */
  signal: string | null;
  timedOut: boolean;
  /** The model-facing verdict: a failure the model should notice. */
  isError: boolean;
  /** The first line for the model when something went wrong: the exit code, the timeout, the signal. */
  status?: string;
  truncated: boolean;
  totalBytes: number;
  /** The whole output, when it was too long to show. */
  outputFile?: string;
  /** Things the model should know: a benign exit code, a cwd reset, stopped leftovers. */
  notes: string[];
  /** The shell's directory after the command. */
  cwd: string;
  durationMs: number;
  /** For run_in_background: the task registered in context.tasks. */
  backgroundTaskId?: string;
  /** The command ran inside the OS sandbox (for the UI's note). */
  sandboxed?: boolean;
}

export type { BashProgress };

type Implementation = typeof import("./run.js");
let implementation: Implementation | undefined;
let loading: Promise<Implementation> | undefined;

/**
 * The bash grammar and everything that judges or runs a command (run.ts), loaded once, on first need: a
 * session that only reads files never pays for them. Resolves also when the grammar failed to load (every
 * check then fails closed).
 */
export function loadBashImplementation(): Promise<Implementation> {
  return (loading ??= Promise.all([loadBashParser(), import("./run.js")]).then(([, module]) => (implementation = module)));
}

/**
 * The implementation if loaded; otherwise starts loading it and answers undefined. Input without a command
 * (e.g. `isReadOnly({})` when listing tools) throws either way: whether it is read-only depends on the input.
 */
function loaded(input: BashInput): Implementation | undefined {
  if (typeof input.command !== "string") throw new TypeError("A Bash input needs a command to be judged.");
  if (!implementation) void loadBashImplementation();
  return implementation;
}

export const BashTool = buildTool<BashInput, BashOutput, BashProgress>({
  name: BASH_TOOL_NAME,
  searchHint: "shell terminal command run execute script",
  maxResultSizeChars: 40_000,
  inputSchema,
  description: () => bashDescription(),
  prompt: () => bashPrompt(),
  userFacingName: () => BASH_TOOL_NAME,
  cancelsSiblingsOnError: true,
  describeInput: (input) => (typeof input.command === "string" ? input.command : (input.description ?? "")),
  // Until the grammar and the analysis are loaded the synchronous answers are the safe ones; the first ask starts loading.
  isReadOnly: (input) => loaded(input)?.isReadOnly(input) ?? false,
  // Read-only commands take no snapshot; the answer is asked after validateInput loaded the analysis.
  writesAnywhere: (input) => !(loaded(input)?.isReadOnly(input) ?? false),
  isConcurrencySafe: (input) => !input.run_in_background && (loaded(input)?.isConcurrencySafe(input) ?? false),
  // Only what the read-only classifier accepts, in the foreground and the sandbox; its cwd change goes through the call's context.
  isSpeculationSafe: (input) =>
    !input.run_in_background && !input.dangerouslyDisableSandbox && Boolean(loaded(input)?.isReadOnly(input)) && Boolean(loaded(input)?.isConcurrencySafe(input)),
  // The description is for people: two calls differing only there run the same command.
  inputsEquivalent: (a, b) =>
    a.command === b.command && a.timeout === b.timeout && Boolean(a.run_in_background) === Boolean(b.run_in_background) && Boolean(a.dangerouslyDisableSandbox) === Boolean(b.dangerouslyDisableSandbox),
  interruptBehavior: () => "cancel",
  toAutoClassifierInput: (input) => input.command,
  isResultTruncated: (output) => output.truncated,
  async validateInput(input) {
    if (!input.command.trim()) return { result: false, message: "The command is empty.", errorCode: 1 };
    // from here on (hooks, the permission step's read-only check) every question about the command gets the AST
    await loadBashImplementation();
    return { result: true };
  },
  ruleFamily: "command",
  async checkPermissions(input, context) {
    return (await loadBashImplementation()).checkPermissions(input, context);
  },

  async call(input, context, _canUseTool, _message, onProgress) {
    return (await loadBashImplementation()).call(input, context, onProgress);
  },

  mapToolResultToToolResultBlockParam(output, toolUseID) {
    if (output.backgroundTaskId) {
      const lines = [
        `Command started in the background with task id ${output.backgroundTaskId}.`,
        `Its output is being written to ${output.outputFile}.`,
        `Use TaskOutput with task_id "${output.backgroundTaskId}" to read it (block: false to check without waiting) and TaskStop to stop it.`,
        ...output.notes,
      ];
      return { type: "tool_result", tool_use_id: toolUseID, content: lines.join("\n") };
    }
    const text = output.output.replace(/\s+$/, "");
    const lines = [...(output.status ? [output.status] : []), ...(text ? [text] : []), ...output.notes];
    return { type: "tool_result", tool_use_id: toolUseID, content: lines.join("\n"), ...(output.isError ? { is_error: true } : {}) };
  },
});
