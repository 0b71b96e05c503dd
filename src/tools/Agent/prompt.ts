import type { AgentTypeInfo } from "../../core/Tool.js";

export const AGENT_TOOL_NAME = "Agent";
export const AGENT_TOOL_ALIASES = ["Task"] as const;
export const DEFAULT_AGENT_TYPE = "general-purpose";

export function agentToolDescription(): string {
  return "Start a subagent that works on a task on its own and returns its final answer.";
}

export function agentToolPrompt(types: readonly AgentTypeInfo[] | undefined): string {
  const list = types?.length
    ? types.map((t) => `- ${t.name}: ${t.description}${t.tools ? ` (tools: ${t.tools.join(", ")})` : ""}`).join("\n")
    : "- (the agent types are listed when an agent session runs)";
  return `Starts a subagent: a fresh agent with its own conversation that works on one task with the tools it is given, then returns the text of its final message to you.

Available agent types (subagent_type; default ${DEFAULT_AGENT_TYPE}):
${list}

When to use it:
- Open-ended searches and research over many files, where you need the answer, not every file you would read to find it.
- Independent pieces of work that can run at the same time: put several Agent calls in one message and they run in parallel.
- Not for a single known file or a simple search: Read, Glob and Grep are faster.

How to write the call:
- description: 3 to 5 words saying what the subagent does.
- prompt: the whole task. The subagent sees nothing of your conversation, so give it the context, the paths you know, what it should return, and whether it should change files or only report.
- The subagent's answer is for you, not the user: pass on what matters.
- A subagent cannot start other subagents. Its permission rules are yours; it may be stopped by them.`;
}
