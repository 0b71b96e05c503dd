/**
 * The real CLI in a real terminal: tmux on a private socket, 80×24 unless asked, keys sent one at a time, the screen read
 * with capture-pane and polled until the expected text shows (no timing thresholds).
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cliArgs, cliEnv } from "../cliCommand.js";

export { builtIsFresh, cliArgs, repoRoot } from "../cliCommand.js";

export const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

/** A fresh project folder (real path) with its own toolgate home inside, `.home`. */
export function tuiProject(prefix: string): { dir: string; home: string } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const home = path.join(dir, ".home");
  fs.mkdirSync(home);
  return { dir, home };
}

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Terminal {
  private readonly socket = `toolgate-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  readonly exitFile: string;

  constructor(
    readonly cwd: string,
    env: Record<string, string>,
    args: string[],
    options: { columns?: number; rows?: number; stderrFile?: string } = {},
  ) {
    const size = { columns: options.columns ?? 80, rows: options.rows ?? 24 };
    const stderr = options.stderrFile ? ` 2> ${quote(options.stderrFile)}` : "";
    this.exitFile = path.join(cwd, ".tmux-exit-code");
    const envPart = Object.entries({ ...cliEnv, ...env })
      .map(([k, v]) => `${k}=${quote(v)}`)
      .join(" ");
    // The pane outlives the CLI (sleep) so its last screen can still be read after it exits.
    const command = `cd ${quote(cwd)} && env ${envPart} ${quote(process.execPath)} ${[...cliArgs, ...args].map(quote).join(" ")}${stderr}; echo $? > ${quote(this.exitFile)}; sleep 600`;
    this.tmux(["new-session", "-d", "-s", "t", "-x", String(size.columns), "-y", String(size.rows), command]);
    this.tmux(["set-option", "-t", "t", "history-limit", "5000"]);
  }

  private tmux(args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
  }

  /** The visible screen. */
  screen(): string {
    return this.tmux(["capture-pane", "-p", "-t", "t"]);
  }

  /** The visible screen with its escape sequences (colours, attributes). */
  rawScreen(): string {
    return this.tmux(["capture-pane", "-e", "-p", "-t", "t"]);
  }

  /** The scrollback and the screen. */
  all(): string {
    return this.tmux(["capture-pane", "-p", "-S", "-5000", "-t", "t"]);
  }

  /**
   * The scrollback and the screen with the lines the terminal wrapped joined again (`-J`): where the UI laid a
   * line out within the width itself, this is the same as `all()`.
   */
  allJoined(): string {
    return this.tmux(["capture-pane", "-p", "-J", "-S", "-5000", "-t", "t"]);
  }

  /** The terminal device the CLI runs on (for `stty -F`). */
  tty(): string {
    return this.tmux(["display-message", "-p", "-t", "t", "#{pane_tty}"]).trim();
  }

  /** Resizes the terminal, as dragging its window does (the CLI gets SIGWINCH). */
  resize(columns: number, rows: number): void {
    this.tmux(["resize-window", "-t", "t", "-x", String(columns), "-y", String(rows)]);
  }

  /** One key (a tmux key name like Enter, Escape, C-o, BTab, or one character). */
  async key(name: string): Promise<void> {
    this.tmux(["send-keys", "-t", "t", name]);
    await sleep(150);
  }

  /** Types text one character per send-keys (characters sent before Ink reads them would be lost). */
  async type(text: string): Promise<void> {
    for (const ch of text) await this.key(ch === " " ? "Space" : ch === ";" ? "\\;" : ch);
  }

  /** Sends `text` as one write to the terminal, as a fast typist, a paste or a script does (`\r` is Enter). */
  async write(text: string): Promise<void> {
    this.tmux(["send-keys", "-t", "t", "-l", text]);
  }

  /** Polls until `what` is on the screen (or in the scrollback with `all`); throws with the screen after `timeoutMs`. */
  async waitFor(what: string | RegExp, options: { timeoutMs?: number; all?: boolean } = {}): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    for (;;) {
      const text = options.all ? this.all() : this.screen();
      if (typeof what === "string" ? text.includes(what) : what.test(text)) return text;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(what)}; the screen:\n${text}`);
      await sleep(100);
    }
  }

  close(): void {
    try {
      this.tmux(["kill-server"]);
    } catch {
      // already gone
    }
  }
}
