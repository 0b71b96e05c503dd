export { runToolUse, STAGES_BEFORE_CALL } from "./runToolUse.js";
export {
  findTool,
  checkNotAborted,
  parseInput,
  backfillInput,
  validateInput,
  runPreToolUseHooks,
  resolvePermission,
  callTool,
  runPostToolUseHooks,
  mapResult,
  cancellationMessage,
  INTERRUPT_MESSAGE,
  ABORT_GRACE_MS,
  type StageResult,
  type MaybePromise,
} from "./stages.js";
export {
  createCallState,
  type CallState,
  type ResolvedCall,
  type CallSettlement,
  type ProgressUpdate,
  type ToolResultUpdate,
  type ToolUseUpdate,
} from "./state.js";
export {
  createToolStatusBoard,
  type ToolCallStatus,
  type ToolStatusBoard,
  type ToolStatusListener,
  type ToolStatusUpdate,
  type ToolUseOutcome,
} from "./status.js";
