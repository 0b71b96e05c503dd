import type { z } from "zod";
import type { AssistantMessage, Message, ToolResultBlockParam } from "./messages.js";
import type { PermissionDecision, PermissionMode, PermissionResult, ToolPermissionContext } from "./permissionTypes.js";
import type { FileStateCache } from "./fileStateCache.js";
import type { FileHistory } from "./fileHistory.js";
import type { TaskRegistry } from "./tasks.js";
import type { HookRunner } from "./hookTypes.js";
import type { Settings } from "../settings/types.js";
import type { Sandbox } from "../sandbox/index.js";

/** A raw JSON Schema object, as MCP servers describe their tools. */
export type JSONSchema = { type?: string; [key: string]: unknown };

export type AnyObject = Record<string, unknown>;

export type ValidationResult = { result: true } | { result: false; message: string; errorCode: number };

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

  // schemas
  readonly inputSchema: z.ZodType<Input, unknown>;
  readonly inputJSONSchema?: JSONSchema;
  readonly outputSchema?: z.ZodType;

  // text for the model and the user
  description(input: Partial<Input>, options: PromptOptions): string | Promise<string>;
  prompt(options: PromptOptions): string | Promise<string>;
  userFacingName(input?: Partial<Input>): string;

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
  isEnabled(): boolean;
  interruptBehavior?(): "cancel" | "block";
  isResultTruncated?(output: Output): boolean;
  toAutoClassifierInput(input: Input): unknown;
  /** Results larger than min(this, 50 000) chars are persisted to disk; Infinity = never. */
  readonly maxResultSizeChars: number;
  /** The absolute path the call acts on; relative paths resolve against `context.getCwd()`. */
  getPath?(input: Input, context?: ToolUseContext): string;
  /** Mutates a shallow clone of the input that hooks and permission checks see (e.g. absolute paths). */
  backfillObservableInput?(input: Input, context: ToolUseContext): void;
  /** Returns a predicate deciding whether a rule's content (`Tool(content)`) matches this input. */
  preparePermissionMatcher?(input: Input): Promise<(ruleContent: string) => boolean>;
  inputsEquivalent?(a: Input, b: Input): boolean;
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
  mcpClients: readonly McpClientInfo[];
  mainLoopModel: string;
  debug: boolean;
  verbose: boolean;
  isNonInteractiveSession: boolean;
  /** Latest tool list (MCP servers may change theirs mid-session). */
  refreshTools?: () => Tools;
  /** Parallel batch cap; defaults to TOOLGATE_MAX_TOOL_USE_CONCURRENCY or 10. */
  maxToolUseConcurrency?: number;
  /** The merged settings of every source (later sources win), for tool options such as grep.timeoutMs. */
  settings: Settings;
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
  setInProgressToolUseIDs(update: (prev: ReadonlySet<string>) => ReadonlySet<string>): void;
  agentId?: string;
  fileHistory: FileHistory;
  tasks: TaskRegistry;
  contentReplacementState: ContentReplacementState;
  queryTracking?: { chainId: string; depth: number };
  /** Set on the per-call context handed to `call()`. */
  toolUseId?: string;
  /** Set on the per-call context: the allow that let this call run (Bash picks its sandbox write scope from it). */
  permissionDecision?: PermissionDecision;
  /** The session's OS sandbox for Bash; absent means commands run unsandboxed. */
  sandbox?: Sandbox;
  /** The permission rule engine; without one, the tool's own checkPermissions decides (passthrough → ask). */
  permissionDecider?: PermissionDecider;
  hookRunner?: HookRunner;
  /** Environment for child processes and hooks. */
  env: NodeJS.ProcessEnv;
}

export type { PermissionMode };
