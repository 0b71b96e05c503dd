import readline from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { CanUseToolFn, ToolUseContext } from "../core/Tool.js";
import type { ToolUseBlock, UserMessage } from "../core/messages.js";
import { runToolsToMessage } from "../core/executor/index.js";
import type { ToolUseUpdate } from "../core/pipeline/index.js";
import { rewindFiles } from "../core/context.js";
import { formatError } from "../core/errors.js";
import { formatExecError, parseExecLine } from "./execProtocol.js";
import { BASH_TOOL_NAME } from "../tools/Bash/prompt.js";
import { loadBashImplementation } from "../tools/Bash/tool.js";

export interface ExecSession {
  context: ToolUseContext;
  canUseTool: CanUseToolFn;
}

export interface ExecIO {
  input: Readable;
  output: Writable;
  /** Diagnostics for the user: hook notices, progress when verbose. Never read by the model. */
  diagnostics: Writable;
  verbose?: boolean;
}

export interface ExecSummary {
  /** Non-blank lines read. */
  lines: number;
  malformed: number;
  toolUses: number;
}

function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (err) => (err ? reject(err) : resolve()));
  });
}

function reportUpdate(update: ToolUseUpdate, io: ExecIO): void {
  if (update.type === "progress") {
    if (io.verbose) io.diagnostics.write(`[toolgate] progress ${update.toolUseID}: ${JSON.stringify(update.data)}\n`);
    return;
  }
  for (const notice of update.notices) {
    io.diagnostics.write(`[toolgate] ${notice.hookEvent} hook (${notice.command}) ${notice.level}: ${notice.message}\n`);
  }
}

/** Last resort when the runtime itself failed: still one tool_result per tool_use. */
function runtimeFailureMessage(toolUses: ToolUseBlock[], err: unknown): UserMessage {
  return {
    role: "user",
    content: toolUses.map((t) => ({
      type: "tool_result" as const,
      tool_use_id: t.id,
      content: `<tool_use_error>Error: toolgate failed while running this batch: ${formatError(err)}</tool_use_error>`,
      is_error: true,
    })),
  };
}

/**
 * `toolgate exec`: one JSON value per stdin line, one line out per line in, all lines sharing one session.
 * Lines are handled strictly in order; a malformed line gets an error line and the run goes on.
 */
export async function runExec(session: ExecSession, io: ExecIO): Promise<ExecSummary> {
  const summary: ExecSummary = { lines: 0, malformed: 0, toolUses: 0 };
  const lines = readline.createInterface({ input: io.input, crlfDelay: Infinity });
  let context = session.context;
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    const request = parseExecLine(line);
    if (request.kind !== "blank") summary.lines++;
    switch (request.kind) {
      case "blank":
        break;
      case "malformed":
        summary.malformed++;
        await write(io.output, `${formatExecError(lineNumber, request.error)}\n`);
        break;
      case "rewind": {
        let out: string;
        try {
          const result = rewindFiles(context, request.messageId);
          out = JSON.stringify({ type: "rewind", message_id: request.messageId, restored: result.restored, deleted: result.deleted, errors: result.errors });
        } catch (err) {
          summary.malformed++;
          out = formatExecError(lineNumber, formatError(err));
        }
        await write(io.output, `${out}\n`);
        break;
      }
      case "tools": {
        summary.toolUses += request.toolUses.length;
        let message: UserMessage;
        try {
          // Bash loads on first need; its calls are batched on the grammar's answers (concurrency-safe or not)
          if (request.toolUses.some((t) => t.name === BASH_TOOL_NAME)) await loadBashImplementation();
          const result = await runToolsToMessage(request.toolUses, request.message, session.canUseTool, context, (u) => reportUpdate(u, io));
          message = result.message;
          context = result.context;
          context.messages.push(request.message, message);
        } catch (err) {
          message = runtimeFailureMessage(request.toolUses, err);
        }
        await write(io.output, `${JSON.stringify(message)}\n`);
        break;
      }
    }
  }
  return summary;
}
