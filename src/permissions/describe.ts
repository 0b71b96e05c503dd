import type { PermissionRule, PermissionRuleSource, PermissionUpdateDestination } from "../core/permissionTypes.js";
import { ruleToString } from "./rules.js";

const SOURCE_LABELS: Record<PermissionRuleSource, string> = {
  userSettings: "user settings",
  projectSettings: "project settings",
  localSettings: "local project settings",
  flagSettings: "--settings file",
  policySettings: "managed settings",
  cliArg: "command line",
  session: "this session",
};

export function sourceLabel(source: PermissionRuleSource): string {
  return SOURCE_LABELS[source] ?? source;
}

/** `"Read(.env)" from project settings (/p/.toolgate/settings.json)` */
export function describeRule(rule: PermissionRule): string {
  const file = rule.file ? ` (${rule.file})` : "";
  return `${JSON.stringify(ruleToString(rule))} from ${sourceLabel(rule.source)}${file}`;
}

/** Where a remembered rule goes, as the user would write it. */
export const DESTINATION_FILES: Record<Exclude<PermissionUpdateDestination, "session">, string> = {
  localSettings: ".toolgate/settings.local.json",
  projectSettings: ".toolgate/settings.json",
  userSettings: "~/.toolgate/settings.json",
};

export function destinationLabel(destination: PermissionUpdateDestination): string {
  return destination === "session" ? "this session only" : DESTINATION_FILES[destination];
}
