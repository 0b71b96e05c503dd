export const BASH_TOOL_NAME = "Bash";
export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;

export function bashDescription(): string {
  return "Run a bash command in the session's shell and return its combined output.";
}

export function bashPrompt(): string {
  return `Runs a command line in bash and returns what it printed (stdout and stderr together, in order).

How the shell behaves:
- The working directory carries over between calls: after \`cd src\`, the next command starts in src. If a command ends outside the project's working directories, the directory is put back to the project root and the result says so. Nothing else carries over (variables, functions, aliases): each call is a fresh bash.
- Nothing is interactive: stdin is empty, pagers print straight through (PAGER=cat, GIT_PAGER=cat) and editors exit at once (GIT_EDITOR=true). Pass flags that avoid prompts (\`-y\`, \`--no-edit\`, \`--yes\`).
- Commands time out after ${DEFAULT_TIMEOUT_MS / 1000} s unless you pass \`timeout\` in milliseconds (at most ${MAX_TIMEOUT_MS / 1000} s). On timeout, or when the user interrupts, the command and every process it started are stopped.
- Processes a command leaves running in the background (with \`&\`) are stopped when it finishes. For servers, watchers and other long jobs use \`run_in_background: true\`: you get a task id and an output file at once; read the output with TaskOutput and stop the job with TaskStop.
- A non-zero exit status is reported as an error with its code, except exit 1 from grep, rg, find, diff, cmp and test, which is an ordinary answer (no match, files differ, false).
- Output longer than 30000 characters is shortened to its beginning and end; the full output is saved to a file whose path is given, which you can read or search.

Writing good commands:
- Quote paths that contain spaces: \`cd "my dir"\`.
- Prefer the dedicated tools for files: Read instead of cat/head/tail, Grep instead of grep/rg, Glob instead of find/ls, Edit and Write instead of sed or echo redirection.
- Chain dependent steps with \`&&\`; use \`;\` only when a step may fail without consequence. Independent read-only commands can be sent as separate Bash calls in one message: they run in parallel.
- Give \`description\` a few words saying what the command does, e.g. "Run the unit tests".

Permissions: every part of a command line is checked on its own — each command of a list or pipeline, each \`$(…)\` and \`bash -c\` script, each file a redirection writes. Read-only commands (ls, cat, grep, git status, git diff, …) on files inside the working directories run without asking; everything else needs a rule or the user's approval. eval, source and commands too complex to check always need approval.`;
}
