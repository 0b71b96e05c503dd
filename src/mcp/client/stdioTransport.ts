import { spawn, type ChildProcess } from "node:child_process";
import treeKill from "tree-kill";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";

/**
 * A stdio client transport that remembers how the server process ended and the tail of its stderr,
 * so a crash can be reported to the model as "exited with code 1: <last stderr line>". The SDK's own
 * StdioClientTransport drops the exit code. Closing kills the whole process tree (servers started
 * through `npx` or a shell wrapper leave children behind otherwise).
 */

export interface StdioServerParams {
  command: string;
  args: string[];
  /** The complete environment of the child. */
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run the server through this wrapper (the OS sandbox): it gets the command line, returns what bash runs. */
  wrap?: (commandLine: string) => Promise<{ command: string; finish(): unknown }>;
}

const shellQuote = (word: string) => (/^[A-Za-z0-9_./=:@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const STDERR_TAIL_CHARS = 4_000;
const CLOSE_GRACE_MS = 1_000;

export function describeExit(exit: ProcessExit | undefined): string {
  if (!exit) return "closed its connection";
  if (exit.signal) return `was killed by signal ${exit.signal}`;
  return `exited with code ${exit.code}`;
}

export class ToolgateStdioClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readonly buffer = new ReadBuffer();
  private stderr = "";
  private closing = false;
  exit?: ProcessExit;

  constructor(private readonly params: StdioServerParams) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last few KB the server wrote to stderr. */
  get stderrTail(): string {
    return this.stderr;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error("ToolgateStdioClientTransport already started");
    let command = this.params.command;
    let args = this.params.args;
    let finishWrap: (() => unknown) | undefined;
    if (this.params.wrap) {
      const wrapped = await this.params.wrap([command, ...args].map(shellQuote).join(" "));
      finishWrap = () => wrapped.finish();
      command = "/bin/bash";
      args = ["-c", wrapped.command];
    }
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        env: this.params.env,
        cwd: this.params.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      let spawned = false;
      child.on("error", (error) => {
        if (!spawned) {
          finishWrap?.();
          reject(error);
        } else this.onerror?.(error);
      });
      child.on("spawn", () => {
        spawned = true;
        resolve();
      });
      child.on("exit", (code, signal) => {
        this.exit = { code, signal };
      });
      child.on("close", (code, signal) => {
        finishWrap?.();
        this.exit ??= { code, signal };
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => {
        // EPIPE after the server died is reported through onclose, not as an extra error.
        if (!this.closing && this.child) this.onerror?.(error);
      });
      child.stdout?.on("data", (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
        } catch (error) {
          // One message over the buffer limit: the stream cannot be resynchronised.
          this.onerror?.(error as Error);
          void this.close();
          return;
        }
        this.drain();
      });
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (chunk: string) => {
        this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL_CHARS);
      });
    });
  }

  private drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        // A line that is not JSON-RPC (a stray console.log in the server): report it, keep reading.
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) {
        reject(new Error("Not connected"));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** End stdin, give the server a moment to exit, then SIGTERM and finally SIGKILL its process tree. */
  async close(): Promise<void> {
    const child = this.child;
    this.closing = true;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    try {
      child.stdin?.end();
    } catch {
      // already gone
    }
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      const exited = await Promise.race([closed.then(() => true), delay(CLOSE_GRACE_MS).then(() => false)]);
      if (exited || child.pid === undefined) break;
      treeKill(child.pid, signal);
    }
    this.buffer.clear();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
