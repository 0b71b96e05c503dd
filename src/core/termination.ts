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
