/**
 * Errors the runtime raises and the two ways they leave it: a message for the model (formatError)
 * and a label for telemetry that never carries code or paths (classifyToolError).
 */

const TELEMETRY_MESSAGE_MAX = 200;

/** An error whose telemetry message the author vouches for: no file paths, no code, no user data. */
export class TelemetrySafeError extends Error {
  readonly telemetryMessage: string;
  constructor(message: string, telemetryMessage?: string) {
    super(message);
    this.name = "TelemetrySafeError";
    this.telemetryMessage = scrubPaths(telemetryMessage ?? message).slice(0, TELEMETRY_MESSAGE_MAX);
  }
}

/** The call was cancelled (user interrupt, sibling failure, session end). */
export class AbortError extends Error {
  constructor(message = "The operation was aborted") {
    super(message);
    this.name = "AbortError";
  }
}

/** A tool's input did not match its schema. */
export class InputValidationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InputValidationError";
  }
}

/** Belt and braces: even a vouched-for telemetry message loses anything shaped like a path. */
function scrubPaths(text: string): string {
  return text
    .replace(/(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:[\\/][^\s\\/:"'`]+)+[\\/]?/g, "<path>")
    .replace(/\s+/g, " ")
    .trim();
}

const ERRNO_CODE = /^E[A-Z0-9]{2,20}$/;
const SAFE_NAME = /^[A-Za-z_$][A-Za-z0-9_$]{3,63}$/;

export function classifyToolError(err: unknown): string {
  if (err instanceof TelemetrySafeError) return err.telemetryMessage;
  if (err !== null && typeof err === "object") {
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && ERRNO_CODE.test(code)) return `Error:${code}`;
    const name = (err as { name?: unknown }).name;
    if (typeof name === "string" && name !== "Error" && SAFE_NAME.test(name)) return name;
    if (err instanceof Error) return "Error";
  }
  return "UnknownError";
}

export const ERROR_MESSAGE_MAX_CHARS = 10_000;

/** Keep the head and tail of a long text, saying how much was cut from the middle. */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n\n... [${cut} characters truncated] ...\n\n${text.slice(-half)}`;
}

/** The message the model sees for a thrown error. */
export function formatError(err: unknown): string {
  if (err instanceof AbortError) return err.message;
  let text: string;
  if (err instanceof Error) {
    text = err.message || err.name || "Unknown error";
    const extra = err as { stderr?: unknown; stdout?: unknown };
    const parts = [text];
    if (typeof extra.stderr === "string" && extra.stderr.trim()) parts.push(extra.stderr.trim());
    if (typeof extra.stdout === "string" && extra.stdout.trim()) parts.push(extra.stdout.trim());
    text = parts.join("\n");
  } else if (typeof err === "string") {
    text = err;
  } else {
    try {
      text = JSON.stringify(err) ?? String(err);
    } catch {
      text = String(err);
    }
  }
  return truncateMiddle(text, ERROR_MESSAGE_MAX_CHARS);
}

export function isAbortError(err: unknown): boolean {
  return (
    err instanceof AbortError ||
    (err instanceof Error && err.name === "AbortError") ||
    (err !== null && typeof err === "object" && (err as { code?: unknown }).code === "ABORT_ERR")
  );
}
