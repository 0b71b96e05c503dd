/**
 * The stream-json control channel: lines in from the controlling program (user messages, control requests,
 * answers to ours, cancellations), and requests out to it (`can_use_tool`, `hook_callback`, `mcp_message`),
 * each answered by its `request_id`. A request we give up on (an interrupt, a timeout) is withdrawn with
 * `control_cancel_request`, so the other side stops waiting too.
 */
import { randomUUID } from "node:crypto";
import readline from "node:readline";
import type { Readable, Writable } from "node:stream";

export type InputLine =
  | { kind: "value"; value: Record<string, unknown> }
  /** A line we could not use: the message says why (it becomes an input_error). */
  | { kind: "invalid"; message: string };

export class ControlRequestError extends Error {}

interface Pending {
  resolve(value: Record<string, unknown>): void;
  reject(error: Error): void;
}

/** Writes one line and waits until it is handed to the OS, so a reader sees it at once and nothing is lost at exit. */
export function writeJsonLine(stream: Writable, value: unknown): Promise<void> {
  return new Promise((resolve) => {
    stream.write(`${JSON.stringify(value)}\n`, () => resolve());
  });
}

export class ControlChannel {
  private readonly pending = new Map<string, Pending>();
  private readonly buffered: InputLine[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  private readonly lines: readline.Interface;

  constructor(
    input: Readable,
    private readonly write: (value: Record<string, unknown>) => Promise<void>,
  ) {
    const lines = readline.createInterface({ input, crlfDelay: Infinity });
    this.lines = lines;
    void (async () => {
      for await (const line of lines) {
        if (!line.trim()) continue;
        const parsed = parseLine(line);
        // Answers are taken here, whatever the consumer is doing: a question must never wait for the queue.
        if (parsed.kind === "value" && parsed.value.type === "control_response" && this.answer(parsed.value)) continue;
        this.buffered.push(parsed);
        this.wake?.();
      }
    })()
      .catch(() => undefined)
      .finally(() => {
        this.ended = true;
        for (const pending of this.pending.values()) pending.reject(new ControlRequestError("the controlling program closed its input"));
        this.pending.clear();
        this.wake?.();
      });
  }

  /** The next line that is not an answer to one of our requests; undefined once the input has ended. */
  async next(signal?: AbortSignal): Promise<InputLine | undefined> {
    for (;;) {
      const line = this.buffered.shift();
      if (line) return line;
      if (this.ended || signal?.aborted) return undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        signal?.addEventListener("abort", () => resolve(), { once: true });
      });
      this.wake = undefined;
    }
  }

  /** Puts a line back at the front (a line read to look at it, such as the first one). */
  unshift(line: InputLine): void {
    this.buffered.unshift(line);
  }

  get inputEnded(): boolean {
    return this.ended;
  }

  /**
   * Sends a control request and resolves with the `response` of a success answer. Rejects with the error of an
   * error answer, when `signal` aborts (the request is then cancelled on the other side), after `timeoutMs`,
   * or when the input ends.
   */
  request(subtype: string, fields: Record<string, unknown>, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Record<string, unknown>> {
    const requestId = randomUUID();
    if (this.ended) return Promise.reject(new ControlRequestError("the controlling program closed its input"));
    if (options.signal?.aborted) return Promise.reject(new ControlRequestError("cancelled"));
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const cleanup = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        this.pending.delete(requestId);
      };
      const giveUp = (message: string) => {
        cleanup();
        void this.write({ type: "control_cancel_request", request_id: requestId });
        reject(new ControlRequestError(message));
      };
      const onAbort = () => giveUp("cancelled");
      if (options.timeoutMs !== undefined) timer = setTimeout(() => giveUp(`no answer within ${Math.round(options.timeoutMs! / 1000)} s`), options.timeoutMs);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(requestId, {
        resolve: (value) => {
          cleanup();
          resolve(value);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      void this.write({ type: "control_request", request_id: requestId, request: { subtype, ...fields } });
    });
  }

  /** Stops reading (the run is over); requests still waiting are rejected. */
  close(): void {
    this.lines.close();
  }

  private answer(value: Record<string, unknown>): boolean {
    const response = value.response as Record<string, unknown> | undefined;
    const id = typeof response?.request_id === "string" ? response.request_id : undefined;
    const pending = id === undefined ? undefined : this.pending.get(id);
    if (!pending) return false;
    if (response!.subtype === "success") {
      const payload = response!.response;
      pending.resolve(payload !== null && typeof payload === "object" && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {});
    } else {
      pending.reject(new ControlRequestError(typeof response!.error === "string" && response!.error ? response!.error : "the controlling program answered with an error"));
    }
    return true;
  }
}

function parseLine(line: string): InputLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    return { kind: "invalid", message: `stdin line is not JSON (${(err as Error).message}); it was ignored` };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { kind: "invalid", message: `stdin line is JSON but not an object (${parsed === null ? "null" : Array.isArray(parsed) ? "an array" : `a ${typeof parsed}`}); it was ignored` };
  }
  return { kind: "value", value: parsed as Record<string, unknown> };
}
