import path from "node:path";
import type { PermissionMode } from "../core/permissionTypes.js";
import type { Tools } from "../core/Tool.js";
import { createToolUseContext, getToolgateHome } from "../core/context.js";
import { loadSettings, mergeSettings } from "../settings/load.js";
import { buildPermissionContext, createNonInteractiveCanUseTool, hasPermissionsToUseTool } from "../permissions/index.js";
import { createHookRunner } from "../hooks/index.js";
import type { McpSessionRequest, ToolgateMcpSession } from "./server/createServer.js";

export interface McpSessionFactoryOptions {
  tools: Tools;
  cwd: string;
  home?: string;
  settingsFile?: string;
  mode?: PermissionMode;
  allowedTools?: readonly string[];
  disallowedTools?: readonly string[];
  addDirs?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

/**
 * A session per MCP connection with what `toolgate exec` uses: every settings source, the permission
 * engine, hooks. A client that can elicit gets an interactive session (asks reach its user); any other
 * gets the non-interactive one, where an ask is denied with the rule that would allow it.
 * Settings are read per connection, so a long-running server picks up edited rules for new clients.
 */
export function createMcpSessionFactory(options: McpSessionFactoryOptions): (request: McpSessionRequest) => ToolgateMcpSession {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd);
  const home = options.home ?? getToolgateHome(env);
  return (request) => {
    const loaded = loadSettings({ cwd, home, settingsFile: options.settingsFile, env });
    for (const error of loaded.errors) process.stderr.write(`toolgate: ${error.path}: ${error.message} (file ignored)\n`);
    const nonInteractive = !request.canElicit;
    const context = createToolUseContext({
      tools: options.tools,
      builtinTools: options.tools,
      cwd,
      home,
      env,
      settings: mergeSettings(loaded),
      isNonInteractiveSession: nonInteractive,
      permissionContext: buildPermissionContext({
        loaded,
        cwd,
        mode: options.mode,
        allowedTools: options.allowedTools,
        disallowedTools: options.disallowedTools,
        addDirs: options.addDirs,
        nonInteractive,
      }),
      permissionDecider: hasPermissionsToUseTool,
      hookRunner: createHookRunner({ settings: loaded, projectDir: cwd, env }),
    });
    return { context, canUseTool: createNonInteractiveCanUseTool() };
  };
}
