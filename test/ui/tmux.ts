/**
 * The real CLI in a real terminal: tmux on a private socket, 80×24 unless asked, the screen read with capture-pane
 * and polled until the expected text shows (no timing thresholds). Each key or write waits until the CLI has read
 * it off the terminal (fixtures/keyAck.mjs reports every read), so the next one is a read of its own.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from "../../scripts/fake-model.mjs";
import { cliArgs, cliEnv, repoRoot } from "../cliCommand.js";

export { builtIsFresh, cliArgs, repoRoot } from "../cliCommand.js";

export const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

/**
 * The terminals a test file opens and the scripted model servers it starts (`serve`): push the terminals here;
 * both are closed after each of its tests.
 */
export function closedAfterEach(): { terminals: Terminal[]; serve: (script: FakeModelScript) => Promise<FakeModelServer> } {
  const servers: FakeModelServer[] = [];
  const terminals: Terminal[] = [];
  afterEach(async () => {
    for (const t of terminals.splice(0)) t.close();
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  const serve = async (script: FakeModelScript) => {
    const server = await startFakeModelServer({ script });
    servers.push(server);
    return server;
  };
  return { terminals, serve };
}

/** Polls `check` until it holds, failing after `timeoutMs` with `what` in the message. */
export async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not seen within ${timeoutMs} ms: ${what}`);
    await sleep(50);
  }
}

/** What the CLI gets in these tests: its own home (also HOME), the fake model at `modelUrl`, PATH and TERM. */
export function tuiEnv(home: string, modelUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return { TOOLGATE_HOME: home, HOME: home, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: modelUrl, PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color", ...extra };
}

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

const keyAck = path.join(repoRoot, "test/ui/fixtures/keyAck.mjs");

/** The bytes tmux sends for the key names tests use (checked against what a program in tmux reads). */
const KEY_BYTES: Readonly<Record<string, number>> = {
  Enter: 1,
  Escape: 1,
  Tab: 1,
  Space: 1,
  BSpace: 1,
  BTab: 3,
  Up: 3,
  Down: 3,
  Left: 3,
  Right: 3,
  Home: 4,
  End: 4,
  PageUp: 4,
  PageDown: 4,
  "\\;": 1,
};

function keyBytes(name: string): number {
  if (/^C-.$/.test(name)) return 1;
  const known = KEY_BYTES[name];
  if (known !== undefined) return known;
  if ([...name].length === 1) return Buffer.byteLength(name);
  throw new Error(`Terminal.key: how many bytes tmux sends for ${JSON.stringify(name)} is not known; add it to KEY_BYTES`);
}

export interface SendOptions {
  /** false: the CLI will not read it (a program it handed the terminal to gets it, or the terminal turns it into a signal). */
  read?: boolean;
  /** false: the CLI reads it, but do not wait for that (sent before the CLI reads anything). */
  wait?: boolean;
}

export class Terminal {
  private readonly socket = `toolgate-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  readonly exitFile: string;
  private readonly ackFile = path.join(os.tmpdir(), `${this.socket}.keys`);
  /** Bytes sent that the CLI is to read, and bytes it was last seen to have read. */
  private sent = 0;
  private seenRead = 0;

  constructor(
    readonly cwd: string,
    env: Record<string, string>,
    args: string[],
    options: { columns?: number; rows?: number; stderrFile?: string } = {},
  ) {
    const size = { columns: options.columns ?? 80, rows: options.rows ?? 24 };
    const stderr = options.stderrFile ? ` 2> ${quote(options.stderrFile)}` : "";
    this.exitFile = path.join(cwd, ".tmux-exit-code");
    const envPart = Object.entries({ ...cliEnv, ...env, TOOLGATE_TEST_KEY_ACK: this.ackFile })
      .map(([k, v]) => `${k}=${quote(v)}`)
      .join(" ");
    // The pane outlives the CLI (sleep) so its last screen can still be read after it exits.
    const command = `cd ${quote(cwd)} && env ${envPart} ${quote(process.execPath)} ${["--import", keyAck, ...cliArgs, ...args].map(quote).join(" ")}${stderr}; echo $? > ${quote(this.exitFile)}; sleep 600`;
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

  /** One key (a tmux key name like Enter, Escape, C-o, BTab, or one character), once the CLI has read it. */
  async key(name: string, options: SendOptions = {}): Promise<void> {
    const bytes = keyBytes(name);
    this.tmux(["send-keys", "-t", "t", name]);
    await this.sentBytes(bytes, options, `the key ${name}`);
  }

  /** Types text one character per send-keys, each read by the CLI before the next is sent. */
  async type(text: string): Promise<void> {
    for (const ch of text) await this.key(ch === " " ? "Space" : ch === ";" ? "\\;" : ch);
  }

  /** Sends `text` as one write to the terminal, as a fast typist, a paste or a script does (`\r` is Enter). */
  async write(text: string, options: SendOptions = {}): Promise<void> {
    this.tmux(["send-keys", "-t", "t", "-l", text]);
    await this.sentBytes(Buffer.byteLength(text), options, `the text ${JSON.stringify(text)}`);
  }

  private async sentBytes(bytes: number, options: SendOptions, what: string): Promise<void> {
    if (options.read === false) return;
    this.sent += bytes;
    if (options.wait === false) return;
    const deadline = Date.now() + 60_000;
    while (this.readBytes() < this.sent) {
      if (Date.now() > deadline) throw new Error(`the CLI did not read ${what} within 60 s (read ${this.seenRead} of ${this.sent} bytes sent); the screen:\n${this.screen()}`);
      await sleep(10);
    }
  }

  /** Each read the CLI made off the terminal so far, as the bytes it got. */
  reads(): Buffer[] {
    let text = "";
    try {
      text = fs.readFileSync(this.ackFile, "utf8");
    } catch {
      // nothing read yet
    }
    return text
      .split("\n")
      .filter(Boolean)
      .map((line) => Buffer.from(line.split(" ")[1] ?? "", "hex"));
  }

  /** Bytes the CLI has read off the terminal so far. */
  private readBytes(): number {
    this.seenRead = this.reads().reduce((sum, chunk) => sum + chunk.length, 0);
    return this.seenRead;
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
    fs.rmSync(this.ackFile, { force: true });
    try {
      this.tmux(["kill-server"]);
    } catch {
      // already gone
    }
  }
}
