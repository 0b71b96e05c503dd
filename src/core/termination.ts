import fs from "node:fs";
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

/** Whether this process's controlling terminal can be opened (it cannot once the terminal hung up). */
function terminalOpens(): boolean {
  try {
    fs.closeSync(fs.openSync("/dev/tty", "r"));
    return true;
  } catch {
    return false;
  }
}

/**
 * When toolgate started on a terminal that is gone by the time it exits (window closed, ssh dropped; the
 * exit may come from SIGHUP, from end of input, or from a failed write), it ends by SIGHUP instead of exiting:
 * Node's exit resets the terminal's modes and aborts with an assertion on a terminal that no longer exists.
 * The shell sees 129 either way. Call once, at start-up; it costs one open of /dev/tty when a terminal is there.
 */
export function endBySignalIfTerminalGoes(): void {
  if (!(process.stdin.isTTY || process.stdout.isTTY || process.stderr.isTTY) || !terminalOpens()) return;
  process.on("exit", () => {
    if (terminalOpens()) return;
    process.removeAllListeners("SIGHUP");
    process.kill(process.pid, "SIGHUP");
  });
}
