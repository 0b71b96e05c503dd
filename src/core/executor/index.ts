export {
  createToolCallScheduler,
  partitionToolCalls,
  isToolUseConcurrencySafe,
  getMaxToolUseConcurrency,
  DEFAULT_MAX_TOOL_USE_CONCURRENCY,
  type ToolBatch,
  type ToolCallScheduler,
  type ExecutorUpdate,
} from "./scheduler.js";
export { runTools, runToolsToMessage, buildToolResultMessage, type ToolResultMessageResult } from "./runTools.js";
export { createStreamingToolExecutor, type StreamingToolExecutor, type StreamingToolExecutorOptions } from "./streaming.js";
export {
  createToolSpeculator,
  inputsEquivalent,
  speculationEnabled,
  speculationSettingsSection,
  MAX_SPECULATED_INPUT_CHARS,
  MAX_SPECULATIONS_PER_BLOCK,
  type ToolSpeculator,
  type ToolSpeculatorOptions,
} from "./speculation.js";
