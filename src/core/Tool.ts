import type { z } from "zod";
import type { AssistantMessage, Message, ToolResultBlockParam } from "./messages.js";
import type { PermissionDecision, PermissionMode, PermissionResult, ToolPermissionContext } from "./permissionTypes.js";
import type { FileStateCache } from "./fileStateCache.js";
import type { FileHistory } from "./fileHistory.js";
import type { WorkspaceSnapshots } from "./workspaceSnapshot.js";
import type { TaskRegistry } from "./tasks.js";
import type { ToolStatusBoard } from "./pipeline/status.js";

/** One top-level key of settings.json and the schema of its value, declared by the part that reads it. */
export interface SettingsSectionSchema<S extends z.ZodType = z.ZodType> {
  key: string;
  schema: S;
}

/** A raw JSON Schema object, as MCP servers describe their tools. */
export type JSONSchema = { type?: string; [key: string]: unknown };

export type AnyObject = Record<string, unknown>;

/**
 * `prepared`: what validation worked out (an edit plan, say), handed to `call()` as `context.validated` so the
 * tool need not redo it. The pipeline keeps it per call; input rewritten by a hook is validated, and prepared, again.
 */
export type ValidationResult = { result: true; prepared?: unknown } | { result: false; message: string; errorCode: number };

export interface ToolProgress<P = unknown> {
  toolUseID: string;
  data: P;
}

export type ToolCallProgress<P = unknown> = (progress: ToolProgress<P>) => void;

export interface McpMeta {
  _meta?: Record<string, unknown>;
  structuredContent?: Record<string, unknown>;
}

export interface ToolResult<Output> {
  data: Output;
  /** Messages to append after the tool_result (for example attachments). */
  newMessages?: Message[];
  /** Honoured only for calls that are not concurrency-safe; applied after the call's batch. */
  contextModifier?: (context: ToolUseContext) => ToolUseContext;
  mcpMeta?: McpMeta;
}

/**
 * The permission gate handed to tools and to the pipeline: interactive prompt, SDK callback,
 * or the non-interactive auto-deny. It receives the rule engine's verdict and returns the final one.
 */
export type CanUseToolFn = (
  tool: AnyTool,
  input: AnyObject,
  context: ToolUseContext,
  assistantMessage: AssistantMessage,
  toolUseID: string,
  decision: PermissionDecision,
) => Promise<PermissionDecision>;

/** The rule engine: decides allow / deny / ask for one call. Injected so the core stays engine-agnostic. */
export type PermissionDecider = (
  tool: AnyTool,
  input: AnyObject,
  context: ToolUseContext,
  extra: { toolUseID: string; hookDecision?: HookPermissionDecision },
) => Promise<PermissionDecision>;

/** What PreToolUse hooks said about permission; the engine never lets `allow` beat a deny or ask rule. */
export interface HookPermissionDecision {
  behavior: "allow" | "deny" | "ask";
  reason?: string;
  command?: string;
  /** The settings file that configured the deciding hook. */
  file?: string;
}

export interface PromptOptions {
  tools: Tools;
  permissionContext?: ToolPermissionContext;
}

/** Renderers for the terminal UI. Loaded lazily so `exec` and `mcp serve` never load React. */
export interface ToolRenderers<Input, Output, Progress> {
  renderToolUseMessage(input: Partial<Input>, options: { verbose: boolean }): unknown;
  renderToolUseProgressMessage?(progress: Progress[], options: { verbose: boolean }): unknown;
  renderToolResultMessage?(output: Output, options: { verbose: boolean }): unknown;
  renderToolUseRejectedMessage?(input: Input, options: { verbose: boolean }): unknown;
  renderToolUseErrorMessage?(error: string, options: { verbose: boolean }): unknown;
  renderGroupedToolUse?(uses: Array<{ input: Input; output?: Output }>, options: { verbose: boolean }): unknown;
}

export interface Tool<Input extends AnyObject = AnyObject, Output = unknown, Progress = unknown> {
  // identity
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly searchHint?: string;
  readonly isMcp?: boolean;
  readonly mcpInfo?: { serverName: string; toolName: string };
  readonly shouldDefer?: boolean;
  readonly alwaysLoad?: boolean;
  readonly strict?: boolean;
  /**
   * When a call of this tool fails inside a parallel batch, the rest of the batch is cancelled (a failed shell
   * command usually means the commands beside it are pointless).
   */
  readonly cancelsSiblingsOnError?: boolean;
  /**
   * Which rules judge this tool's target besides rules naming the tool itself: `read` (`Read(...)` path
   * rules), `edit` (`Edit(...)` path rules), `command` (its own command matcher), `domain` (`WebFetch(domain:...)`).
   * For documentation and listings; the tool's checkPermissions applies them.
   */
  readonly ruleFamily?: "read" | "edit" | "command" | "domain";
  /** A computer-use tool's screen as the model sees it; APIs with a native computer tool send it. */
  readonly display?: { width: number; height: number; number?: number };
  /** The tool's options in settings.json: their key (`grep`) and schema; settings files are checked against it at load. */
  readonly settingsSection?: SettingsSectionSchema;

  // schemas
  readonly inputSchema: z.ZodType<Input, unknown>;
  readonly inputJSONSchema?: JSONSchema;
  /** The shape of `data`; read by `mcp serve` to advertise an outputSchema (MCP structured content). */
  readonly outputSchema?: z.ZodType;

  // text for the model and the user
  description(input: Partial<Input>, options: PromptOptions): string | Promise<string>;
  prompt(options: PromptOptions): string | Promise<string>;
  userFacingName(input?: Partial<Input>): string;
  /** What this call does, in a few words (a command, a path), for messages and the UI. */
  describeInput?(input: Partial<Input>): string;

  // behaviour
  call(
    args: Input,
    context: ToolUseContext,
    canUseTool: CanUseToolFn,
    parentMessage: AssistantMessage,
    onProgress?: ToolCallProgress<Progress>,
  ): Promise<ToolResult<Output>>;
  validateInput?(input: Input, context: ToolUseContext): Promise<ValidationResult>;
  /** The tool's own verdict; an updatedInput it returns is re-validated by the pipeline. */
  checkPermissions(input: Input, context: ToolUseContext): Promise<PermissionResult>;
  isConcurrencySafe(input: Input): boolean;
  isReadOnly(input: Input): boolean;
  isDestructive(input: Input): boolean;
  /**
   * The call may change any file in the working directories (a shell, a REPL): the runtime snapshots them
   * before it and checkpoints what it changed, so rewind covers it. Not asked of tools that write one named file.
   */
  writesAnywhere?(input: Input): boolean;
  isEnabled(): boolean;
  /** What an interrupt does to a running call: stop it (`cancel`, the default) or let it finish (`block`); read by the agent loop. */
  interruptBehavior?(): "cancel" | "block";
  /** Whether the output shown was cut short; read by the terminal UI to offer the full result. */
  isResultTruncated?(output: Output): boolean;
  /** The compact form of the input an auto-mode safety classifier judges (read by the classifier when it lands). */
  toAutoClassifierInput(input: Input): unknown;
  /** Results larger than min(this, 50 000) chars are persisted to disk; Infinity = never. */
  readonly maxResultSizeChars: number;
  /** The absolute path the call acts on; relative paths resolve against `context.getCwd()`. */
  getPath?(input: Input, context?: ToolUseContext): string;
  /** Mutates a shallow clone of the input that hooks and permission checks see (e.g. absolute paths). */
  backfillObservableInput?(input: Input, context: ToolUseContext): void;
  /** Returns a predicate deciding whether a rule's content (`Tool(content)`) matches this input. */
  preparePermissionMatcher?(input: Input): Promise<(ruleContent: string) => boolean>;
  /**
   * Whether two inputs do the same thing; read by the agent loop's repeated-call guard (on the inputs as sent)
   * and by speculative calls (on the observable inputs, after backfill). Default: deep equality.
   */
  inputsEquivalent?(a: Input, b: Input): boolean;
  /**
   * Whether a call with this input may start while the model is still streaming it (a speculative call, see
   * docs/core.md): it only reads, leaves nothing behind but what its context records, and never asks. Also
   * promises that validateInput changes nothing. Absent or false: never speculated (fail closed).
   */
  isSpeculationSafe?(input: Input): boolean;
  mapToolResultToToolResultBlockParam(output: Output, toolUseID: string): ToolResultBlockParam;

  // rendering, for the UI only
  loadRenderers?(): Promise<ToolRenderers<Input, Output, Progress>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any, any, any>;
export type Tools = readonly AnyTool[];

export interface McpClientInfo {
  readonly name: string;
  readonly status: string;
  /** Why the server is not connected, when it is not. */
  readonly error?: string;
}

export interface ToolUseContextOptions {
  tools: Tools;
  /** Every built-in tool, so legacy aliases still resolve when a tool is not in the pool. */
  builtinTools?: Tools;
  /** The session's MCP servers and their status (doctor, the UI's server list). */
  mcpClients: readonly McpClientInfo[];
  /** The model the agent loop talks to; read by the loop and its providers (empty until a loop runs). */
  mainLoopModel: string;
  debug: boolean;
  verbose: boolean;
  isNonInteractiveSession: boolean;
  /** Latest tool list (MCP servers may change theirs mid-session). */
  refreshTools?: () => Tools;
  /** Parallel batch cap; defaults to TOOLGATE_MAX_TOOL_USE_CONCURRENCY or 10. */
  maxToolUseConcurrency?: number;
  /**
   * The merged settings of every source (later sources win). A tool reads its own section with
   * `readSettingsSection(context, tool.settingsSection)`, which parses it with the schema the tool declared.
   */
  settings: Readonly<Record<string, unknown>>;
}

export interface AppState {
  toolPermissionContext: ToolPermissionContext;
  /** Deferred tools whose schemas were loaded through ToolSearch. */
  loadedDeferredTools: ReadonlySet<string>;
}

/** Per-session decisions about large tool results, so a replayed conversation is byte-identical. */
export interface ContentReplacementState {
  /** tool_use ids already judged by the per-message budget. */
  seen: Set<string>;
  /** tool_use id → replacement content (the `<persisted-output>` text, beside any images the result had). */
  replacements: Map<string, ToolResultBlockParam["content"]>;
}

export interface SessionPaths {
  /** `<TOOLGATE_HOME>`. */
  home: string;
  /** `<home>/projects/<project>/<session>`. Created on first use. */
  sessionDir: string;
  /** Where large tool results are persisted. */
  toolResultsDir: string;
}

/** A question for the model without tools (WebFetch's answer step, summaries); `model: "small"` picks the session's small model. */
export interface ModelQuestion {
  system?: string;
  prompt: string;
  model?: "small" | "main";
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface ModelAnswer {
  text: string;
  /** The model that answered. */
  model: string;
  usage?: { input: number; output: number };
}

/** A web search run by the provider's own server-side search tool (WebSearch). */
export interface WebSearchQuery {
  query: string;
  /** Only results from these domains (and their subdomains); not together with blockedDomains. */
  allowedDomains?: string[];
  blockedDomains?: string[];
  signal?: AbortSignal;
}

export interface WebSearchHit {
  title: string;
  url: string;
  /** A passage of the page, when the search returned one. */
  snippet?: string;
  /** How old the page is, as the search engine says it ("3 days ago"). */
  pageAge?: string;
}

export interface WebSearchResults {
  hits: WebSearchHit[];
  /** The model's summary of the results, with its citations' sources; may be empty. */
  text: string;
  /** The model that ran the search. */
  model: string;
}

/**
 * The model, for tools that need one. Set by whoever runs the agent loop (`-p`, the UI); absent in `exec`
 * and `mcp serve`, where a tool falls back to what it can do without a model.
 */
export interface ModelAccess {
  /** One request without tools. Rejects (with a message for the model) when the model fails or is cut short. */
  ask(question: ModelQuestion): Promise<ModelAnswer>;
  /** A web search by the provider itself; present only when the provider has one (Anthropic). Rejects with a message for the model. */
  search?(query: WebSearchQuery): Promise<WebSearchResults>;
}

/**
 * Told about each file a writer tool changes (LSP diagnostics, skill discovery). Observers must never throw
 * and must settle within their own short deadline: a slow observer must not delay an edit.
 */
export interface FileWriteObserver {
  /** Before the write, from the writer's validateInput (an LSP server takes its baseline here). */
  beforeWrite?(absPath: string, context: ToolUseContext): Promise<void>;
  /** After the write; text it returns is shown to the model with the tool's result. */
  afterWrite?(absPath: string, context: ToolUseContext): Promise<string | undefined>;
}

/** A permission verdict reached for a call (telemetry). */
export interface ToolDecisionReport {
  toolName: string;
  toolUseID: string;
  /** The final verdict, with its decisionReason (which rule source, hook, mode, or who answered). */
  verdict: PermissionDecision;
  /** Whether the verdict is an answer to a question (canUseTool: a person, a control client, a prompt tool, a classifier). */
  asked: boolean;
  tool: AnyTool;
  /** The observable input; a sink must not export it unless the user opted in. */
  input: AnyObject;
}

/** A call's one result (telemetry). */
export interface ToolResultReport {
  toolName: string;
  toolUseID: string;
  /** success, tool_error, denied, invalid_input, cancelled, runtime_error, … */
  outcome: string;
  durationMs: number;
  /** classifyToolError's label for failures: never a path or code. */
  errorLabel?: string;
  tool?: AnyTool;
  /** What the model sent; a sink must not export it unless the user opted in. */
  input: unknown;
}

/** One model request of the agent loop (telemetry). */
export interface ModelRequestReport {
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** USD at list price; absent for a model without a known price. */
  costUSD?: number;
  durationMs: number;
  /** end_turn, tool_use, max_tokens, error, aborted, … */
  stopReason: string;
  /** The provider's error kind when the request failed (rate_limit, network, …), never its message. */
  errorKind?: string;
}

/**
 * Where the runtime reports what happened, for telemetry (OpenTelemetry when the user enabled it). Optional;
 * its methods must return at once and never throw. The sink, not the caller, decides what is safe to export.
 */
export interface TelemetrySink {
  toolDecision(report: ToolDecisionReport): void;
  toolResult(report: ToolResultReport): void;
  modelRequest(report: ModelRequestReport): void;
  /** A prompt the user sent to the agent loop. */
  userPrompt(report: { text: string }): void;
  /** Lines the tools changed in one turn (from its change summary). */
  linesChanged(report: { added: number; removed: number; files: number }): void;
  /** A speculative call settled its fate (optional for sinks written before it). */
  speculation?(report: SpeculationReport): void;
}

/**
 * What became of one speculative call: `hit` (its result was used), `miss` (the final input or verdict differed:
 * discarded, the call ran again), `discarded` (the real call never reached its tool: refused, cut short, aborted).
 */
export interface SpeculationReport {
  toolName: string;
  toolUseID: string;
  outcome: "hit" | "miss" | "discarded";
  /** For a hit: whether the result was already there when the block ended. */
  readyAtBlockEnd: boolean;
  /** How long before the block's end the run started (0 if it started after). */
  headStartMs: number;
  /** Run time thrown away (misses and discards). */
  wastedMs: number;
}

/** A skill: a folder with a SKILL.md whose body is instructions for one kind of task (see src/tools/Skill). */
export interface SkillInfo {
  name: string;
  description: string;
  /** The folder; its other files are resources the instructions may point at. */
  dir: string;
  /** The SKILL.md. */
  file: string;
  scope: "project" | "user" | "plugin";
  /** The plugin that brings it: its name is `<plugin>:<skill>`, and its files must stay inside the plugin's folder. */
  plugin?: SkillPlugin;
  /** `allowed-tools` from the front matter: shown, never granted. */
  allowedTools?: string[];
}

export interface SkillPlugin {
  name: string;
  root: string;
}

/** The skills a session knows, including those found near files written since it started. */
export interface SkillCatalogAccess {
  list(): readonly SkillInfo[];
}

export interface ToolUseContext {
  options: ToolUseContextOptions;
  sessionId: string;
  paths: SessionPaths;
  getAppState(): AppState;
  setAppState(update: (prev: AppState) => AppState): void;
  /** The current working directory of the session's shell; relative paths resolve against it. */
  getCwd(): string;
  setCwd(dir: string): void;
  readFileState: FileStateCache;
  abortController: AbortController;
  messages: Message[];
  /** Calls queued or running and not yet done, as the status events tell (see `toolStatus`). */
  getInProgressToolUseIDs(): ReadonlySet<string>;
  /** Every call's status as it changes: queued, validating, awaiting_permission, running, done. */
  toolStatus: ToolStatusBoard;
  /** Set for a subagent's context; read by the Agent tool, transcripts and the status board's consumers. */
  agentId?: string;
  fileHistory: FileHistory;
  /** Snapshots of the working directories around calls that may write anywhere in them (see Tool.writesAnywhere). */
  workspaceSnapshots?: WorkspaceSnapshots;
  tasks: TaskRegistry;
  contentReplacementState: ContentReplacementState;
  /** The agent loop's turn chain and subagent depth (telemetry spans and the depth limit read it). */
  queryTracking?: { chainId: string; depth: number };
  /** Set on the per-call context handed to `call()`. */
  toolUseID?: string;
  /** Set on the per-call context handed to `call()`: what this call's validateInput prepared. */
  validated?: unknown;
  /** Set on the per-call context: the allow that let this call run (Bash picks its sandbox write scope from it). */
  permissionDecision?: PermissionDecision;
  /** The permission rule engine; without one, the tool's own checkPermissions decides (passthrough → ask). */
  permissionDecider?: PermissionDecider;
  hookRunner?: HookRunner;
  /** Environment for child processes and hooks. */
  env: NodeJS.ProcessEnv;
  /** The model, when an agent loop runs (see ModelAccess). */
  models?: ModelAccess;
  /** Who hears about file writes (see FileWriteObserver); the session's list, shared with subagents. */
  fileWriteObservers?: FileWriteObserver[];
  /** Telemetry, when enabled (see TelemetrySink). */
  telemetry?: TelemetrySink;
  /** The session's skills (the Skill tool loads from them); absent: the Skill tool reads them from disk. */
  skills?: SkillCatalogAccess;
  /** Runs subagents for the Agent tool; set by whoever runs the agent loop (absent in `exec` and `mcp serve`). */
  subagents?: SubagentRunner;
  /** This agent's task list (TodoWrite); a subagent has its own. */
  todos?: TodoStore;
  /** Calls already started speculatively while their block streamed; the pipeline claims one instead of calling the tool. */
  speculativeCalls?: SpeculativeCalls;
}

/** A speculative call's run, handed to the real call that adopts it. */
export interface SpeculativeRun {
  /** The tool's result, as `call()` would have returned it. */
  readonly result: Promise<ToolResult<unknown>>;
  /** Progress so far, then progress as it comes. */
  onProgress(listener: (data: unknown) => void): void;
  /** The real call was cancelled: so is this run. */
  abort(reason: unknown): void;
}

/** The real call, at the moment it would call its tool: what a speculation must have checked and run the same. */
export interface SpeculationClaim {
  toolUseID: string;
  tool: AnyTool;
  /** The observable (backfilled) input the real call was judged on. */
  observable: AnyObject;
  decision: PermissionDecision | undefined;
}

export interface SpeculativeCalls {
  /** The speculative run of this call when its input and verdict match the real call's; otherwise undefined (the call runs). */
  claim(call: SpeculationClaim): SpeculativeRun | undefined;
}

export type TodoStatus = "pending" | "in_progress" | "completed";

export interface TodoItem {
  content: string;
  status: TodoStatus;
  /** The present-continuous form shown while the item is in progress ("Running the tests"). */
  activeForm: string;
}

/** The agent's task list, replaced whole by each TodoWrite call. */
export interface TodoStore {
  get(): readonly TodoItem[];
  set(todos: readonly TodoItem[]): void;
}

/** An agent type the Agent tool can start (built-in or from an agent markdown file). */
export interface AgentTypeInfo {
  name: string;
  description: string;
  /** Tool names the subagent may use; absent: every tool a subagent may have. */
  tools?: readonly string[];
  /** `inherit` (the parent's model), `small`, or a model id. */
  model?: string;
  /** `built-in` or the file it came from. */
  source: string;
}

/** One step of a running subagent, streamed as the Agent call's progress. */
export type SubagentProgress =
  | { type: "subagent_tool_use"; agentId: string; toolUseID: string; toolName: string; summary: string }
  | { type: "subagent_tool_result"; agentId: string; toolUseID: string; toolName: string; outcome: string }
  | { type: "subagent_text"; agentId: string; text: string }
  /** For the user: the subagent's hook messages, retries, repeated-call warnings. */
  | { type: "subagent_notice"; agentId: string; level: "info" | "warning" | "error"; message: string };

export interface SubagentRequest {
  description: string;
  prompt: string;
  agentType: string;
  /** The Agent call's id (progress and the transcript name it). */
  toolUseID: string;
  /** The Agent call's context: the subagent shares its permissions, hooks, file history, tasks and status board. */
  parent: ToolUseContext;
  /** The parent's permission gate: the subagent's asks go where the parent's go. */
  canUseTool: CanUseToolFn;
  signal: AbortSignal;
  onProgress?: (step: SubagentProgress) => void;
}

export interface SubagentOutcome {
  agentId: string;
  agentType: string;
  /** The text of the subagent's final message. */
  text: string;
  turns: number;
  durationMs: number;
  usage: { input: number; output: number };
  /** `completed`, `max_turns`, `aborted`, `error`, … (the agent loop's stop reasons). */
  stopReason: string;
  error?: string;
  /** Where the subagent's transcript is, when one is kept. */
  transcriptPath?: string;
}

/** Runs subagents (implemented over the agent loop, which tools may not import). */
export interface SubagentRunner {
  agentTypes(): readonly AgentTypeInfo[];
  /** Never rejects for anything the subagent's model or tools do: failures are in the outcome. */
  run(request: SubagentRequest): Promise<SubagentOutcome>;
}

export type { PermissionMode };

// The hook contract: what the pipeline asks of a hook runner (part of the Tool contract, so in this file).
/** What a hook said that the user (not the model) should see: a systemMessage, a crash, a timeout. */
export interface HookNotice {
  hookEvent: string;
  command: string;
  level: "info" | "warning" | "error";
  message: string;
}

interface HookOutcomeBase {
  /** `continue: false` from any hook: finish this call, then stop the turn. */
  preventContinuation?: { reason: string };
  /** Extra context for the model (hookSpecificOutput.additionalContext). */
  additionalContext: string[];
  notices: HookNotice[];
}

export interface PreToolUseHookOutcome extends HookOutcomeBase {
  /** Combined verdict, deny > ask > allow. Absent when no hook decided. */
  permissionDecision?: { behavior: "allow" | "deny" | "ask"; reason?: string; command?: string; file?: string };
  /** Rewritten input from a hook; the pipeline re-validates it against the tool's schema. */
  updatedInput?: AnyObject;
}

export interface PostToolUseHookOutcome extends HookOutcomeBase {
  /** A hook blocked after the fact (exit 2 or decision: "block"); the model is told why. */
  blockingError?: string;
}

export interface PermissionRequestHookOutcome extends HookOutcomeBase {
  /** A hook answered the permission prompt on the user's behalf. */
  decision?: PermissionDecision;
}

/** What hooks need of a tool: its names. A call to a tool that does not exist has only the name it was called by. */
export type HookToolIdentity = Pick<AnyTool, "name" | "aliases">;

export interface HookCallArgs {
  tool: HookToolIdentity;
  /** The observable (backfilled) input. */
  input: AnyObject;
  toolUseID: string;
  context: ToolUseContext;
}

/** The session-level hook events the agent loop runs (Claude Code's names and protocol). */
export type SessionHookEvent = "UserPromptSubmit" | "SessionStart" | "Stop" | "SubagentStop" | "PreCompact" | "SessionEnd" | "Notification";

/** Why a session ended (Claude Code's SessionEnd reasons). */
export type SessionEndReason = "clear" | "logout" | "prompt_input_exit" | "other";

/** One hook run as it starts and ends, for observers (stream-json's hook_started and hook_response). */
export type HookRunEvent =
  | { type: "started"; hookId: string; hookName: string; hookEvent: string }
  | { type: "response"; hookId: string; hookName: string; hookEvent: string; stdout: string; stderr: string; output: string; exitCode?: number; outcome: "success" | "error" | "cancelled" };

export interface SessionHookOutcome extends HookOutcomeBase {
  /**
   * UserPromptSubmit: the prompt is refused (exit 2 or decision "block"); the reason is for the user.
   * Stop: the model must keep going (exit 2 or decision "block"); the reason is for the model.
   */
  block?: { reason: string };
}

export interface SessionHookArgs {
  context: ToolUseContext;
}

/** Runs configured hooks; injected into the context so the pipeline does not depend on how hooks are stored. */
export interface HookRunner {
  preToolUse(args: HookCallArgs): Promise<PreToolUseHookOutcome>;
  postToolUse(args: HookCallArgs & { response: unknown }): Promise<PostToolUseHookOutcome>;
  postToolUseFailure(args: HookCallArgs & { error: string; isInterrupt: boolean }): Promise<PostToolUseHookOutcome>;
  permissionRequest(args: HookCallArgs & { decision: PermissionDecision }): Promise<PermissionRequestHookOutcome>;
  /** A call denied by a rule, a hook, the mode or the user; it will not run. Optional for runners written before it. */
  permissionDenied?(args: HookCallArgs & { reason: string }): Promise<PostToolUseHookOutcome>;
  /** Before a prompt reaches the model; plain stdout of a hook that exits 0 is added as context. */
  userPromptSubmit?(args: SessionHookArgs & { prompt: string }): Promise<SessionHookOutcome>;
  /** When a session starts or resumes; its matcher matches `source`; plain stdout is added as context. */
  sessionStart?(args: SessionHookArgs & { source: "startup" | "resume" | "clear" | "compact" }): Promise<SessionHookOutcome>;
  /** When the model ends its turn; `stopHookActive` says the model is already continuing because of a Stop hook. */
  stop?(args: SessionHookArgs & { stopHookActive: boolean }): Promise<SessionHookOutcome>;
  /** When a subagent ends its turn; its matcher matches the agent type. May block (the subagent continues). */
  subagentStop?(args: SessionHookArgs & { agentType: string; agentId: string; stopHookActive: boolean }): Promise<SessionHookOutcome>;
  /** Before the history is compacted; its matcher matches the trigger. A block stops a manual compaction. */
  preCompact?(args: SessionHookArgs & { trigger: "manual" | "auto"; customInstructions: string }): Promise<SessionHookOutcome>;
  /** Once, when the session ends; its matcher matches the reason. It cannot block. */
  sessionEnd?(args: SessionHookArgs & { reason: SessionEndReason }): Promise<SessionHookOutcome>;
  /** When the session waits for the user; its matcher matches the notification type. It cannot block. */
  notification?(args: SessionHookArgs & { message: string; notificationType: string }): Promise<SessionHookOutcome>;
  /** Calls `listener` as each hook starts and ends; returns a function that stops it. */
  observe?(listener: (event: HookRunEvent) => void): () => void;
  /** Whether any hook of this event matches the tool; absent: assume one does (speculative calls are then never started). */
  hasToolHooks?(event: "PreToolUse", tool: HookToolIdentity): boolean;
}
