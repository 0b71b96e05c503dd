import path from "node:path";
import { readFileSync } from "node:fs";
import type { PermissionMode } from "../core/permissionTypes.js";
import { createSession, type Session, type SessionOptions } from "../session/index.js";
import { toolToAPISchema } from "../core/apiSchema.js";
import { findToolByName, getCurrentTools, isDeferredTool } from "../core/registry.js";
import { explainPermission } from "../permissions/index.js";
import { runMcpList, runMcpServe } from "../mcp/index.js";
import { getBuiltinTools } from "../tools/index.js";
import { runExec } from "./exec.js";

/** Flags shared by every command that builds a session. */
export interface SessionFlags {
  cwd?: string;
  settings?: string;
  permissionMode?: PermissionMode;
  allowedTools?: string[];
  disallowedTools?: string[];
  addDir?: string[];
  mcpConfig?: string[];
}

export function sessionOptionsFromFlags(flags: SessionFlags): SessionOptions {
  return {
    cwd: path.resolve(flags.cwd ?? process.cwd()),
    settingsFile: flags.settings,
    permissionMode: flags.permissionMode,
    allowedTools: flags.allowedTools,
    disallowedTools: flags.disallowedTools,
    addDirs: flags.addDir,
  };
}

function version(): string {
  return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

async function openSession(flags: SessionFlags, extra: Partial<SessionOptions> = {}): Promise<Session> {
  const session = await createSession({ ...sessionOptionsFromFlags(flags), ...extra });
  for (const warning of session.warnings) process.stderr.write(`[toolgate] warning: ${warning}\n`);
  return session;
}

/** Commands that run tools refuse to start without the managed policy or the --settings file they were given. */
function refuseWithoutRequiredSettings(session: Session): boolean {
  if (session.fatalErrors.length === 0) return false;
  process.stderr.write(
    `toolgate: refusing to run tools: ${session.fatalErrors.length === 1 ? "a settings file that must apply is" : "settings files that must apply are"} unusable. Fix it and run again.\n`,
  );
  return true;
}

export async function execCommand(flags: SessionFlags & { verbose?: boolean }): Promise<number> {
  const session = await openSession(flags, { mcpConfigFiles: flags.mcpConfig ?? [] });
  if (refuseWithoutRequiredSettings(session)) {
    await session.close();
    return 2;
  }
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    process.stderr.write("[toolgate] interrupted: cancelling running tools (press Ctrl-C again to quit now)\n");
    session.context.abortController.abort();
  };
  // Node's default SIGTERM skips cleanup: stop the tools' process trees first.
  const onSigterm = () => {
    session.context.abortController.abort();
    void session.close().finally(() => process.exit(143));
  };
  process.on("SIGINT", onSigint);
  process.once("SIGTERM", onSigterm);
  try {
    const summary = await runExec(session, {
      input: process.stdin,
      output: process.stdout,
      diagnostics: process.stderr,
      verbose: flags.verbose,
    });
    if (flags.verbose) {
      process.stderr.write(`[toolgate] ${summary.lines} lines, ${summary.toolUses} tool uses, ${summary.malformed} malformed\n`);
    }
    return interrupts > 0 ? 130 : 0;
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
    await session.close();
  }
}

/** isReadOnly of a tool whose answer depends on its input (Bash) may throw on an empty one. */
function safeFlag(read: () => boolean): boolean | "depends on input" {
  try {
    return read();
  } catch {
    return "depends on input";
  }
}

export async function toolsCommand(flags: SessionFlags & { json?: boolean }): Promise<number> {
  const session = await openSession(flags, { mcpConfigFiles: flags.mcpConfig ?? [] });
  try {
    const tools = getCurrentTools(session.context);
    const options = { tools, permissionContext: session.context.getAppState().toolPermissionContext };
    const described = await Promise.all(
      tools.map(async (tool) => ({
        ...(await toolToAPISchema(tool, options)),
        aliases: tool.aliases ?? [],
        deferred: isDeferredTool(tool),
        readOnly: safeFlag(() => tool.isReadOnly({})),
      })),
    );
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(described, null, 2)}\n`);
    } else {
      const width = Math.max(4, ...described.map((t) => t.name.length));
      for (const t of described) {
        const firstLine = t.description.split("\n").find((l) => l.trim()) ?? "";
        const tags = [t.aliases.length ? `alias ${t.aliases.join(", ")}` : "", t.deferred ? "deferred" : ""].filter(Boolean).join("; ");
        process.stdout.write(`${t.name.padEnd(width)}  ${firstLine}${tags ? ` [${tags}]` : ""}\n`);
      }
    }
    return 0;
  } finally {
    await session.close();
  }
}

export async function explainCommand(toolName: string, input: string, flags: SessionFlags): Promise<number> {
  const session = await openSession(flags, { mcpConfigFiles: flags.mcpConfig ?? [] });
  try {
    const tool = findToolByName(getCurrentTools(session.context), toolName);
    if (!tool) {
      process.stderr.write(`toolgate: no such tool: ${toolName}. Run "toolgate tools" to list them.\n`);
      return 2;
    }
    const { text } = await explainPermission(tool, input, session.context);
    process.stdout.write(`${text}\n`);
    return 0;
  } finally {
    await session.close();
  }
}

export async function mcpListCommand(flags: SessionFlags & { json?: boolean }): Promise<number> {
  const session = await openSession(flags);
  try {
    return await runMcpList({
      projectDir: session.context.getAppState().toolPermissionContext.cwd,
      configFiles: flags.mcpConfig,
      settings: session.context.options.settings,
      json: flags.json,
    });
  } finally {
    await session.close();
  }
}

export async function mcpServeCommand(flags: SessionFlags & { http?: string }): Promise<number> {
  const probe = await openSession(flags);
  await probe.close();
  if (refuseWithoutRequiredSettings(probe)) return 2;
  // ToolSearch only matters to a model with deferred tools; an MCP client already sees every served tool.
  const tools = getBuiltinTools().filter((t) => t.name !== "ToolSearch");
  return runMcpServe({
    tools,
    // One session per connection, settings read afresh, so a long-running server sees edited rules.
    createSession: async (request) => {
      const session = await createSession({ ...sessionOptionsFromFlags(flags), tools, interactive: request.canElicit });
      return { context: session.context, canUseTool: session.canUseTool, close: () => session.close() };
    },
    http: flags.http === undefined ? undefined : Number(flags.http),
    serverInfo: { name: "toolgate", version: version() },
  });
}
