/**
 * Auto mode (`--permission-mode auto`): a call that would ask the user goes to a classifier instead — a small
 * model call that sees what the call does, the user's recent requests and the rules — which allows it or
 * denies it with a reason. It never overrides a deny rule, an ask rule, a safety check or a hook's ask, and
 * anything it cannot judge (no answer, garbage, a failed request) is denied.
 */
import path from "node:path";
import type { AnyTool, AnyObject, ToolUseContext } from "../core/Tool.js";
import type { Message } from "../core/messages.js";
import type { PermissionDecision, PermissionDecisionReason, PermissionResult } from "../core/permissionTypes.js";
import { formatError } from "../core/errors.js";
import { MessageAssembler, type Provider } from "../providers/index.js";
import { promptText, textOf } from "./history.js";
import { appendPrivateFileSync, ensurePrivateDirSync } from "../util/privateFiles.js";

export interface AutoModeVerdict {
  behavior: "allow" | "deny";
  reason: string;
}

const CLASSIFIER_TIMEOUT_MS = 60_000;
const MAX_ACTION_CHARS = 4_000;
const RECENT_REQUESTS = 3;

const CLASSIFIER_PROMPT = `You review actions an AI coding agent wants to take on the user's machine, on the user's behalf. For each action, decide whether the user would clearly want it done without being asked, given what they requested.

Allow when the action is a normal step toward the user's request and stays within the project: reading, building, testing, editing the project's files, installing the project's declared dependencies, local git operations.
Deny when the action could cause harm the user did not ask for: deleting or overwriting data outside the task, pushing, publishing or deploying, sending data or credentials to the network, changing system or security settings, running code fetched from the internet, anything irreversible, or anything unrelated to the request. When unsure, deny.

Answer with one JSON object and nothing else: {"decision": "allow" | "deny", "reason": "one short sentence"}`;

/** Whether the classifier may answer this ask: only asks that come from no rule, safety check or hook. */
export function classifierMayDecide(decision: PermissionDecision): boolean {
  return decision.behavior === "ask" && reasonAllowsClassifier(decision.decisionReason);
}

function reasonAllowsClassifier(reason: PermissionDecisionReason | undefined): boolean {
  if (!reason) return true;
  switch (reason.type) {
    case "rule":
      return reason.rule.ruleBehavior !== "ask" && reason.rule.ruleBehavior !== "deny";
    case "safetyCheck":
    case "hook":
    case "userInput":
      return false;
    case "subcommands":
      return reason.parts.every((part) => part.result.behavior !== "deny" && reasonAllowsClassifier((part.result as PermissionResult & { decisionReason?: PermissionDecisionReason }).decisionReason));
    default:
      return true;
  }
}

function recentUserRequests(messages: readonly Message[]): string[] {
  const requests: string[] = [];
  for (let i = messages.length - 1; i >= 0 && requests.length < RECENT_REQUESTS; i--) {
    const text = promptText(messages[i]);
    if (text?.trim()) requests.unshift(text.slice(0, 2_000));
  }
  return requests;
}

/** The call as the classifier sees it: the tool's own compact form of its input, cut to a bound. */
export function describeActionForClassifier(tool: AnyTool, input: AnyObject): string {
  let action: unknown;
  try {
    action = tool.toAutoClassifierInput(input);
  } catch {
    action = input;
  }
  const text = typeof action === "string" ? action : JSON.stringify(action);
  return text.length > MAX_ACTION_CHARS ? `${text.slice(0, MAX_ACTION_CHARS)}… [cut]` : text;
}

/** The first JSON object in the model's answer, read as a verdict; anything else is undefined. */
export function parseVerdict(text: string): AutoModeVerdict | undefined {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return undefined;
  try {
    const value = JSON.parse(text.slice(start, end + 1)) as { decision?: unknown; reason?: unknown };
    if (value.decision !== "allow" && value.decision !== "deny") return undefined;
    return { behavior: value.decision, reason: typeof value.reason === "string" && value.reason.trim() ? value.reason.trim() : "no reason given" };
  } catch {
    return undefined;
  }
}

export interface AutoModeClassifier {
  classify(args: { tool: AnyTool; input: AnyObject; decision: PermissionDecision; context: ToolUseContext; messages: readonly Message[] }): Promise<AutoModeVerdict>;
}

export function createAutoModeClassifier(provider: Provider): AutoModeClassifier {
  return {
    async classify({ tool, input, decision, context, messages }) {
      const rules = context.getAppState().toolPermissionContext.rules ?? [];
      const ruleText = (behavior: string) =>
        rules
          .filter((r) => r.ruleBehavior === behavior)
          .map((r) => (r.ruleValue.ruleContent === undefined ? r.ruleValue.toolName : `${r.ruleValue.toolName}(${r.ruleValue.ruleContent})`))
          .slice(0, 50);
      const question = {
        tool: tool.name,
        action: describeActionForClassifier(tool, input),
        why_it_needs_approval: decision.behavior === "ask" ? decision.message : "",
        working_directory: context.getCwd(),
        user_requests: recentUserRequests(messages),
        allow_rules: ruleText("allow"),
        deny_rules: ruleText("deny"),
      };
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), CLASSIFIER_TIMEOUT_MS);
      const onAbort = () => controller.abort();
      context.abortController.signal.addEventListener("abort", onAbort, { once: true });
      try {
        const assembler = new MessageAssembler();
        for await (const event of provider.stream(
          { model: provider.model, system: CLASSIFIER_PROMPT, messages: [{ role: "user", content: JSON.stringify(question, null, 2) }], maxTokens: 300 },
          controller.signal,
        )) {
          assembler.push(event);
        }
        const text = textOf(assembler.message().content);
        const verdict = assembler.stop?.complete ? parseVerdict(text) : undefined;
        if (!verdict) {
          const why = assembler.errors.at(-1)?.message ?? (text ? `its answer was not a verdict: ${text.slice(0, 200)}` : "it gave no answer");
          return { behavior: "deny", reason: `the auto-mode classifier could not judge the call (${why}), so it was denied` };
        }
        return verdict;
      } catch (err) {
        return { behavior: "deny", reason: `the auto-mode classifier failed (${formatError(err)}), so the call was denied` };
      } finally {
        clearTimeout(timer);
        context.abortController.signal.removeEventListener("abort", onAbort);
      }
    },
  };
}

/** One line per automatic decision in `<session dir>/auto-mode.jsonl`; a log that cannot be written is not fatal. */
export function logAutoModeDecision(context: ToolUseContext, entry: { tool: string; toolUseID: string; action: string; verdict: AutoModeVerdict }): void {
  try {
    ensurePrivateDirSync(context.paths.sessionDir);
    appendPrivateFileSync(path.join(context.paths.sessionDir, "auto-mode.jsonl"), `${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);
  } catch {
    // The decision itself still stands and is reported as a notice.
  }
}

