/** The X11 programs the computer tool drives: xdotool for input, ImageMagick's import for screenshots. */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { modelSize, type Size } from "./scaling.js";

export interface ComputerDisplay {
  /** The X display, e.g. ":99". */
  display: string;
  /** The screen in real pixels. */
  screen: Size;
  /** The screen as the model sees it (screenshots and coordinates). */
  model: Size;
  /** toolgate started this display itself (Xvfb) and stops it on close. */
  virtual: boolean;
  /** The Xvfb process of a virtual display. */
  pid?: number;
  close(): Promise<void>;
}

/** Runs an X program on `display`; resolves with its stdout, rejects with its stderr. */
export function runX(display: string, command: string, args: readonly string[], signal?: AbortSignal, timeoutMs = 15_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { env: { ...process.env, DISPLAY: display }, encoding: "buffer", maxBuffer: 256 * 1024 * 1024, timeout: timeoutMs, ...(signal ? { signal } : {}) },
      (err, stdout, stderr) => {
        if (err) {
          const text = stderr.toString().trim();
          reject(new Error(`${command} failed${text ? `: ${text}` : `: ${err.message}`}`));
        } else resolve(stdout);
      },
    );
  });
}

/** The screen size of `display`, or undefined when no X server answers there. */
export async function probeDisplay(display: string): Promise<Size | undefined> {
  try {
    const out = (await runX(display, "xdotool", ["getdisplaygeometry"], undefined, 5_000)).toString().trim();
    const match = /^(\d+)\s+(\d+)$/.exec(out);
    return match ? { width: Number(match[1]), height: Number(match[2]) } : undefined;
  } catch {
    return undefined;
  }
}

/** The person's own display (DISPLAY): used as it is, never closed by toolgate. */
export async function openExistingDisplay(display: string): Promise<ComputerDisplay | undefined> {
  const screen = await probeDisplay(display);
  if (!screen) return undefined;
  return { display, screen, model: modelSize(screen), virtual: false, close: async () => {} };
}

const XVFB_START_TIMEOUT_MS = 15_000;

export interface VirtualDisplayOptions {
  width?: number;
  height?: number;
  /** A shell command to start in the display (e.g. "xterm"); stopped with it. */
  app?: string;
}

function stopProcess(child: ChildProcess, group: boolean): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => kill("SIGKILL"), 3_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    function kill(sig: NodeJS.Signals) {
      try {
        if (group && child.pid) process.kill(-child.pid, sig);
        else child.kill(sig);
      } catch {
        // already gone
      }
    }
    kill("SIGTERM");
  });
}

/** Starts `command` (a shell command line) in `display`; it is stopped when the display is closed. */
export function startApp(display: string, command: string, owner: ComputerDisplay): void {
  const app = spawn("sh", ["-c", command], { env: { ...process.env, DISPLAY: display }, stdio: "ignore", detached: true });
  app.on("error", () => {});
  const close = owner.close;
  owner.close = async () => {
    await stopProcess(app, true);
    await close();
  };
}

/**
 * A virtual display (Xvfb) toolgate owns: Xvfb picks a free display number and writes it to a pipe once it
 * accepts clients, so nothing waits on a guess. -noreset: without it the server resets (the pointer back in the
 * middle) each time its last client leaves, and every xdotool call is a client of its own.
 */
export async function startVirtualDisplay(options: VirtualDisplayOptions = {}): Promise<ComputerDisplay> {
  const width = options.width ?? 1280;
  const height = options.height ?? 800;
  const xvfb = spawn("Xvfb", ["-displayfd", "3", "-screen", "0", `${width}x${height}x24`, "-nolisten", "tcp", "-noreset"], { stdio: ["ignore", "ignore", "pipe", "pipe"] });
  let stderr = "";
  xvfb.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const number = await new Promise<string>((resolve, reject) => {
    let text = "";
    const fd = xvfb.stdio[3] as NodeJS.ReadableStream;
    fd.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve(text.trim());
    });
    xvfb.once("error", (err) => reject(new Error(`Xvfb could not start: ${err.message} (install the xvfb package)`)));
    xvfb.once("exit", (code) => reject(new Error(`Xvfb exited (${code}) before its display was ready: ${stderr.trim().split("\n").slice(-3).join(" ")}`)));
    setTimeout(() => reject(new Error(`Xvfb did not report a ready display within ${XVFB_START_TIMEOUT_MS / 1000} s`)), XVFB_START_TIMEOUT_MS).unref();
  }).catch(async (err: Error) => {
    await stopProcess(xvfb, false);
    throw err;
  });
  const display = `:${number}`;
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= stopProcess(xvfb, false));
  const screen = await probeDisplay(display);
  if (!screen) {
    await close();
    throw new Error(`xdotool did not answer on the virtual display ${display} (install xdotool)`);
  }
  const result: ComputerDisplay = { display, screen, model: modelSize(screen), virtual: true, pid: xvfb.pid, close };
  if (options.app) startApp(display, options.app, result);
  return result;
}
