import os from "node:os";

/**
 * Signals that end toolgate with a cleanup first. SIGHUP (terminal closed, ssh dropped) counts as SIGTERM:
 * Node's default for both exits at once, and the tools' detached process trees would outlive it.
 */
export const TERMINATION_SIGNALS: readonly NodeJS.Signals[] = ["SIGTERM", "SIGHUP"];

/** The shell's convention for a process ended by `signal`: 128 + its number. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (os.constants.signals[signal] ?? os.constants.signals.SIGTERM);
}

/** Calls `handler` on the first of `signals`; returns a function that removes the handlers. */
export function onSignals(signals: readonly NodeJS.Signals[], handler: (signal: NodeJS.Signals) => void): () => void {
  let fired = false;
  const listeners = signals.map((signal) => {
    const listener = () => {
      if (fired) return;
      fired = true;
      handler(signal);
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
}

/**
 * Ends the process for `signal` once its cleanup is done: exit code 128 + the signal's number. Except for
 * SIGHUP in a process that has a terminal (the terminal is gone): Node's exit path resets the terminal's modes
 * and aborts on one that no longer exists, so the process ends by the signal itself (the shell sees the same
 * 129).
 */
export function exitForSignal(signal: NodeJS.Signals): void {
  const hasTerminal = process.stdin.isTTY || process.stdout.isTTY || process.stderr.isTTY;
  if (signal === "SIGHUP" && hasTerminal) {
    process.removeAllListeners("SIGHUP");
    process.kill(process.pid, "SIGHUP");
    // Only if SIGHUP was ignored when toolgate started (nohup): it did not end the process.
    setTimeout(() => process.exit(signalExitCode(signal)), 500);
    return;
  }
  process.exit(signalExitCode(signal));
}
