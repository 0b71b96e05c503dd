import { TelemetrySafeError } from "../../core/errors.js";

/**
 * A refusal the model must read and act on (stale file, no match, not read yet, ...). Thrown from a tool's
 * critical section; the pipeline turns it into an is_error tool_result with the message. The code is a
 * stable telemetry label such as `edit:no_match`, never a path.
 */
export class FileToolError extends TelemetrySafeError {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message, code);
    this.name = "FileToolError";
    this.code = code;
  }
}
