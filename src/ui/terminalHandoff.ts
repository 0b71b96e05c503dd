/**
 * Lends the terminal to a program the person uses in it (their editor) and takes it back, without blocking the
 * event loop: MCP connections, background tasks, hooks and timers go on meanwhile. While the program runs the UI
 * reads no key (they are the program's), raw mode is off (the program sets the mode it wants), and what the UI
 * draws is held and written, in order, once the program is done, so the screen ends as if the UI had waited.
 */
import { spawn } from "node:child_process";

export type HandoffOutcome = { ok: true } | { ok: false; error: Error } | { ok: false; code: number | null; signal: NodeJS.Signals | null };

export interface HandoffTerminal {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
}

type Write = NodeJS.WriteStream["write"];

const tick = () => new Promise<void>((resolve) => process.nextTick(resolve));
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs `command` with the terminal as its stdin, stdout and stderr; the UI gets the terminal back however it ends. */
export async function runInTerminal(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }, terminal: HandoffTerminal = { stdin: process.stdin, stdout: process.stdout }): Promise<HandoffOutcome> {
  const { stdin, stdout } = terminal;
  // Ink reads keys through `readable` listeners; without them, and paused, process.stdin stops reading the terminal
  // (one tick after the listeners go, once the stream knows it is no longer listened to).
  const readers = stdin.listeners("readable") as Array<(...args: unknown[]) => void>;
  const wasRaw = Boolean(stdin.isTTY && stdin.isRaw);
  const write = stdout.write;
  const held: Parameters<Write>[] = [];
  // Ctrl-C in a program that leaves the terminal cooked interrupts the program, not the session (as a shell's job).
  const ignoreInterrupt = () => undefined;
  process.on("SIGINT", ignoreInterrupt);
  try {
    for (const reader of readers) stdin.removeListener("readable", reader);
    if (wasRaw) stdin.setRawMode(false);
    await tick();
    stdin.pause();
    await turn();
    stdout.write = ((...chunk: Parameters<Write>) => {
      held.push(chunk);
      return true;
    }) as Write;
    return await new Promise<HandoffOutcome>((resolve) => {
      const child = spawn(command, args, { stdio: "inherit", cwd: options.cwd, env: options.env });
      child.on("error", (error) => resolve({ ok: false, error }));
      child.on("close", (code, signal) => resolve(code === 0 ? { ok: true } : { ok: false, code, signal }));
    });
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err : new Error(String(err)) };
  } finally {
    process.off("SIGINT", ignoreInterrupt);
    stdout.write = write;
    for (const chunk of held) write.apply(stdout, chunk);
    if (wasRaw) stdin.setRawMode(true);
    // Ink may have attached its reader again meanwhile; a second copy would see every key twice.
    const attached = stdin.listeners("readable");
    for (const reader of readers) if (!attached.includes(reader)) stdin.addListener("readable", reader);
  }
}
