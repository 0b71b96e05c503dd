import path from "node:path";
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import type { AppState, HookRunner, McpClientInfo, ModelAccess, PermissionDecider, SessionPaths, SettingsSectionSchema, TodoItem, TodoStore, ToolUseContext, Tools } from "./Tool.js";
import type { Message } from "./messages.js";
import type { PermissionMode, ToolPermissionContext } from "./permissionTypes.js";
import { getToolgateHome } from "../util/home.js";
import { createFileStateCache, type FileStateCache } from "./fileStateCache.js";
import { createFileHistory, type FileHistory } from "./fileHistory.js";
import { createWorkspaceSnapshots, type WorkspaceSnapshots } from "./workspaceSnapshot.js";
import { createToolStatusBoard, type ToolStatusBoard } from "./pipeline/status.js";
import { createTaskRegistry, type TaskRegistry } from "./tasks.js";


export { getToolgateHome };

/** A project's folder name under `<home>/projects`: its absolute path with every non-alphanumeric as `-`. */
export function projectKey(cwd: string): string {
  return path.resolve(cwd).replace(/[^A-Za-z0-9]/g, "-");
}

/** Where a session's transcript is kept (written by the agent loop; hooks are told of it). */
export function transcriptPath(home: string, cwd: string, sessionId: string): string {
  return path.join(home, "projects", projectKey(cwd), `${sessionId}.jsonl`);
}

export function getSessionPaths(home: string, cwd: string, sessionId: string): SessionPaths {
  const sessionDir = path.join(home, "projects", projectKey(cwd), sessionId);
  return { home, sessionDir, toolResultsDir: path.join(sessionDir, "tool-results") };
}

export function createEmptyPermissionContext(cwd: string, mode: PermissionMode = "default"): ToolPermissionContext {
  return {
    mode,
    cwd: path.resolve(cwd),
    additionalWorkingDirectories: [],
    rules: [],
    shouldAvoidPermissionPrompts: false,
  };
}

export interface CreateToolUseContextOptions {
  tools: Tools;
  cwd?: string;
  sessionId?: string;
  /** Defaults to TOOLGATE_HOME or ~/.toolgate. */
  home?: string;
  builtinTools?: Tools;
  mcpClients?: readonly McpClientInfo[];
  mainLoopModel?: string;
  debug?: boolean;
  verbose?: boolean;
  isNonInteractiveSession?: boolean;
  refreshTools?: () => Tools;
  maxToolUseConcurrency?: number;
  settings?: Readonly<Record<string, unknown>>;
  permissionContext?: ToolPermissionContext;
  permissionDecider?: PermissionDecider;
  hookRunner?: HookRunner;
  abortController?: AbortController;
  messages?: Message[];
  readFileState?: FileStateCache;
  fileHistory?: FileHistory;
  workspaceSnapshots?: WorkspaceSnapshots;
  tasks?: TaskRegistry;
  env?: NodeJS.ProcessEnv;
  agentId?: string;
  /** Share one board between contexts (a subagent's calls showing in the parent's UI). */
  toolStatus?: ToolStatusBoard;
  models?: ModelAccess;
  todos?: TodoStore;
}

/** The session's dependency container, with every stateful part created fresh unless supplied. */
export function createToolUseContext(options: CreateToolUseContextOptions): ToolUseContext {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const sessionId = options.sessionId ?? randomUUID();
  const paths = getSessionPaths(options.home ?? getToolgateHome(env), cwd, sessionId);
  const isNonInteractiveSession = options.isNonInteractiveSession ?? false;

  let appState: AppState = {
    toolPermissionContext: options.permissionContext ?? {
      ...createEmptyPermissionContext(cwd),
      shouldAvoidPermissionPrompts: isNonInteractiveSession,
    },
    loadedDeferredTools: new Set(),
  };
  let shellCwd = cwd;
  const toolStatus = options.toolStatus ?? createToolStatusBoard();

  return {
    options: {
      tools: options.tools,
      builtinTools: options.builtinTools,
      mcpClients: options.mcpClients ?? [],
      mainLoopModel: options.mainLoopModel ?? "",
      debug: options.debug ?? false,
      verbose: options.verbose ?? false,
      isNonInteractiveSession,
      refreshTools: options.refreshTools,
      maxToolUseConcurrency: options.maxToolUseConcurrency,
      settings: options.settings ?? {},
    },
    sessionId,
    paths,
    getAppState: () => appState,
    setAppState: (update) => {
      appState = update(appState);
    },
    getCwd: () => shellCwd,
    setCwd: (dir) => {
      shellCwd = path.resolve(shellCwd, dir);
    },
    readFileState: options.readFileState ?? createFileStateCache(),
    abortController: options.abortController ?? new AbortController(),
    messages: options.messages ?? [],
    getInProgressToolUseIDs: () => toolStatus.inProgress(),
    toolStatus,
    agentId: options.agentId,
    fileHistory: options.fileHistory ?? createFileHistory(path.join(paths.sessionDir, "file-history")),
    workspaceSnapshots: options.workspaceSnapshots ?? createWorkspaceSnapshots(path.join(paths.sessionDir, "file-history", "workspace"), [paths.home]),
    tasks: options.tasks ?? createTaskRegistry(),
    contentReplacementState: { seen: new Set(), replacements: new Map() },
    permissionDecider: options.permissionDecider,
    hookRunner: options.hookRunner,
    env,
    ...(options.models ? { models: options.models } : {}),
    todos: options.todos ?? createTodoStore(),
  };
}

/** An empty task list for one agent (TodoWrite replaces it whole). */
export function createTodoStore(initial: readonly TodoItem[] = []): TodoStore {
  let todos: readonly TodoItem[] = initial;
  return {
    get: () => todos,
    set: (next) => {
      todos = next.map((t) => ({ ...t }));
    },
  };
}

/** A section of the merged settings, parsed by its owner's schema; undefined when it is absent or does not fit. */
export function readSettingsSection<S extends z.ZodType>(context: ToolUseContext, section: SettingsSectionSchema<S>): z.infer<S> | undefined {
  const value = context.options.settings[section.key];
  if (value === undefined) return undefined;
  const parsed = section.schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** Restore the files changed since `messageId` (that message included); see FileHistory.rewind. */
export function rewindFiles(context: ToolUseContext, messageId: string) {
  const result = context.fileHistory.rewind(messageId);
  for (const file of [...result.restored, ...result.deleted]) context.readFileState.delete(file);
  return result;
}
