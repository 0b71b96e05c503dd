import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { AnyObject, AnyTool, CanUseToolFn } from "../../core/Tool.js";
import type { PermissionAskDecision, PermissionDecision, PermissionUpdate } from "../../core/permissionTypes.js";

/** How long a human gets to answer an elicitation before the call is denied. */
const ELICITATION_TIMEOUT_MS = 10 * 60_000;
const MAX_INPUT_PREVIEW_CHARS = 2_000;

function formatRule(toolName: string, content?: string): string {
  return content === undefined ? toolName : `${toolName}(${content.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/** "add `Read(./src/**)` to localSettings" for each suggested rule. */
export function describeSuggestions(suggestions: readonly PermissionUpdate[] | undefined): string {
  const parts: string[] = [];
  for (const update of suggestions ?? []) {
    if (update.type === "addRules" && update.behavior === "allow") {
      parts.push(...update.rules.map((r) => `"${formatRule(r.toolName, r.ruleContent)}" (${update.destination})`));
    } else if (update.type === "addDirectories") {
      parts.push(`the directories ${update.directories.join(", ")} (${update.destination})`);
    }
  }
  return parts.length > 0 ? ` An allow rule such as ${parts.join(" or ")} would let it run.` : "";
}

function inputPreview(input: AnyObject): string {
  let text: string;
  try {
    text = JSON.stringify(input, null, 2);
  } catch {
    text = String(input);
  }
  return text.length > MAX_INPUT_PREVIEW_CHARS ? `${text.slice(0, MAX_INPUT_PREVIEW_CHARS)}…` : text;
}

/** What a client that cannot prompt gets: a denial that says why and what rule would allow the call. */
function denyAsk(tool: AnyTool, decision: PermissionAskDecision): PermissionDecision {
  return {
    behavior: "deny",
    message: `Permission to use ${tool.name} was denied: ${decision.message} The MCP client cannot ask the user (it did not declare the elicitation capability), so toolgate denied the call.${describeSuggestions(decision.suggestions)}`,
    decisionReason: { type: "nonInteractive", reason: "the MCP client does not support elicitation" },
    suggestions: decision.suggestions,
  };
}

/**
 * canUseTool for one MCP connection: what would ask becomes an elicitation/create request to the
 * client when it declared the capability; otherwise `fallback` decides (default: deny with the reason).
 */
export function createElicitationCanUseTool(server: Server, fallback?: CanUseToolFn): CanUseToolFn {
  return async (tool, input, context, assistantMessage, toolUseID, decision) => {
    if (decision.behavior !== "ask") return decision;
    if (!server.getClientCapabilities()?.elicitation) {
      return fallback ? fallback(tool, input, context, assistantMessage, toolUseID, decision) : denyAsk(tool, decision);
    }
    try {
      const answer = await server.elicitInput(
        {
          mode: "form",
          // The model-facing name: userFacingName is a UI label ("Update" for Edit) the client's user never saw.
          message: `toolgate asks permission to run ${tool.name}.\n${decision.message}\n\nInput:\n${inputPreview(input)}\n\nAccept to allow this call once; decline to refuse it.`,
          requestedSchema: { type: "object", properties: {} },
        },
        { signal: context.abortController.signal, timeout: ELICITATION_TIMEOUT_MS },
      );
      if (answer.action === "accept") {
        return { behavior: "allow", decisionReason: { type: "other", reason: "approved by the user through MCP elicitation" } };
      }
      const how = answer.action === "decline" ? "declined" : "dismissed";
      return {
        behavior: "deny",
        message: `The user ${how} permission for this ${tool.name} call (asked through the MCP client).`,
        decisionReason: { type: "other", reason: `the user ${how} the MCP elicitation` },
      };
    } catch (err) {
      if (context.abortController.signal.aborted) throw err;
      return {
        behavior: "deny",
        message: `Permission to use ${tool.name} was denied: toolgate could not ask the user through the MCP client (${err instanceof Error ? err.message : String(err)}). ${decision.message}${describeSuggestions(decision.suggestions)}`,
        decisionReason: { type: "other", reason: "the MCP elicitation failed" },
      };
    }
  };
}
