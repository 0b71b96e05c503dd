/** The agent: the query loop, headless mode, and what a session tells the model about itself. */
export { query, MAX_OUTPUT_RECOVERIES, type AgentEvent, type AgentResult, type AgentStopReason, type QueryOptions, type UsageTotals, type PermissionDenial } from "./query.js";
export { runHeadless, exitCodeFor, DEFAULT_PERMISSION_TIMEOUT_MS, type HeadlessOptions, type HeadlessSession, type InputFormat, type OutputFormat } from "./headless.js";
export { buildSystemPrompt, type SystemPromptParts } from "./systemPrompt.js";
export { findProjectInstructions, formatProjectInstructions, INSTRUCTION_FILE_NAMES, type InstructionFile, type ProjectInstructions } from "./instructions.js";
export { readEnvironment, readGitState, formatEnvironment, type Environment, type GitState } from "./environment.js";
export { createRepeatGuard, repeatedCallNotice, REPEAT_LIMIT, type RepeatGuard } from "./repeatGuard.js";
export { estimateCostUSD, priceOf } from "./cost.js";
export { repairHistory, INTERRUPTED_RESULT } from "./history.js";
export { openTranscript, loadTranscript, pruneSessions, listSessions, findSession, transcriptPath, projectTranscriptDir, SessionNotFoundError, TRANSCRIPT_VERSION, type TranscriptWriter, type TranscriptEntry, type LoadedTranscript, type SessionSummary } from "./transcript.js";
export { createAutoModeClassifier, classifierMayDecide, parseVerdict, type AutoModeClassifier, type AutoModeVerdict } from "./autoMode.js";
export { compactHistory, clearOldToolOutputs, compactionThreshold, MAX_FAILED_COMPACTIONS, type CompactionOutcome, type CompactionState } from "./compact.js";
export { cleanupSettingsSection, readCleanupPeriodDays, DEFAULT_CLEANUP_PERIOD_DAYS } from "./settingsSection.js";
export { createModelAccess, type ModelAccessOptions } from "./modelAccess.js";
export { summarizeMessageChanges, diffSession, formatStat, formatFileDiff, changeSummaryJson, type ChangeSummary, type FileChange, type FileDiff } from "./changes.js";
export { createSubagentRunner, enableSubagents, subagentTools, type SubagentRunnerOptions } from "./subagent.js";
export { loadAgentTypes, parseAgentFile, agentTypeDirs, BUILTIN_AGENT_TYPES, GENERAL_PURPOSE_AGENT, DEFAULT_SUBAGENT_MAX_TURNS, type AgentTypeDefinition, type AgentTypeDirs, type LoadedAgentTypes } from "./agentTypes.js";
export { latestTodos, todoReminder, TODO_REMINDER_TURNS } from "./todos.js";
