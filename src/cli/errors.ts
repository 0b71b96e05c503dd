/**
 * A mistake in what the user typed or configured (a missing directory, a malformed rule, a busy port):
 * the CLI prints its message as one line `toolgate: …` and exits with 2, never with a stack trace.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Exit code for usage errors and for settings that make toolgate refuse to run. */
export const EXIT_USAGE = 2;

/** 128 + SIGPIPE, what a shell reports for a writer whose reader went away. */
export const EXIT_BROKEN_PIPE = 141;

/** Whether the user asked for stack traces (`--verbose` or TOOLGATE_DEBUG=1). */
export function wantsStackTraces(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  return argv.includes("--verbose") || (env.TOOLGATE_DEBUG !== undefined && env.TOOLGATE_DEBUG !== "" && env.TOOLGATE_DEBUG !== "0");
}

/**
 * The last resort of the CLI: one line for anything thrown, the stack only on request. Usage errors exit
 * with 2, a closed stdout with 141 and no message; anything else is toolgate's own fault and exits with 1.
 */
export function reportFailure(err: unknown, showStack: boolean, write: (text: string) => void): number {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof UsageError) {
    write(`toolgate: ${message}\n`);
    return EXIT_USAGE;
  }
  // The reader went away (`toolgate tools | head -1`): stop quietly with the status of a process killed by SIGPIPE.
  if ((err as NodeJS.ErrnoException | undefined)?.code === "EPIPE") return EXIT_BROKEN_PIPE;
  const hint = showStack ? "" : " (run with TOOLGATE_DEBUG=1 for the stack trace)";
  write(`toolgate: internal error: ${message.split("\n")[0]}${hint}\n`);
  if (showStack && err instanceof Error && err.stack) write(`${err.stack}\n`);
  return 1;
}
