import type {
  PermissionDecisionReason,
  PermissionResult,
  PermissionRuleValue,
  PermissionUpdate,
} from "../core/permissionTypes.js";
import { describeRule, destinationLabel, DESTINATION_FILES } from "./describe.js";
import { ruleToString } from "./rules.js";

/** One line saying why: which rule from which source and file matched which part, or which mode, directory, check. */
export function describeDecisionReason(reason: PermissionDecisionReason | undefined): string {
  if (!reason) return "no rule matched";
  switch (reason.type) {
    case "rule":
      return `${reason.rule.ruleBehavior} rule ${describeRule(reason.rule)}${reason.matched !== undefined ? ` matched ${JSON.stringify(reason.matched)}` : ""}`;
    case "mode":
      return `permission mode ${reason.mode}`;
    case "workingDirectory":
      return reason.inside
        ? `${reason.path} is inside the working directory ${reason.directory ?? ""}`.trim()
        : `${reason.path} is outside the working directories`;
    case "safetyCheck":
      return `safety check${reason.path ? ` on ${reason.path}` : ""}: ${reason.reason} (always asked, even in bypassPermissions mode)`;
    case "subcommands":
      return `judged per command part${reason.decidingPart !== undefined ? `; deciding part ${JSON.stringify(reason.decidingPart)}` : ""}`;
    case "hook":
      return `${reason.hookEvent} hook${reason.command ? ` ${JSON.stringify(reason.command)}` : ""}${reason.reason ? `: ${reason.reason}` : ""}`;
    case "tool":
    case "userInput":
    case "nonInteractive":
    case "other":
      return reason.reason;
  }
}

function rulesText(rules: readonly PermissionRuleValue[]): string {
  return rules.map((r) => JSON.stringify(ruleToString(r))).join(", ");
}

/** `Bash(npm test)` for a shell: double quotes unless the text needs single ones. */
function shellArg(text: string): string {
  if (!/["$`\\!]/.test(text)) return `"${text}"`;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** One suggestion as a sentence: what to add where. */
export function describeSuggestion(update: PermissionUpdate): string {
  switch (update.type) {
    case "addRules":
      return `${update.behavior} ${rulesText(update.rules)} — ${destinationLabel(update.destination)}`;
    case "addDirectories":
      return `add working director${update.directories.length === 1 ? "y" : "ies"} ${update.directories.join(", ")} — ${destinationLabel(update.destination)}`;
    case "setMode":
      return `switch to ${update.mode} mode — ${destinationLabel(update.destination)}`;
  }
}

/**
 * What would allow a call that asked, for a session that cannot ask: the settings line and the CLI flag,
 * e.g. `add "Bash(npm test)" to permissions.allow in .toolgate/settings.local.json or pass --allowedTools "Bash(npm test)"`.
 */
export function howToAllow(decision: Pick<PermissionResult, "decisionReason"> & { suggestions?: PermissionUpdate[] }): string {
  const reason = decision.decisionReason;
  if (reason?.type === "rule" && reason.rule.ruleBehavior === "ask") {
    return `No allow rule can override the ask rule ${describeRule(reason.rule)}; remove it or run interactively to approve the call.`;
  }
  if (reason?.type === "safetyCheck") return "Protected paths are always confirmed by a person; run interactively to approve the call.";
  if (reason?.type === "hook" && reason.hookEvent === "PreToolUse") {
    const hook = reason.command ? ` \`${reason.command}\`` : "";
    const where = reason.file ? ` (hooks.PreToolUse in ${reason.file})` : "";
    return `A hook's ask cannot be overridden by allow rules or --allowedTools. To let such calls run unattended, change the PreToolUse hook${hook}${where} so it does not ask for them; or run interactively to approve the call.`;
  }
  const suggestions = decision.suggestions ?? [];
  const ruleUpdate =
    suggestions.find((s) => s.type === "addRules" && s.behavior === "allow" && s.destination === "localSettings") ??
    suggestions.find((s) => s.type === "addRules" && s.behavior === "allow");
  const parts: string[] = [];
  if (ruleUpdate?.type === "addRules") {
    const rules = ruleUpdate.rules.map((r) => ruleToString(r));
    const file = ruleUpdate.destination === "session" ? DESTINATION_FILES.localSettings : DESTINATION_FILES[ruleUpdate.destination];
    parts.push(
      `add ${rules.map((r) => JSON.stringify(r)).join(", ")} to permissions.allow in ${file} or pass ${rules.map((r) => `--allowedTools ${shellArg(r)}`).join(" ")}`,
    );
  }
  const dirUpdate = suggestions.find((s) => s.type === "addDirectories");
  if (dirUpdate?.type === "addDirectories") {
    parts.push(
      `add ${dirUpdate.directories.map((d) => JSON.stringify(d)).join(", ")} to permissions.additionalDirectories in ${DESTINATION_FILES.localSettings} or pass ${dirUpdate.directories.map((d) => `--add-dir ${shellArg(d)}`).join(" ")}`,
    );
  }
  const modeUpdate = suggestions.find((s) => s.type === "setMode");
  if (modeUpdate?.type === "setMode") parts.push(`run with --permission-mode ${modeUpdate.mode}`);
  if (parts.length === 0) return "";
  return `To allow it, ${parts.join("; or ")}.`;
}

export function subcommandLines(reason: PermissionDecisionReason | undefined, indent: string): string[] {
  if (reason?.type !== "subcommands") return [];
  const lines: string[] = [];
  for (const part of reason.parts) {
    const deciding = reason.decidingPart === part.command ? " (deciding)" : "";
    lines.push(`${indent}${JSON.stringify(part.command)}: ${part.result.behavior}${deciding} — ${describeDecisionReason(part.result.decisionReason)}`);
    lines.push(...subcommandLines(part.result.decisionReason, `${indent}  `));
  }
  return lines;
}

/** Human-readable explanation of a decision: which rule, which source and file, which part matched. */
export function formatDecisionExplanation(result: PermissionResult): string {
  const lines: string[] = [];
  const message = "message" in result && result.message ? ` — ${result.message}` : "";
  lines.push(`${result.behavior}${message}`);
  lines.push(`  because: ${describeDecisionReason(result.decisionReason)}`);
  lines.push(...subcommandLines(result.decisionReason, "    "));
  const suggestions = "suggestions" in result ? (result.suggestions ?? []) : [];
  if (suggestions.length) {
    lines.push("  suggestions:");
    for (const s of suggestions) lines.push(`    - ${describeSuggestion(s)}`);
  }
  return lines.join("\n");
}
