export const REPL_TOOL_NAME = "REPL";
export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
/** How long code gets to stop after KeyboardInterrupt before the process is killed. */
export const INTERRUPT_GRACE_MS = 2_000;
/** A value's repr longer than this is cut (the whole of it rarely helps, and it can be huge). */
export const MAX_VALUE_CHARS = 10_000;

export function replDescription(): string {
  return "Run Python code in a persistent Python 3 process and return its stdout, stderr and the value of the last expression.";
}

export function replPrompt(): string {
  return `Runs Python 3 code in one long-lived interpreter per session. Variables, imports, functions and classes defined in one call are there in the next, so build on earlier results instead of recomputing them.

What you get back:
- What the code printed to stdout and to stderr, each labelled, in full when short. Output longer than 30000 characters is shortened to its beginning and end and saved whole to a file whose path is given.
- The repr() of the last statement when it is an expression (as in an interactive prompt); it is also kept in \`_\`.
- An uncaught exception is reported as an error with its traceback; the interpreter and its state survive it.

Limits:
- Calls time out after ${DEFAULT_TIMEOUT_MS / 1000} s unless you pass \`timeout\` in milliseconds (at most ${MAX_TIMEOUT_MS / 1000} s). On timeout or interrupt the code gets KeyboardInterrupt; if it stops, state is kept. If it does not stop within ${INTERRUPT_GRACE_MS / 1000} s the interpreter is killed and the next call starts a fresh one, with every earlier definition gone: the result says so.
- No stdin: input() fails at once. exit() does not end the interpreter.
- It runs in a sandbox with the same permissions as Bash: writes outside the project's working directories fail, and network access is limited to the allowed hosts.
- In the sandbox the interpreter is paused between calls: threads and processes it started run only while a call runs. Start servers and long jobs with Bash (run_in_background) instead.
- Prefer Read, Grep, Glob and Edit for files; use the REPL for computation, data exploration and quick experiments.`;
}
