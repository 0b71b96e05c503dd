export type * from "./Tool.js";
export type * from "./messages.js";
export type * from "./permissionTypes.js";
export { PERMISSION_MODES, PERMISSION_RULE_SOURCES } from "./permissionTypes.js";
export { buildTool, type ToolDef } from "./buildTool.js";
export {
  findToolByName,
  toolMatchesName,
  normalizeNameForMcp,
  buildMcpToolName,
  parseMcpToolName,
  isDeferredTool,
  getToolsForModel,
  getDeferredToolNames,
  getCurrentTools,
} from "./registry.js";
export {
  createToolUseContext,
  readSettingsSection,
  createEmptyPermissionContext,
  getToolgateHome,
  getSessionPaths,
  projectKey,
  rewindFiles,
  createTodoStore,
  type CreateToolUseContextOptions,
} from "./context.js";
export { createFileStateCache, createFileStateOverlay, hashContent, type FileState, type FileStateCache, type FileStateOverlay } from "./fileStateCache.js";
export { createFileHistory, UnknownCheckpointError, type FileHistory, type RewindResult } from "./fileHistory.js";
export { createTaskRegistry, createTaskId, type BackgroundTask, type TaskRegistry, type TaskStatus } from "./tasks.js";
export { parseToolInput, formatZodIssues, type ParseOutcome } from "./validation.js";
export {
  TelemetrySafeError,
  AbortError,
  InputValidationError,
  classifyToolError,
  formatError,
  isAbortError,
  truncateMiddle,
} from "./errors.js";
export {
  mapToolResultToToolResultBlockParam,
  maybePersistLargeToolResult,
  applyToolResultBudget,
  buildPersistedOutputMessage,
  persistenceThreshold,
  toolResultTextLength,
  MAX_INLINE_RESULT_CHARS,
  MAX_TOOL_RESULTS_PER_MESSAGE_CHARS,
  type BudgetEntry,
} from "./results.js";
export * from "./pipeline/index.js";
export * from "./executor/index.js";
export { orderDecision, isForcedAsk, checkToolPermissions, type DecisionFacts } from "./permissionOrder.js";
export { toolInputJSONSchema, toolToDefinition, type ToolDefinition } from "./apiSchema.js";
export { createAsyncQueue, type AsyncQueue } from "./asyncQueue.js";
export { expandPath, isPathInside, displayPath } from "./paths.js";
