import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import type { SubagentOutcome, SubagentProgress, SubagentRunner, Tool } from "../../core/Tool.js";
import { AGENT_TOOL_ALIASES, AGENT_TOOL_NAME, agentToolDescription, agentToolPrompt, DEFAULT_AGENT_TYPE } from "./prompt.js";

export { AGENT_TOOL_NAME, AGENT_TOOL_ALIASES };

const inputSchema = () =>
  z.strictObject({
    description: z.string().trim().min(1, "give a short (3-5 word) description of the task").describe("A short (3-5 word) description of the task"),
    prompt: z.string().trim().min(1, "the prompt is the subagent's whole task: it cannot be empty").describe("The task for the subagent, with all the context it needs"),
    subagent_type: z.string().optional().describe(`The agent type to use (default ${DEFAULT_AGENT_TYPE})`),
    // Models trained on Claude Code send it; a subagent here always runs to its end before the answer comes back.
    run_in_background: z.boolean().optional().describe("Accepted for compatibility; the subagent always runs in the foreground and its answer is this call's result"),
  });

export type AgentInput = z.infer<ReturnType<typeof inputSchema>>;
export type AgentOutput = SubagentOutcome;
export type AgentTool = Tool<AgentInput, AgentOutput, SubagentProgress>;

function footer(output: AgentOutput): string {
  const tokens = output.usage.input + output.usage.output;
  const seconds = (output.durationMs / 1000).toFixed(1);
  return `[subagent ${output.agentType} ${output.agentId}: ${output.turns} turn${output.turns === 1 ? "" : "s"}, ${tokens} tokens, ${seconds} s]`;
}

const FAILURES: Record<string, string> = {
  max_turns: "The subagent reached its turn limit before it finished.",
  aborted: "The subagent was interrupted before it finished.",
  prompt_too_long: "The subagent's conversation grew too long for the model.",
  hook_stopped: "A hook stopped the subagent.",
  error: "The subagent failed.",
};

/**
 * The Agent tool over a session's subagent runner. Without a runner (exec, mcp serve: no model to run one) the
 * tool is not enabled; `toolgate tools` still lists it.
 */
export function createAgentTool(runner?: SubagentRunner): AgentTool {
  return buildTool<AgentInput, AgentOutput, SubagentProgress>({
    name: AGENT_TOOL_NAME,
    aliases: AGENT_TOOL_ALIASES,
    searchHint: "subagent task delegate parallel research",
    maxResultSizeChars: 100_000,
    inputSchema,
    description: () => agentToolDescription(),
    prompt: () => agentToolPrompt(runner?.agentTypes()),
    isEnabled: () => runner !== undefined,
    // The subagent's own calls are checked one by one; starting it changes nothing.
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    // `Agent(reviewer)` / `Task(reviewer)` rules name an agent type.
    preparePermissionMatcher: async (input) => {
      const type = input.subagent_type ?? DEFAULT_AGENT_TYPE;
      return (ruleContent) => ruleContent.trim() === type;
    },
    describeInput: (input) => (typeof input.description === "string" ? input.description : ""),
    toAutoClassifierInput: (input) => `${input.subagent_type ?? DEFAULT_AGENT_TYPE}: ${input.description}`,
    async validateInput(input, context) {
      const available = (context.subagents ?? runner)?.agentTypes() ?? [];
      const wanted = input.subagent_type ?? DEFAULT_AGENT_TYPE;
      if (!available.some((t) => t.name === wanted)) {
        return { result: false, errorCode: 1, message: `Unknown subagent_type "${wanted}". Use one of: ${available.map((t) => t.name).join(", ") || "(none)"}.` };
      }
      return { result: true };
    },
    async call(input, context, canUseTool, _parentMessage, onProgress) {
      const active = context.subagents ?? runner;
      if (!active) throw new Error("Subagents need a running agent session (toolgate -p or the interactive UI); this session has none.");
      const toolUseID = context.toolUseID ?? "";
      const outcome = await active.run({
        description: input.description,
        prompt: input.prompt,
        agentType: input.subagent_type ?? DEFAULT_AGENT_TYPE,
        toolUseID,
        parent: context,
        canUseTool,
        signal: context.abortController.signal,
        onProgress: onProgress && ((data) => onProgress({ toolUseID, data })),
      });
      return { data: outcome };
    },
    mapToolResultToToolResultBlockParam(output, toolUseID) {
      const failed = output.stopReason !== "completed";
      const parts = [];
      if (failed) parts.push(`${FAILURES[output.stopReason] ?? FAILURES.error}${output.error ? ` ${output.error}` : ""}`);
      if (output.text.trim()) parts.push(failed ? `Its last message:\n${output.text}` : output.text);
      else if (!failed) parts.push("(The subagent finished without a final message.)");
      parts.push(footer(output));
      return { type: "tool_result", tool_use_id: toolUseID, content: parts.join("\n\n"), ...(failed ? { is_error: true } : {}) };
    },
  });
}

/** The tool as listed without a session (tools --json, rule names): not enabled. */
export const AgentTool = createAgentTool();
