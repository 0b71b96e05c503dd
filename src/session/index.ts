import path from "node:path";
import type { CanUseToolFn, Tools, ToolUseContext } from "../core/Tool.js";
import type { PermissionMode } from "../core/permissionTypes.js";
import { createToolUseContext, getToolgateHome } from "../core/context.js";
import { loadSettings, mergeSettings, formatSettingsLoadError } from "../settings/index.js";
import type { LoadedSettings } from "../settings/types.js";
import { buildPermissionContext, createNonInteractiveCanUseTool, hasPermissionsToUseTool } from "../permissions/index.js";
import { createHookRunner } from "../hooks/index.js";
import { getBuiltinTools } from "../tools/index.js";

export interface SessionOptions {
  /** Project directory; default process.cwd(). */
  cwd?: string;
  /** `--settings FILE`. */
  settingsFile?: string;
  permissionMode?: PermissionMode;
  allowedTools?: readonly string[];
  disallowedTools?: readonly string[];
  addDirs?: readonly string[];
  /** Data home; default TOOLGATE_HOME or ~/.toolgate. */
  home?: string;
  env?: NodeJS.ProcessEnv;
  sessionId?: string;
  /** The tool pool; default every built-in tool. */
  tools?: Tools;
  /** Who answers "ask": default the non-interactive auto-deny. */
  canUseTool?: CanUseToolFn;
}

export interface Session {
  context: ToolUseContext;
  canUseTool: CanUseToolFn;
  settings: LoadedSettings;
  /** Problems the user must hear about: broken settings files, dropped entries. */
  warnings: string[];
  /**
   * Settings that were meant to apply but could not be read at all: the managed policy file or the
   * `--settings` file. Commands that run tools refuse to start rather than run without them.
   */
  fatalErrors: string[];
  /** Stop background tasks and release resources. */
  close(): Promise<void>;
}

/**
 * One session as `toolgate exec` and `toolgate mcp serve` run it: settings from every source, the permission
 * engine, command hooks, the built-in tools, and a non-interactive answer for what would ask.
 */
export function createSession(options: SessionOptions = {}): Session {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const home = options.home ?? getToolgateHome(env);
  const settings = loadSettings({ cwd, home, settingsFile: options.settingsFile, env });
  const warnings = settings.errors.map(formatSettingsLoadError);
  const fatalErrors = settings.errors
    .filter((e) => (e.scope ?? "file") === "file" && (e.source === "policySettings" || e.source === "flagSettings"))
    .map(formatSettingsLoadError);
  const canUseTool = options.canUseTool ?? createNonInteractiveCanUseTool();
  const hookRunner = createHookRunner({ settings, projectDir: cwd, env });
  const permissionContext = buildPermissionContext({
    loaded: settings,
    cwd,
    mode: options.permissionMode,
    allowedTools: options.allowedTools,
    disallowedTools: options.disallowedTools,
    addDirs: options.addDirs,
    nonInteractive: options.canUseTool === undefined,
  });
  const builtinTools = getBuiltinTools();
  const context = createToolUseContext({
    tools: options.tools ?? builtinTools,
    builtinTools,
    cwd,
    home,
    env,
    sessionId: options.sessionId,
    settings: mergeSettings(settings),
    permissionContext,
    permissionDecider: hasPermissionsToUseTool,
    hookRunner,
    isNonInteractiveSession: options.canUseTool === undefined,
  });
  return {
    context,
    canUseTool,
    settings,
    warnings,
    fatalErrors,
    close: () => context.tasks.stopAll(),
  };
}
