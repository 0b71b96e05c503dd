import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  type Implementation,
  type Tool as McpToolDefinition,
} from "@modelcontextprotocol/sdk/types.js";
import type { AnyTool, CanUseToolFn, ToolUseContext, Tools } from "../../core/Tool.js";
import type { AssistantMessage, ToolUseBlock } from "../../core/messages.js";
import { toolToAPISchema } from "../../providers/toolSchemas.js";
import { runToolsToMessage, isToolUseConcurrencySafe } from "../../core/executor/index.js";
import { formatError } from "../../core/errors.js";
import { createCallLock } from "./callLock.js";
import { toolResultToCallToolResult } from "./content.js";
import { createElicitationCanUseTool } from "./permissionPrompt.js";

/** One connection's session: the same context for every call, so read-before-edit state carries over. */
export interface ToolgateMcpSession {
  context: ToolUseContext;
  /** Decides what would ask when the client cannot elicit (e.g. the non-interactive deny). Default: deny with the reason. */
  canUseTool?: CanUseToolFn;
  /** Called once when the connection closes. */
  close?(): void | Promise<void>;
}

export interface McpSessionRequest {
  clientInfo?: Implementation;
  clientCapabilities?: ClientCapabilities;
  /** The client declared elicitation: asks will be shown to its user, so the session may prompt. */
  canElicit: boolean;
}

export interface ToolgateMcpServerOptions {
  /** The tools served (and the only ones callable). A function is re-read on every list and call; the tools are described again only when they change. */
  tools: Tools | (() => Tools);
  /** Called once per connection, on its first tool call. */
  createSession(request: McpSessionRequest): ToolgateMcpSession | Promise<ToolgateMcpSession>;
  serverInfo?: Implementation;
  instructions?: string;
}

/** Makes one MCP `Server` per connection; each gets its own session. */
export interface ToolgateMcpServerFactory {
  createServer(): Server;
  /** Resolves when the sessions of every connection closed so far have finished closing (their processes stopped). */
  sessionsClosed(): Promise<void>;
}

const DEFAULT_SERVER_INFO: Implementation = { name: "toolgate", version: "0.1.0" };
const MAX_PROGRESS_MESSAGE_CHARS = 1_000;

function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/** Annotations describe the tool for an arbitrary input, so they use the empty one (Bash: not read-only). */
async function describeTool(tool: AnyTool, tools: Tools): Promise<McpToolDefinition> {
  const { name, description, input_schema } = await toolToAPISchema(tool, { tools });
  const readOnly = safely(() => tool.isReadOnly({}), false);
  return {
    name,
    description,
    inputSchema: input_schema as McpToolDefinition["inputSchema"],
    annotations: {
      title: tool.name,
      readOnlyHint: readOnly,
      destructiveHint: !readOnly && safely(() => tool.isDestructive({}), false),
      openWorldHint: false,
    },
  };
}

function progressText(data: unknown): string {
  const text = typeof data === "string" ? data : safely(() => JSON.stringify(data) ?? "", "");
  return text.length > MAX_PROGRESS_MESSAGE_CHARS ? `${text.slice(0, MAX_PROGRESS_MESSAGE_CHARS)}…` : text;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function sameTools(a: Tools, b: Tools): boolean {
  return a.length === b.length && a.every((tool, i) => tool === b[i]);
}

export function createToolgateMcpServer(options: ToolgateMcpServerOptions): ToolgateMcpServerFactory {
  const listTools = (): Tools => (typeof options.tools === "function" ? options.tools() : options.tools).filter((t) => t.isEnabled());

  // Every connection lists the tools, and a description (prompt, JSON Schema) depends only on the tool list.
  let described: { tools: Tools; definitions: McpToolDefinition[] } | undefined;
  const describeTools = async (tools: Tools): Promise<McpToolDefinition[]> => {
    if (described && sameTools(described.tools, tools)) return described.definitions;
    const definitions = await Promise.all(tools.map((t) => describeTool(t, tools)));
    described = { tools, definitions };
    return definitions;
  };

  const closing = new Set<Promise<unknown>>();

  return {
    async sessionsClosed() {
      await Promise.allSettled([...closing]);
    },
    createServer() {
      const server = new Server(options.serverInfo ?? DEFAULT_SERVER_INFO, {
        capabilities: { tools: {} },
        ...(options.instructions && { instructions: options.instructions }),
      });
      const lock = createCallLock();
      let session: Promise<{ session: ToolgateMcpSession; canUseTool: CanUseToolFn; abort: AbortController }> | undefined;
      let calls = 0;

      const getSession = () =>
        (session ??= Promise.resolve(
          options.createSession({
            clientInfo: server.getClientVersion(),
            clientCapabilities: server.getClientCapabilities(),
            canElicit: Boolean(server.getClientCapabilities()?.elicitation),
          }),
        ).then((created) => ({
          session: created,
          canUseTool: createElicitationCanUseTool(server, created.canUseTool),
          abort: created.context.abortController,
        })));

      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await describeTools(listTools()) }));

      server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        try {
          const { session: current, canUseTool, abort } = await getSession();
          const tools = listTools();
          const toolUse: ToolUseBlock = { type: "tool_use", id: `toolu_mcp_${randomUUID().replace(/-/g, "")}`, name: request.params.name, input: request.params.arguments ?? {} };
          const assistantMessage: AssistantMessage = { role: "assistant", id: `mcp_call_${++calls}`, content: [toolUse] };

          // A call ends when the client cancels it or the connection's session is aborted.
          const callAbort = new AbortController();
          const onClientCancel = () => callAbort.abort(extra.signal.reason);
          const onSessionAbort = () => callAbort.abort(abort.signal.reason);
          extra.signal.addEventListener("abort", onClientCancel, { once: true });
          abort.signal.addEventListener("abort", onSessionAbort, { once: true });

          const contextFor = (base: ToolUseContext): ToolUseContext => ({
            ...base,
            abortController: callAbort,
            options: { ...base.options, tools, refreshTools: typeof options.tools === "function" ? listTools : undefined },
          });
          const progressToken = request.params._meta?.progressToken;
          let progress = 0;

          const shared = isToolUseConcurrencySafe(toolUse, contextFor(current.context));
          return await lock.run(shared, async () => {
            const notifications: Array<Promise<unknown>> = [];
            const result = await runToolsToMessage([toolUse], assistantMessage, canUseTool, contextFor(current.context), (update) => {
              if (update.type !== "progress" || progressToken === undefined) return;
              notifications.push(
                extra
                  .sendNotification({ method: "notifications/progress", params: { progressToken, progress: ++progress, message: progressText(update.data) } })
                  .catch(() => undefined),
              );
            });
            // The client drops progress that arrives after the response: send every notification first.
            await Promise.all(notifications);
            // Keep what contextModifiers changed, but not this call's abort controller or tool list.
            current.context = { ...result.context, abortController: current.context.abortController, options: current.context.options };
            const content = Array.isArray(result.message.content) ? result.message.content : [];
            const block = content.find((b) => b.type === "tool_result");
            return block?.type === "tool_result" ? toolResultToCallToolResult(block) : errorResult("toolgate produced no result for this call.");
          }).finally(() => {
            extra.signal.removeEventListener("abort", onClientCancel);
            abort.signal.removeEventListener("abort", onSessionAbort);
          });
        } catch (err) {
          return errorResult(`toolgate failed while running ${request.params.name}: ${formatError(err)}`);
        }
      });

      server.onclose = () => {
        if (!session) return;
        const closed = session.then(({ session: s, abort }) => {
          abort.abort();
          return s.close?.();
        });
        closing.add(closed);
        void closed.catch(() => undefined).finally(() => closing.delete(closed));
      };
      return server;
    },
  };
}
