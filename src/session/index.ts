import path from "node:path";
import type { CanUseToolFn, Tools, ToolUseContext } from "../core/Tool.js";
import type { PermissionMode } from "../core/permissionTypes.js";
import { createToolUseContext, getToolgateHome } from "../core/context.js";
import { loadSettings, mergeSettings, formatSettingsLoadError } from "../settings/index.js";
import type { LoadedSettings } from "../settings/types.js";
import { buildPermissionContext, createNonInteractiveCanUseTool, hasPermissionsToUseTool } from "../permissions/index.js";
import { createHookRunner } from "../hooks/index.js";
import { connectMcpServers, formatMcpConfigError, loadMcpConfig, type McpManager } from "../mcp/index.js";
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
  /** The built-in tools of the session; default every built-in tool. */
  tools?: Tools;
  /**
   * Connect the MCP servers of the project's `.mcp.json` and these `--mcp-config` files, adding their tools.
   * Omit to connect none.
   */
  mcpConfigFiles?: readonly string[];
  /** Someone can answer "ask" (an interactive UI, an MCP client that elicits). Default false: asks are denied. */
  interactive?: boolean;
  /** Who answers "ask"; default the non-interactive auto-deny. */
  canUseTool?: CanUseToolFn;
}

export interface Session {
  context: ToolUseContext;
  canUseTool: CanUseToolFn;
  settings: LoadedSettings;
  mcp?: McpManager;
  /** Problems the user must hear about: broken settings files, dropped entries, skipped MCP servers. */
  warnings: string[];
  /**
   * Settings that were meant to apply but could not be read at all: the managed policy file or the
   * `--settings` file. Commands that run tools refuse to start rather than run without them.
   */
  fatalErrors: string[];
  /** Stop background tasks, disconnect MCP servers. */
  close(): Promise<void>;
}

/**
 * One session as `toolgate exec` and `toolgate mcp serve` run it: settings from every source, the permission
 * engine, command hooks, the built-in tools (plus MCP tools when asked), and an answer for what would ask.
 */
export async function createSession(options: SessionOptions = {}): Promise<Session> {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const home = options.home ?? getToolgateHome(env);
  const settings = loadSettings({ cwd, home, settingsFile: options.settingsFile, env });
  const merged = mergeSettings(settings);
  const warnings = settings.errors.map(formatSettingsLoadError);
  const fatalErrors = settings.errors
    .filter((e) => (e.scope ?? "file") === "file" && (e.source === "policySettings" || e.source === "flagSettings"))
    .map(formatSettingsLoadError);

  let mcp: McpManager | undefined;
  if (options.mcpConfigFiles !== undefined) {
    const config = loadMcpConfig({ projectDir: cwd, configFiles: options.mcpConfigFiles, env });
    warnings.push(...config.errors.map(formatMcpConfigError));
    mcp = await connectMcpServers(config.servers, { settings: merged, env });
    for (const client of mcp.clients) {
      if (client.status !== "connected") warnings.push(`MCP server ${client.name} is ${client.status}${client.error ? `: ${client.error}` : ""}`);
    }
  }

  const interactive = options.interactive ?? false;
  const builtinTools = options.tools ?? getBuiltinTools();
  const context = createToolUseContext({
    tools: builtinTools,
    builtinTools,
    refreshTools: mcp?.toolPool(builtinTools),
    mcpClients: mcp?.clients,
    cwd,
    home,
    env,
    sessionId: options.sessionId,
    settings: merged,
    permissionContext: buildPermissionContext({
      loaded: settings,
      cwd,
      mode: options.permissionMode,
      allowedTools: options.allowedTools,
      disallowedTools: options.disallowedTools,
      addDirs: options.addDirs,
      nonInteractive: !interactive,
    }),
    permissionDecider: hasPermissionsToUseTool,
    hookRunner: createHookRunner({ settings, projectDir: cwd, env }),
    isNonInteractiveSession: !interactive,
  });
  return {
    context,
    canUseTool: options.canUseTool ?? createNonInteractiveCanUseTool(),
    settings,
    mcp,
    warnings,
    fatalErrors,
    async close() {
      await context.tasks.stopAll();
      await mcp?.close();
    },
  };
}
