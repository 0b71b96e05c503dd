import type {
  PermissionBehavior,
  PermissionRuleValue,
  PermissionUpdate,
  PermissionUpdateDestination,
} from "../core/permissionTypes.js";

/** Scopes a rule can be remembered in, narrowest first (the order suggestions are offered in). */
export const SUGGESTION_DESTINATIONS: readonly PermissionUpdateDestination[] = [
  "session",
  "localSettings",
  "projectSettings",
  "userSettings",
];

/**
 * The same rule offered for every scope; `overrides` replaces it for some (a path rule written for
 * user settings must be absolute, since `/x` there would be relative to the home directory).
 */
export function ruleSuggestions(
  rule: PermissionRuleValue,
  behavior: PermissionBehavior = "allow",
  overrides: Partial<Record<PermissionUpdateDestination, PermissionRuleValue>> = {},
): PermissionUpdate[] {
  return SUGGESTION_DESTINATIONS.map((destination) => ({
    type: "addRules",
    behavior,
    rules: [overrides[destination] ?? rule],
    destination,
  }));
}
