import { createSession, type Session, type SessionOptions } from "../session/index.js";
import { toolToAPISchema } from "../providers/toolSchemas.js";
import { findToolByName, getCurrentTools, isDeferredTool } from "../core/registry.js";
import { explainPermission, parseExplainInput } from "../permissions/index.js";
import { suggestToolName } from "../core/toolNames.js";
import { getBuiltinTools } from "../tools/index.js";
import { webSearchBackend } from "../tools/WebSearch/index.js";
import { BASH_TOOL_NAME } from "../tools/Bash/prompt.js";
import { onSignals, signalExitCode, TERMINATION_SIGNALS } from "../core/termination.js";
import { stopTrackedTrees } from "../util/processTree.js";
import { runExec } from "./exec.js";
import { packageVersion } from "./version.js";
import { startTelemetry } from "../telemetry/index.js";
import { UsageError } from "./errors.js";
import { untrustedNotice } from "../trust/index.js";
import { parsePort, parsePositiveInteger, sessionOptionsFromFlags, type SessionFlags } from "./flags.js";

export { sessionOptionsFromFlags, type SessionFlags } from "./flags.js";

/**
 * A session for a command that runs tools ("run") or one that only reports ("report"). Reports go on with
 * unusable settings and say so; commands that run tools leave that to refuseWithoutUsableSettings.
 */
export async function openSession(flags: SessionFlags, extra: Partial<SessionOptions> = {}, purpose: "run" | "report" = "report"): Promise<Session> {
  const session = await createSession({ ...sessionOptionsFromFlags(flags), ...extra });
  if (session.untrusted.length > 0) process.stderr.write(`${untrustedNotice(session.trust.folder, session.untrusted)}\n`);
  if (purpose === "run" && session.fatalErrors.length > 0) return session;
  for (const warning of session.warnings) process.stderr.write(`[toolgate] warning: ${warning}\n`);
  for (const error of session.fatalErrors) {
    process.stderr.write(`[toolgate] error: ${error} (toolgate exec and mcp serve refuse to run until this is fixed)\n`);
  }
  return session;
}

/**
 * Fail closed: a settings file that exists but cannot be used may hold deny rules, so commands that run
 * tools do not start without it. One line per problem, naming the file and where it breaks.
 */
function refuseWithoutUsableSettings(session: Session): boolean {
  if (session.fatalErrors.length === 0) return false;
  for (const error of session.fatalErrors) process.stderr.write(`toolgate: refusing to run tools: ${error}\n`);
  return true;
}

export async function execCommand(flags: SessionFlags & { verbose?: boolean }): Promise<number> {
  const session = await openSession(flags, { mcpConfigFiles: flags.mcpConfig ?? [] }, "run");
  if (refuseWithoutUsableSettings(session)) {
    await session.close();
    return 2;
  }
  if (process.stdin.isTTY) {
    process.stderr.write(
      "toolgate exec reads tool calls from stdin, one JSON value per line (an assistant message or a tool_use block), and prints one result line for each. Type them here and end with Ctrl-D, or pipe a file in: toolgate exec < calls.jsonl\n",
    );
  }
  // Opt-in telemetry of the tool decisions and results (exec has no model, so no requests or prompts).
  const telemetry = await startTelemetry(process.env, { sessionId: session.context.sessionId, version: packageVersion(), command: "exec", permissionMode: session.context.getAppState().toolPermissionContext.mode, resumed: false });
  if (telemetry) session.context.telemetry = telemetry.sink;
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    process.stderr.write("[toolgate] interrupted: cancelling running tools (press Ctrl-C again to quit now)\n");
    session.context.abortController.abort();
  };
  // Node's default SIGTERM and SIGHUP skip cleanup: stop the tools' process trees first.
  const offTermination = onSignals(TERMINATION_SIGNALS, (signal) => {
    session.context.abortController.abort();
    void Promise.allSettled([session.close(), stopTrackedTrees(), telemetry?.shutdown()]).finally(() => process.exit(signalExitCode(signal)));
  });
  process.on("SIGINT", onSigint);
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
    offTermination();
    await session.close();
    // Daemons a command double-forked out of its tree do not outlive toolgate either.
    await stopTrackedTrees();
    await telemetry?.shutdown();
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
    const tools = getCurrentTools(session.context);
    const tool = findToolByName(tools, toolName);
    if (!tool) {
      const suggestion = suggestToolName(toolName, tools.map((t) => t.name));
      throw new UsageError(`no such tool: ${toolName}${suggestion ? ` (did you mean ${suggestion}?)` : ""}. Run "toolgate tools" to list them.`);
    }
    const parsed = parseExplainInput(tool, input);
    if (!parsed.ok) throw new UsageError(parsed.message);
    const { text, decision } = await explainPermission(tool, parsed.input, session.context);
    const bashInput = parsed.input as { command?: unknown } | null;
    const sandboxLine =
      tool.name === BASH_TOOL_NAME && typeof bashInput?.command === "string"
        ? (await import("../tools/Bash/sandbox.js")).describeBashSandbox(bashInput as { command: string }, decision, session.context)
        : undefined;
    process.stdout.write(`${text}${sandboxLine ? `\n${sandboxLine}` : ""}\n`);
    return 0;
  } finally {
    await session.close();
  }
}

export async function mcpListCommand(flags: SessionFlags & { json?: boolean }): Promise<number> {
  const session = await openSession(flags);
  try {
    const { runMcpList } = await import("./mcp.js");
    return await runMcpList({
      projectDir: session.context.getAppState().toolPermissionContext.cwd,
      home: session.context.paths.home,
      configFiles: flags.mcpConfig,
      settings: session.context.options.settings,
      skipProjectConfig: !session.trust.trusted,
      pluginServers: session.plugins.flatMap((p) => p.mcpServers),
      json: flags.json,
    });
  } finally {
    await session.close();
  }
}

export interface McpServeFlags extends SessionFlags {
  http?: string;
  httpIdleTimeout?: string;
  httpMaxSessions?: string;
}

export async function mcpServeCommand(flags: McpServeFlags): Promise<number> {
  const port = flags.http === undefined ? undefined : parsePort(flags.http);
  const idleSeconds = flags.httpIdleTimeout === undefined ? undefined : parsePositiveInteger("--http-idle-timeout", flags.httpIdleTimeout);
  const maxSessions = flags.httpMaxSessions === undefined ? undefined : parsePositiveInteger("--http-max-sessions", flags.httpMaxSessions);
  const probe = await openSession(flags, {}, "run");
  await probe.close();
  if (refuseWithoutUsableSettings(probe)) return 2;
  // Not served: ToolSearch only matters to a model with deferred tools (an MCP client already sees every
  // served tool); TodoWrite is a task list for toolgate's own agent (a client keeps its own); WebSearch when
  // settings name no search backend (a call could only say how to configure one). Agent is off by itself (no model).
  // ExitPlanMode and AskUserQuestion talk to toolgate's own user, whom a client does not have.
  const notServed = new Set(["ToolSearch", "TodoWrite", "ExitPlanMode", "AskUserQuestion", ...(webSearchBackend(probe.context).kind === "none" ? ["WebSearch"] : [])]);
  // The probe's built-in tools: Diagnostics among them when language servers are configured.
  const tools = (probe.context.options.builtinTools ?? getBuiltinTools()).filter((t) => !notServed.has(t.name));
  const { runMcpServe } = await import("./mcp.js");
  return runMcpServe({
    tools,
    // One session per connection, settings read afresh, so a long-running server sees edited rules.
    createSession: async (request) => {
      const session = await createSession({ ...sessionOptionsFromFlags(flags), tools, interactive: request.canElicit });
      // A settings file broken after the server started fails this connection's calls, as it would stop exec.
      if (session.fatalErrors.length > 0) {
        await session.close();
        throw new Error(`refusing to run tools: ${session.fatalErrors.join("; ")}`);
      }
      // Opt-in telemetry, one per connection (its session id), flushed when the connection's session closes.
      const telemetry = await startTelemetry(process.env, { sessionId: session.context.sessionId, version: packageVersion(), command: "mcp serve", permissionMode: session.context.getAppState().toolPermissionContext.mode, resumed: false });
      if (telemetry) session.context.telemetry = telemetry.sink;
      return { context: session.context, canUseTool: session.canUseTool, close: () => Promise.allSettled([session.close(), telemetry?.shutdown()]).then(() => undefined) };
    },
    http: port,
    idleTimeoutMs: idleSeconds === undefined ? undefined : idleSeconds * 1000,
    maxSessions,
    serverInfo: { name: "toolgate", version: packageVersion() },
  });
}
