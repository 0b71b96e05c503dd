/**
 * Subagents for the Agent tool: a fresh agent loop with its own conversation, read state, task list and agent
 * id, sharing the parent's permissions, hooks, permission gate, file history, background tasks and status board.
 * Its steps stream as the Agent call's progress; its conversation is kept in
 * `<session dir>/subagents/<agentId>.jsonl` beside the session's transcript.
 */
import path from "node:path";
import { randomUUID } from "node:crypto";
import type { AnyTool, SubagentOutcome, SubagentRequest, SubagentRunner, Tools, ToolUseContext } from "../core/Tool.js";
import type { Message, ToolUseBlock } from "../core/messages.js";
import { createFileStateCache } from "../core/fileStateCache.js";
import { createTodoStore } from "../core/context.js";
import { formatError } from "../core/errors.js";
import type { Provider } from "../providers/index.js";
import { AGENT_TOOL_NAME, createAgentTool } from "../tools/Agent/index.js";
import { TASK_STOP_TOOL_NAME } from "../tools/TaskStop/prompt.js";
import { EXIT_PLAN_MODE_TOOL_NAME } from "../tools/ExitPlanMode/prompt.js";
import { ASK_USER_QUESTION_TOOL_NAME } from "../tools/AskUserQuestion/prompt.js";
import { query, type AgentResult } from "./query.js";
import { textOf } from "./history.js";
import { DEFAULT_SUBAGENT_MAX_TURNS, type AgentTypeDefinition } from "./agentTypes.js";
import { TRANSCRIPT_VERSION } from "./transcript.js";
import { appendPrivateFileSync, ensurePrivateDirSync } from "../util/privateFiles.js";

/**
 * Tools a subagent never has: it cannot start subagents, stop the parent's background tasks, take the session
 * out of plan mode, or question the user (its parent asks; the subagent reports back).
 */
const NEVER_FOR_SUBAGENTS = new Set([AGENT_TOOL_NAME, TASK_STOP_TOOL_NAME, EXIT_PLAN_MODE_TOOL_NAME, ASK_USER_QUESTION_TOOL_NAME]);

/** Read at each run: changing `provider` or `smallModel` (the UI's /model) applies to the next subagent. */
export interface SubagentRunnerOptions {
  provider: Provider;
  /** The model for an agent type whose `model` is `small`; default the provider's. */
  smallModel?: string;
  types: readonly AgentTypeDefinition[];
  /** The system prompt sections for an agent type's prompt (environment and project instructions added). */
  systemFor(typePrompt: string): string[];
  /** Default DEFAULT_SUBAGENT_MAX_TURNS; an agent type's `maxTurns` wins. */
  maxTurns?: number;
  maxTokens?: number;
}

/** The tools a subagent of this type gets from the parent's current pool. */
export function subagentTools(pool: Tools, type: Pick<AgentTypeDefinition, "tools">): AnyTool[] {
  const allowed = type.tools && new Set(type.tools);
  return pool.filter((tool) => {
    const names = [tool.name, ...(tool.aliases ?? [])];
    if (names.some((n) => NEVER_FOR_SUBAGENTS.has(n))) return false;
    return !allowed || names.some((n) => allowed.has(n));
  });
}

function providerFor(options: SubagentRunnerOptions, model: string | undefined): Provider {
  const wanted = !model || model === "inherit" ? undefined : model === "small" ? options.smallModel : model;
  const base = options.provider;
  if (!wanted || wanted === base.model) return base;
  return { name: base.name, model: wanted, ...(base.baseURL ? { baseURL: base.baseURL } : {}), stream: (request, signal) => base.stream(request, signal) };
}

/** Appends the subagent's conversation as transcript lines (the session transcript's format), one write per line. */
function openSubagentTranscript(file: string, header: Record<string, unknown>) {
  let parent: string | null = null;
  let broken = false;
  const write = (entry: Record<string, unknown>) => {
    if (broken) return;
    const uuid = randomUUID();
    try {
      appendPrivateFileSync(file, `${JSON.stringify({ uuid, parentUuid: parent, timestamp: new Date().toISOString(), ...entry })}\n`);
      parent = uuid;
    } catch {
      // A transcript that cannot be written must not fail the subagent's work; the outcome says it is missing.
      broken = true;
    }
  };
  try {
    ensurePrivateDirSync(path.dirname(file));
  } catch {
    broken = true;
  }
  write({ type: "session", ...header, version: TRANSCRIPT_VERSION });
  return {
    message: (message: Message) => write({ type: "message", sessionId: header.sessionId, isSidechain: true, message }),
    result: (result: AgentResult) => write({ type: "result", sessionId: header.sessionId, reason: result.reason, turns: result.turns, durationMs: result.durationMs }),
    get ok() {
      return !broken;
    },
  };
}

function summarize(tool: AnyTool | undefined, input: unknown): string {
  let summary = "";
  try {
    summary = tool?.describeInput?.((input ?? {}) as Record<string, unknown>) ?? "";
  } catch {
    summary = "";
  }
  if (!summary) summary = JSON.stringify(input ?? {}) ?? "";
  const line = summary.replace(/\s+/g, " ").trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export function createSubagentRunner(options: SubagentRunnerOptions): SubagentRunner {
  const types = options.types;
  return {
    agentTypes: () => types,
    async run(request: SubagentRequest): Promise<SubagentOutcome> {
      const started = performance.now();
      const agentId = `agent-${randomUUID().slice(0, 8)}`;
      const type = types.find((t) => t.name === request.agentType);
      const base = { agentId, agentType: request.agentType, turns: 0, usage: { input: 0, output: 0 } };
      if (!type) {
        return { ...base, text: "", durationMs: 0, stopReason: "error", error: `Unknown agent type "${request.agentType}" (known: ${types.map((t) => t.name).join(", ")}).` };
      }
      const parent = request.parent;
      const pool = () => subagentTools(parent.options.refreshTools?.() ?? parent.options.tools, type);
      const context: ToolUseContext = {
        ...parent,
        // builtinTools too: the pipeline resolves legacy aliases there (KillShell would reach TaskStop).
        options: { ...parent.options, tools: pool(), refreshTools: pool, ...(parent.options.builtinTools ? { builtinTools: subagentTools(parent.options.builtinTools, type) } : {}) },
        agentId,
        messages: [],
        readFileState: createFileStateCache(),
        todos: createTodoStore(),
        contentReplacementState: { seen: new Set(), replacements: new Map() },
        abortController: new AbortController(),
        queryTracking: { chainId: randomUUID(), depth: (parent.queryTracking?.depth ?? 0) + 1 },
        toolUseID: undefined,
        validated: undefined,
        permissionDecision: undefined,
      };
      const file = path.join(parent.paths.sessionDir, "subagents", `${agentId}.jsonl`);
      const transcript = openSubagentTranscript(file, {
        sessionId: parent.sessionId,
        agentId,
        agentType: type.name,
        parentToolUseID: request.toolUseID,
        description: request.description,
        cwd: parent.getCwd(),
        parentUuid: null,
      });
      const progress = request.onProgress;
      const provider = providerFor(options, type.model);
      const messages: Message[] = [];
      let result: AgentResult | undefined;
      try {
        const announced = new Set<string>();
        const early: Array<Parameters<NonNullable<typeof progress>>[0]> = [];
        for await (const event of query(request.prompt, {
          provider,
          context,
          canUseTool: request.canUseTool,
          system: options.systemFor(type.systemPrompt),
          messages,
          maxTurns: type.maxTurns ?? options.maxTurns ?? DEFAULT_SUBAGENT_MAX_TURNS,
          ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
          signal: request.signal,
          subagentType: type.name,
        })) {
          if (event.type === "user") transcript.message(event.message);
          else if (event.type === "assistant") {
            transcript.message(event.message);
            const said = textOf(event.message.content).trim();
            if (said) progress?.({ type: "subagent_text", agentId, text: said });
            const tools = context.options.refreshTools?.() ?? context.options.tools;
            for (const block of event.message.content.filter((b): b is ToolUseBlock => b.type === "tool_use")) {
              const tool = tools.find((t) => t.name === block.name || t.aliases?.includes(block.name));
              progress?.({ type: "subagent_tool_use", agentId, toolUseID: block.id, toolName: block.name, summary: summarize(tool, block.input) });
              announced.add(block.id);
            }
            for (const done of early.splice(0)) progress?.(done);
          } else if (event.type === "tool" && event.update.type === "status" && event.update.status === "done") {
            const done = { type: "subagent_tool_result" as const, agentId, toolUseID: event.update.toolUseID, toolName: event.update.toolName, outcome: event.update.outcome ?? "success" };
            // A call can finish before its message does (started early): its result follows the call's announcement.
            if (announced.has(done.toolUseID)) progress?.(done);
            else early.push(done);
          } else if (event.type === "notice") {
            progress?.({ type: "subagent_notice", agentId, level: event.level, message: event.message });
          } else if (event.type === "result") {
            for (const done of early.splice(0)) progress?.(done);
            result = event.result;
          }
        }
      } catch (err) {
        // query() does not throw; a progress listener or the transcript might. The subagent's outcome says so.
        result = {
          reason: "error",
          turns: result?.turns ?? 0,
          durationMs: Math.round(performance.now() - started),
          usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, source: "api" },
          permissionDenials: [],
          text: "",
          error: `toolgate failed while running the subagent: ${formatError(err)}`,
        };
      }
      result ??= { reason: "error", turns: 0, durationMs: 0, usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, source: "api" }, permissionDenials: [], text: "", error: "the subagent ended without a result" };
      transcript.result(result);
      return {
        agentId,
        agentType: type.name,
        text: result.text,
        turns: result.turns,
        durationMs: Math.round(performance.now() - started),
        usage: { input: result.usage.inputTokens + result.usage.cacheReadInputTokens + result.usage.cacheCreationInputTokens, output: result.usage.outputTokens },
        stopReason: result.reason,
        ...(result.error ? { error: result.error } : {}),
        ...(transcript.ok ? { transcriptPath: file } : {}),
      };
    },
  };
}

/** The Agent tool in the session's pool is the disabled listing one until a runner exists: swap in one that runs. */
export function enableSubagents(context: ToolUseContext, runner: SubagentRunner): void {
  context.subagents = runner;
  const agentTool = createAgentTool(runner);
  // The same pool in gives the same array out, so consumers that compare tool lists see no change.
  let last: { from: Tools; to: Tools } | undefined;
  const swap = (tools: Tools): Tools => {
    if (last?.from === tools) return last.to;
    last = { from: tools, to: tools.map((t) => (t.name === AGENT_TOOL_NAME ? agentTool : t)) };
    return last.to;
  };
  const refresh = context.options.refreshTools;
  context.options = { ...context.options, tools: swap(context.options.tools), refreshTools: refresh ? () => swap(refresh()) : undefined };
}
