import type { CanUseToolFn, ToolUseContext } from "../Tool.js";
import type { AssistantMessage, ToolUseBlock } from "../messages.js";
import type { ToolResultUpdate } from "../pipeline/state.js";
import { buildToolResultMessage, type ToolResultMessageResult } from "./runTools.js";
import { createToolCallScheduler, type ExecutorUpdate } from "./scheduler.js";

export interface StreamingToolExecutor {
  /** A tool_use block the model finished streaming; safe calls may start before the message ends. */
  addTool(block: ToolUseBlock): void;
  /** The assistant message ended: no more blocks. */
  finish(): void;
  /** Stop every unfinished call; each gets its cancellation result (the reason, when given, is what the model reads). */
  abort(reason?: string): void;
  /** The user interrupted: calls of tools that `block` on interrupts finish, the others are cancelled with `reason`. */
  interrupt(reason: string): void;
  /** Status, progress and results as they happen; results in block order. Ends after the last result. One consumer. */
  readonly updates: AsyncIterable<ExecutorUpdate>;
  /** Once finished and every call is done: the user message with one tool_result per block, in order. */
  result(): Promise<ToolResultMessageResult>;
  /** The context after the contextModifiers applied so far. */
  getContext(): ToolUseContext;
}

export interface StreamingToolExecutorOptions {
  /**
   * The assistant message being streamed, handed to permission prompts and tools (file checkpoints key on its
   * id). By default the executor builds one from the blocks added.
   */
  assistantMessage?: AssistantMessage;
}

/**
 * Run tool calls while the model is still streaming them, under the same scheduler, batching rule and cap as
 * runTools.
 */
export function createStreamingToolExecutor(
  context: ToolUseContext,
  canUseTool: CanUseToolFn,
  options: StreamingToolExecutorOptions = {},
): StreamingToolExecutor {
  const scheduler = createToolCallScheduler(context, canUseTool, { includeStatus: true });
  const ownMessage = options.assistantMessage === undefined;
  const message: AssistantMessage = options.assistantMessage ?? { role: "assistant", content: [] };
  return {
    addTool(block) {
      if (ownMessage) message.content.push(block);
      scheduler.add(block, message);
    },
    finish: () => scheduler.close(),
    abort: (reason) => scheduler.abort(reason),
    interrupt: (reason) => scheduler.interrupt(reason),
    updates: scheduler.updates,
    result: async () => buildToolResultMessage(await scheduler.done, scheduler.context()),
    getContext: () => scheduler.context(),
  };
}

export type { ExecutorUpdate, ToolResultUpdate };
