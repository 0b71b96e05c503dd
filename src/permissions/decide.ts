import type { AnyObject, AnyTool, HookPermissionDecision, PermissionDecider, ToolUseContext } from "../core/Tool.js";
import type { PermissionAskDecision, PermissionDecision, PermissionDecisionReason, PermissionDenyDecision, PermissionRule, ToolPermissionContext } from "../core/permissionTypes.js";
import { formatError } from "../core/errors.js";
import { checkToolPermissions, isForcedAsk, orderDecision } from "../core/permissionOrder.js";
import { describeRule } from "./describe.js";
import { getContentRulesForTool, getWholeToolRule } from "./rules.js";
import { ruleSuggestions } from "./suggestions.js";
import { howToAllow } from "./explain.js";
import { nobodyToAnswer } from "./nonInteractive.js";

export { isForcedAsk };

/** A hook's reason as a sentence, so the text that follows it (the non-interactive note) reads right. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function ruleReason(rule: PermissionRule, matched?: string): PermissionDecisionReason {
  return matched === undefined ? { type: "rule", rule } : { type: "rule", rule, matched };
}

function isReadOnly(tool: AnyTool, input: AnyObject): boolean {
  try {
    return tool.isReadOnly(input) === true;
  } catch {
    return false;
  }
}

function planDenial(tool: AnyTool): PermissionDenyDecision {
  return {
    behavior: "deny",
    message: `toolgate is in plan mode, where only read-only tools run; this ${tool.name} call would change something. Finish the plan and let the user leave plan mode first.`,
    decisionReason: { type: "mode", mode: "plan" },
  };
}

function ruleDenial(tool: AnyTool, rule: PermissionRule): PermissionDenyDecision {
  return { behavior: "deny", message: `Permission to use ${tool.name} was denied by rule ${describeRule(rule)}.`, decisionReason: ruleReason(rule) };
}

function ruleAsk(tool: AnyTool, rule: PermissionRule): PermissionAskDecision {
  return { behavior: "ask", message: `${tool.name} needs approval by rule ${describeRule(rule)}.`, decisionReason: ruleReason(rule) };
}

/** Content rules judged by the tool's own predicate (`preparePermissionMatcher`): WebFetch, custom tools. */
async function matchGenericContentRules(
  tool: AnyTool,
  input: AnyObject,
  ctx: ToolPermissionContext,
): Promise<{ deny?: PermissionRule; ask?: PermissionRule; allow?: PermissionRule } | { error: string }> {
  if (!tool.preparePermissionMatcher) return {};
  const names = [tool.name, ...(tool.aliases ?? [])];
  const byBehavior = {
    deny: getContentRulesForTool(ctx, names, "deny"),
    ask: getContentRulesForTool(ctx, names, "ask"),
    allow: getContentRulesForTool(ctx, names, "allow"),
  };
  if (!byBehavior.deny.length && !byBehavior.ask.length && !byBehavior.allow.length) return {};
  try {
    const matches = await tool.preparePermissionMatcher(input);
    const first = (rules: PermissionRule[]) => rules.find((rule) => matches(rule.ruleValue.ruleContent as string));
    return { deny: first(byBehavior.deny), ask: first(byBehavior.ask), allow: first(byBehavior.allow) };
  } catch (err) {
    return { error: formatError(err) };
  }
}

/** The rule engine's verdict before dontAsk; see hasPermissionsToUseTool. */
export async function decidePermission(
  tool: AnyTool,
  input: AnyObject,
  context: ToolUseContext,
  hookDecision?: HookPermissionDecision,
): Promise<PermissionDecision> {
  const ctx = context.getAppState().toolPermissionContext;

  // 1. whole-tool deny
  const wholeDeny = getWholeToolRule(ctx, tool, "deny");
  if (wholeDeny) return ruleDenial(tool, wholeDeny);

  // 2. the tool's own check (file paths, Bash parts, ...) and the content rules it lets the engine match
  const result = await checkToolPermissions(tool, input, context);
  // asked after the tool's own check, which may have had to load what isReadOnly needs (the bash parser)
  const plan = ctx.mode === "plan" && !isReadOnly(tool, input);
  const generic = await matchGenericContentRules(tool, input, ctx);
  if ("error" in generic) {
    return {
      behavior: "deny",
      message: `Matching the permission rules of ${tool.name} failed, so the call was not allowed: ${generic.error}`,
      decisionReason: { type: "other", reason: "rule matching failed" },
    };
  }

  // 3 to 9: the shared order, with the facts the rules give
  const wholeAsk = getWholeToolRule(ctx, tool, "ask");
  const wholeAllow = getWholeToolRule(ctx, tool, "allow");
  const allowRule = wholeAllow ?? generic.allow;
  return orderDecision({
    toolName: tool.name,
    toolResult: result,
    contentDeny: generic.deny && ruleDenial(tool, generic.deny),
    planDeny: plan ? planDenial(tool) : undefined,
    wholeAsk: wholeAsk && ruleAsk(tool, wholeAsk),
    contentAsk: generic.ask && ruleAsk(tool, generic.ask),
    bypass: ctx.mode === "bypassPermissions",
    allowRule: allowRule && ruleReason(allowRule),
    hookDecision,
    hookAskMessage: (hook) => `A PreToolUse hook asked for approval of this ${tool.name} call${hook.reason ? `: ${sentence(hook.reason)}` : "."}`,
    suggest: (ask) => ({ ...ask, suggestions: ruleSuggestions({ toolName: tool.name }) }),
  });
}

function dontAskDenial(tool: AnyTool, ask: PermissionAskDecision): PermissionDenyDecision {
  if (ask.decisionReason?.type === "userInput") {
    return { behavior: "deny", message: nobodyToAnswer(tool.name, "toolgate is in dontAsk mode"), decisionReason: ask.decisionReason };
  }
  const hint = howToAllow(ask);
  return {
    behavior: "deny",
    message: `${ask.message} toolgate is in dontAsk mode, so this was denied instead of asking.${hint ? ` ${hint}` : ""}`,
    decisionReason: ask.decisionReason,
    suggestions: ask.suggestions,
  };
}

/**
 * The full decision order of SPEC section 4, for the pipeline's permission step:
 * whole-tool deny → deny; the tool's checkPermissions (and, for tools with preparePermissionMatcher,
 * their content rules); a deny → deny (so a content deny also beats a whole-tool ask); plan mode denies
 * what is not read-only; whole-tool ask → ask; a content ask rule or a safety check → ask even in
 * bypassPermissions; a PreToolUse hook ask → ask;
 * bypassPermissions → allow; an allow rule → allow; the tool's allow → allow; a hook allow → allow; else ask.
 * dontAsk turns the final ask into deny. Non-interactive sessions get the ask; their canUseTool
 * (createNonInteractiveCanUseTool) denies it, so PermissionRequest hooks can still answer first.
 */
export const hasPermissionsToUseTool: PermissionDecider = async (tool, input, context, extra) => {
  const decision = await decidePermission(tool, input, context, extra?.hookDecision);
  if (decision.behavior === "ask" && context.getAppState().toolPermissionContext.mode === "dontAsk") {
    return dontAskDenial(tool, decision);
  }
  return decision;
};
