/**
 * Runs the `statusLine` command when what it shows may have changed (a message, the mode, the model, the output
 * style), at most once every DEBOUNCE_MS and one run at a time. A failure is shown for a few seconds in place of
 * the line, then the last good line comes back; nothing it does can stop the UI.
 */
import { useEffect, useRef, useState } from "react";
import { runStatusLineCommand, type StatusLineInput, type StatusLineSetting } from "../agent/statusLine.js";
import { terminalSafe } from "./components/format.js";

export const DEBOUNCE_MS = 300;
const ERROR_SHOWN_MS = 5_000;

// Colours are the point of many status lines; every other escape sequence is dropped as in any outside text.
const SGR = /\u001b\[[0-9;:]*m/g;

/** The command's line made safe to print: SGR colours kept (and reset at the end), everything else inert. */
export function statusLineText(line: string): string {
  const colours = line.match(SGR) ?? [];
  const parts = line.split(SGR).map((part) => terminalSafe(part, "output").replace(/\n/g, " "));
  const joined = parts.reduce((out, part, i) => out + part + (colours[i] ?? ""), "");
  return colours.length ? `${joined}\u001b[0m` : joined;
}

export interface StatusLineCommandState {
  line?: string;
  error?: string;
}

export function useStatusLineCommand(
  setting: StatusLineSetting | undefined,
  input: () => StatusLineInput,
  trigger: string,
  options: { cwd: string; env: NodeJS.ProcessEnv },
): StatusLineCommandState {
  const [state, setState] = useState<StatusLineCommandState>({});
  const busy = useRef(false);
  const again = useRef(false);
  const controller = useRef(new AbortController());
  const latestInput = useRef(input);
  latestInput.current = input;
  const errorTimer = useRef<NodeJS.Timeout | undefined>(undefined);

  useEffect(
    () => () => {
      controller.current.abort();
      clearTimeout(errorTimer.current);
    },
    [],
  );

  useEffect(() => {
    if (!setting) return;
    const run = async (): Promise<void> => {
      if (busy.current) {
        again.current = true;
        return;
      }
      busy.current = true;
      try {
        const outcome = await runStatusLineCommand(setting.command, latestInput.current(), { ...options, signal: controller.current.signal });
        if (controller.current.signal.aborted) return;
        if (outcome.ok) {
          clearTimeout(errorTimer.current);
          setState({ line: statusLineText(outcome.line) });
        } else {
          setState((s) => ({ ...s, error: `status line command failed: ${outcome.error}` }));
          clearTimeout(errorTimer.current);
          errorTimer.current = setTimeout(() => setState((s) => ({ line: s.line })), ERROR_SHOWN_MS);
        }
      } finally {
        busy.current = false;
      }
      if (again.current) {
        again.current = false;
        await run();
      }
    };
    const timer = setTimeout(() => void run(), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [setting?.command, trigger]);

  return state;
}
