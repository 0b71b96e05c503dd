import type { McpLoginPrompt } from "../mcp/client/oauth.js";
import fs from "node:fs";
import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import type { CanUseToolFn, Tools, ToolUseContext } from "../core/Tool.js";
import type { PermissionMode } from "../core/permissionTypes.js";
import { createToolUseContext, getToolgateHome, projectKey, transcriptPath } from "../core/context.js";
import { tightenPrivateDirs } from "../util/privateFiles.js";
import { mergeSettings, formatSettingsLoadError, type SettingSourceName } from "../settings/index.js";
import { loadSettings, settingsSections } from "./settings.js";
import type { LoadedSettings } from "../settings/types.js";
import {
  buildPermissionContext,
  createNonInteractiveCanUseTool,
  findRuleToolNameProblems,
  formatRuleToolNameProblem,
  hasPermissionsToUseTool,
  isRuleToolNameTypo,
} from "../permissions/index.js";
import { createHookRunner, type CallbackHook } from "../hooks/index.js";
import { formatMcpConfigError, loadMcpConfig, type ScopedMcpServerConfig } from "../mcp/client/config.js";
import type { McpManager } from "../mcp/client/manager.js";
import { normalizeNameForMcp } from "../core/registry.js";
import { builtinToolNames, getBuiltinTools } from "../tools/index.js";
import { createSandbox, readSandboxSettings, sandboxUnavailableMessage, type Sandbox } from "../sandbox/index.js";
import { readLspSettings, startLsp } from "../lsp/index.js";
import { DiagnosticsTool } from "../tools/Diagnostics/index.js";
import { createComputerTool } from "../tools/Computer/index.js";
import { openExistingDisplay, startApp, startVirtualDisplay, type ComputerDisplay } from "../computer/x11.js";
import { ListMcpResourcesTool, ReadMcpResourceTool } from "../tools/McpResources/index.js";
import { loadSessionPlugins, PLUGIN_ROOT_VARIABLE, type LoadedPlugin, type PluginDir } from "../plugins/index.js";
import { REPLTool, createReplHost, findPython3 } from "../tools/REPL/index.js";
import { decideTrust, folderMcpServers, restrictFolderSettings, type IgnoredSetting, type TrustDecision } from "../trust/index.js";

export interface SessionOptions {
  /** Project directory; default process.cwd(). */
  cwd?: string;
  /** `--settings FILE` (or JSON text). */
  settingsFile?: string;
  /** `--setting-sources`: which of the user, project and local files to read (default all). */
  settingSources?: readonly SettingSourceName[];
  /** `--managed-settings JSON`: a managed layer given by the program that started toolgate. */
  managedSettingsText?: string;
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
   * Of the built-in tools the session would offer (Diagnostics, REPL, computer and the MCP resource tools included,
   * where the session has them), only those with these names or aliases. Ignored when `tools` is given.
   */
  onlyTools?: readonly string[];
  /** Tools offered besides the built-in ones, whichever those are (the StructuredOutput tool of --json-schema). */
  extraTools?: Tools;
  /**
   * Connect the MCP servers of the project's `.mcp.json` and these `--mcp-config` files, adding their tools.
   * Omit to connect none.
   */
  mcpConfigFiles?: readonly string[];
  /** `--strict-mcp-config`: only the `mcpConfigFiles` servers, never the project's `.mcp.json`. */
  strictMcpConfig?: boolean;
  /** Servers the controlling program adds (the Agent SDK's in-process servers, its `mcpServers`); connected with the others. */
  extraMcpServers?: readonly ScopedMcpServerConfig[];
  /**
   * Someone outside answers every ask (the Agent SDK's canUseTool): Bash calls no rule allows are asked,
   * not allowed because the sandbox would contain them.
   */
  noSandboxAutoAllow?: boolean;
  /** Hooks that are the controlling program's functions (the Agent SDK's hook callbacks). */
  hookCallbacks?: readonly CallbackHook[];
  /**
   * A person is at the terminal: an http or sse server that asks for a login gets one at start, its address shown
   * through this function. Without it such a server is reported "needs-auth" (toolgate mcp login).
   */
  mcpLogin?: (prompt: McpLoginPrompt) => void;
  /** Someone can answer "ask" (an interactive UI, an MCP client that elicits). Default false: asks are denied. */
  interactive?: boolean;
  /** Who answers "ask"; default the non-interactive auto-deny. */
  canUseTool?: CanUseToolFn;
  /** `--strict`: a deny or ask rule naming no tool is a fatal error (also on when any settings file sets `permissions.strict`). */
  strict?: boolean;
  /**
   * `--sandbox` (true) / `--no-sandbox` (false): run Bash in the OS sandbox. Undefined: `sandbox.enabled`
   * from settings, else on wherever the platform supports it.
   */
  sandbox?: boolean;
  /**
   * `--trust` (true): use what the folder's own files turn on (hooks, MCP servers, allow rules, provider…)
   * for this run. Undefined: as the trust store and `trustedFolders` say; an untrusted folder's files only narrow.
   */
  trust?: boolean;
  /**
   * `--computer-use`: offer the computer tool, on DISPLAY when it answers, else on a virtual display (Xvfb)
   * the session starts and stops. Without it the tool is offered only when DISPLAY answers.
   */
  computerUse?: boolean;
  /** `--computer-use-app`: a shell command started in the computer tool's display, stopped with the session. */
  computerUseApp?: string;
  /** `--plugin-dir` (and `--plugin-dir-no-mcp`) plugins, added to the installed ones `enabledPlugins` turns on. */
  pluginDirs?: readonly PluginDir[];
}

export interface Session {
  context: ToolUseContext;
  canUseTool: CanUseToolFn;
  settings: LoadedSettings;
  mcp?: McpManager;
  /** Problems the user must hear about: dropped settings entries, rules naming no tool, skipped MCP servers. */
  warnings: string[];
  /**
   * Settings that exist but could not be used at all (invalid JSON, not an object, unreadable, a missing
   * `--settings` file) and, in strict mode, deny or ask rules naming no tool. Commands that run tools refuse
   * to start rather than run without the rules those files hold.
   */
  fatalErrors: string[];
  /** `--strict` or `permissions.strict` in any settings file. */
  strict: boolean;
  /** The OS sandbox Bash runs in (status says whether it is active). */
  sandbox: Sandbox;
  /** Whether the project folder is trusted, and by what. */
  trust: TrustDecision;
  /** What the folder's files would turn on and were set aside because it is not trusted (empty when trusted). */
  untrusted: IgnoredSetting[];
  /** The display the computer tool operates, when it is offered. */
  computer?: ComputerDisplay;
  /** The plugins of this session: their commands, agents and skills are read by the agent setup. */
  plugins: readonly LoadedPlugin[];
  /** Stop background tasks, disconnect MCP servers. */
  close(): Promise<void>;
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

export interface FolderTrust {
  trust: TrustDecision;
  /** All settings, as if the folder were trusted. */
  all: LoadedSettings;
  /** The settings the session uses: the folder's files narrowed unless it is trusted. */
  settings: LoadedSettings;
  /** What the folder's files would turn on and were set aside (empty when trusted). */
  untrusted: IgnoredSetting[];
  /** The plugins, with the hooks and servers of those inside an untrusted folder left out. */
  plugins: LoadedPlugin[];
  /** Plugins that could not be loaded, or parts of them. */
  pluginWarnings: string[];
}

/** Whether the project folder is trusted, and what its files turn on that waits for trust. Reads files only. */
export function inspectFolderTrust(options: Pick<SessionOptions, "cwd" | "settingsFile" | "settingSources" | "managedSettingsText" | "home" | "env" | "tools" | "trust" | "pluginDirs">): FolderTrust {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const home = options.home ?? getToolgateHome(env);
  const all = loadSettings({ cwd, home, settingsFile: options.settingsFile, settingSources: options.settingSources, managedSettingsText: options.managedSettingsText, env, sections: settingsSections(options.tools ?? getBuiltinTools()) });
  const trust = decideTrust({ cwd, home, loaded: all, flag: options.trust, userHome: env.HOME });
  const plugins = (settings: typeof all) => loadSessionPlugins({ home, files: settings.files, pluginDirs: options.pluginDirs, folder: trust.folder, trusted: trust.trusted, env });
  if (trust.trusted) {
    const loaded = plugins(all);
    return { trust, all, settings: all, untrusted: [], plugins: loaded.plugins, pluginWarnings: loaded.warnings };
  }
  const restricted = restrictFolderSettings(all);
  const servers = folderMcpServers(cwd);
  const loaded = plugins(restricted.loaded);
  return { trust, all, settings: restricted.loaded, untrusted: [...restricted.ignored, ...(servers ? [servers] : []), ...loaded.untrusted], plugins: loaded.plugins, pluginWarnings: loaded.warnings };
}

/**
 * The display of the computer tool, only with --computer-use (a tool that can reach the whole desktop is never
 * offered by default): DISPLAY when it answers, else a new Xvfb.
 */
async function openComputerDisplay(options: SessionOptions, env: NodeJS.ProcessEnv, warnings: string[]): Promise<ComputerDisplay | undefined> {
  if (!options.computerUse) return undefined;
  const existing = env.DISPLAY ? await openExistingDisplay(env.DISPLAY) : undefined;
  if (existing) {
    if (options.computerUseApp) startApp(existing.display, options.computerUseApp, existing);
    return existing;
  }
  try {
    return await startVirtualDisplay({ app: options.computerUseApp });
  } catch (err) {
    warnings.push(`--computer-use: the computer tool is not offered: ${(err as Error).message}`);
    return undefined;
  }
}

/**
 * One session as `toolgate exec` and `toolgate mcp serve` run it: settings from every source, the permission
 * engine, command hooks, the built-in tools (plus MCP tools when asked), and an answer for what would ask.
 */
export async function createSession(options: SessionOptions = {}): Promise<Session> {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const home = options.home ?? getToolgateHome(env);
  // Folders an older toolgate made readable by others (0755): what is in them is this user's alone. A data home
  // that is the user's own home directory (TOOLGATE_HOME=~) is left as it is.
  const projectsDir = path.join(home, "projects");
  tightenPrivateDirs([...(path.resolve(home) === os.homedir() ? [] : [home]), projectsDir, path.join(projectsDir, projectKey(cwd))]);
  // Until the person trusts this folder, its own files may only narrow what toolgate does.
  const { trust, settings, untrusted, plugins, pluginWarnings } = inspectFolderTrust({ ...options, cwd, home, env });
  const merged = mergeSettings(settings);
  const isFileError = (e: (typeof settings.errors)[number]) => (e.scope ?? "file") === "file";
  const warnings = [...settings.errors.filter((e) => !isFileError(e)).map(formatSettingsLoadError), ...pluginWarnings];
  const fatalErrors = settings.errors.filter(isFileError).map(formatSettingsLoadError);
  if (trust.storeError) warnings.push(trust.storeError);
  const strict = options.strict === true || settings.files.some((f) => f.settings.permissions?.strict === true);

  // An unusable settings file may be the one that turns auto-allow off: judge as if it did.
  const configuredSandbox = readSandboxSettings(merged);
  const sandboxSettings = fatalErrors.length || options.noSandboxAutoAllow ? { ...configuredSandbox, autoAllowBashIfSandboxed: false } : configuredSandbox;
  const sandbox = await createSandbox({ settings: sandboxSettings, enabled: options.sandbox });
  if (sandbox.status === "unavailable") warnings.push(sandboxUnavailableMessage(sandbox));

  const interactive = options.interactive ?? false;
  // Language servers start on the first edit of one of their files; the Diagnostics tool exists only with them.
  const lspServers = readLspSettings(merged);
  const lsp = Object.keys(lspServers).length ? await startLsp({ servers: lspServers, cwd, env, trusted: trust.trusted }) : undefined;
  // The REPL is offered only where python3 is on the session's PATH; the computer tool only with a display it can reach.
  const python = findPython3(env);
  const computer = options.tools ? undefined : await openComputerDisplay(options, env, warnings);
  const defaultTools = [...getBuiltinTools(), ...(lsp ? [DiagnosticsTool] : []), ...(python ? [REPLTool] : []), ...(computer ? [createComputerTool(computer)] : [])];
  const permissionContext = buildPermissionContext({
    loaded: settings,
    cwd,
    mode: options.permissionMode,
    allowedTools: options.allowedTools,
    disallowedTools: options.disallowedTools,
    addDirs: options.addDirs,
    nonInteractive: !interactive,
  });

  let mcp: McpManager | undefined;
  let mcpConfig: ReturnType<typeof loadMcpConfig> | undefined;
  // A broken settings file may hold the deny rules for these servers' tools: start none of them.
  if (options.mcpConfigFiles !== undefined && fatalErrors.length > 0) {
    warnings.push("MCP servers were not started, because a settings file is unusable");
  } else if (options.mcpConfigFiles !== undefined) {
    mcpConfig = loadMcpConfig({
      projectDir: cwd,
      home,
      configFiles: options.mcpConfigFiles,
      env,
      skipProjectConfig: !trust.trusted || options.strictMcpConfig === true,
      skipPersonalConfig: options.strictMcpConfig === true,
    });
    warnings.push(...mcpConfig.errors.map(formatMcpConfigError));
    // The controlling program's own servers replace file servers of the same name.
    const extra = options.extraMcpServers ?? [];
    if (extra.length) mcpConfig = { ...mcpConfig, servers: [...mcpConfig.servers.filter((s) => !extra.some((e) => e.name === s.name)), ...extra] };
    // A plugin's server never displaces one of the person's own: a tool-name clash leaves the plugin's out.
    const taken = new Map(mcpConfig.servers.map((s) => [normalizeNameForMcp(s.name), s.name]));
    const pluginServers = plugins.flatMap((p) => p.mcpServers).filter((server) => {
      const other = taken.get(normalizeNameForMcp(server.name));
      if (other !== undefined) warnings.push(`${server.source}: server "${server.name}" was not started: its tool names (mcp__${normalizeNameForMcp(server.name)}__…) would clash with server "${other}"`);
      else taken.set(normalizeNameForMcp(server.name), server.name);
      return other === undefined;
    });
    if (pluginServers.length) mcpConfig = { ...mcpConfig, servers: [...mcpConfig.servers, ...pluginServers] };
  }
  if (mcpConfig && mcpConfig.servers.length > 0) {
    // The MCP SDK is loaded only when a server is configured: it is most of a cold start otherwise.
    const { connectMcpServers } = await import("../mcp/client/manager.js");
    mcp = await connectMcpServers(mcpConfig.servers, {
      settings: merged,
      env,
      oauth: { home, ...(options.mcpLogin ? { login: { onAuthorizationUrl: options.mcpLogin } } : {}) },
      // a sandboxed server may write the working directories, like a command a rule allows
      sandboxWrap: (commandLine, serverName) =>
        sandbox.wrap(commandLine, { permissionContext, scope: "workingDirectories", commandId: `mcp:${serverName}:${randomUUID()}` }),
    });
    for (const client of mcp.clients) {
      if (client.status !== "connected") warnings.push(`MCP server ${client.name} is ${client.status}${client.error ? `: ${client.error}` : ""}`);
    }
  }

  // The resource tools exist in sessions with MCP servers (a caller's own tool list is kept as given).
  const sessionTools = mcp?.clients.length ? [...defaultTools, ListMcpResourcesTool, ReadMcpResourceTool] : defaultTools;
  const only = options.onlyTools;
  const offeredTools = options.tools ?? (only ? sessionTools.filter((t) => only.includes(t.name) || t.aliases?.some((a) => only.includes(a))) : sessionTools);
  const builtinTools = options.extraTools?.length ? [...offeredTools, ...options.extraTools] : offeredTools;

  // A directory from settings may be missing on this machine (settings travel): say so, but it is not a usage error.
  for (const dir of permissionContext.additionalWorkingDirectories) {
    if (dir.source === "cliArg" || isDirectory(dir.path)) continue;
    warnings.push(`${dir.file ?? dir.source}: permissions.additionalDirectories: ${dir.path} is not an existing directory`);
  }

  // Rules naming no tool never match: say so now (did you mean …?), and in strict mode refuse a deny or ask rule.
  const ruleToolNames = findRuleToolNameProblems(permissionContext.rules, {
    toolNames: [...builtinToolNames(), ...[...builtinTools, ...(mcp?.tools() ?? [])].flatMap((t) => [t.name, ...(t.aliases ?? [])])],
    mcpServers: mcp && new Map(mcp.clients.map((c) => [normalizeNameForMcp(c.name), c.status === "connected" ? c.tools.map((t) => t.name) : undefined])),
  });
  for (const problem of ruleToolNames.filter(isRuleToolNameTypo)) {
    const text = formatRuleToolNameProblem(problem);
    if (strict && problem.kind === "unknownTool" && problem.rule.ruleBehavior !== "allow") fatalErrors.push(`strict mode: ${text}`);
    else warnings.push(text);
  }

  // The sandbox is a field the sandbox module adds to the context: core does not know it.
  const context: ToolUseContext = {
    ...createToolUseContext({
      tools: builtinTools,
      builtinTools,
      refreshTools: mcp?.toolPool(builtinTools),
      mcpClients: mcp?.clients,
      cwd,
      home,
      env,
      sessionId: options.sessionId,
      settings: merged,
      permissionContext,
      permissionDecider: hasPermissionsToUseTool,
      hookRunner: createHookRunner({
        settings,
        projectDir: cwd,
        // Claude Code's hooks read the transcript; empty until the agent loop has written one (or never, unsaved).
        transcriptPath: (id) => {
          const file = transcriptPath(home, cwd, id);
          return fs.existsSync(file) ? file : "";
        },
        env,
        callbacks: options.hookCallbacks,
        pluginHooks: plugins.flatMap((p) => p.hooks.map((h) => ({ ...h, env: { [PLUGIN_ROOT_VARIABLE]: p.root, TOOLGATE_PLUGIN_ROOT: p.root } }))),
      }),
      isNonInteractiveSession: !interactive,
    }),
    sandbox,
  };
  const repl = python ? createReplHost(python) : undefined;
  if (repl) context.repl = repl;
  if (lsp) {
    context.lsp = lsp;
    (context.fileWriteObservers ??= []).push(lsp.observer);
  }
  return {
    context,
    canUseTool: options.canUseTool ?? createNonInteractiveCanUseTool(),
    settings,
    mcp,
    warnings,
    fatalErrors,
    strict,
    sandbox,
    trust,
    untrusted,
    computer,
    plugins,
    async close() {
      await computer?.close();
      await context.tasks.stopAll();
      context.workspaceSnapshots?.close();
      await repl?.close();
      await mcp?.close();
      await lsp?.close();
      await sandbox.close();
    },
  };
}
