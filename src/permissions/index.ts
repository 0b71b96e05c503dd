/**
 * The permission engine (SPEC section 4): rule parsing, path and command matching, the decision order,
 * explanations, non-interactive denial and remembering rules. Tools code against these functions.
 */
export {
  checkReadPermissionForPath,
  checkWritePermissionForPath,
  matchingReadDenyRule,
  protectedPathReason,
} from "./fileChecks.js";
export { readDenyGlobsForRoot, resolvePatternRoot, matchPathRule, type PathRuleTool } from "./pathRules.js";
export { getWorkingDirectories, isInWorkingDirectories, resolveRealPath } from "./paths.js";
export { SAFETY_FILE_NAMES } from "./safetyPaths.js";
export { getContentRulesForTool, getWholeToolRule, ruleMatchesWholeTool, ruleToString, compareRulesByPrecedence } from "./rules.js";
export { matchCommandPattern, commandRulePrefix, matchDomainRule, hostOfUrl, domainRuleContentForUrl } from "./matchers.js";
export { hasPermissionsToUseTool, decidePermission, isForcedAsk } from "./decide.js";
export { formatDecisionExplanation, describeDecisionReason, describeSuggestion, howToAllow } from "./explain.js";
export { explainPermission, parseExplainInput, type PermissionExplanation, type ExplainInput } from "./explainPermission.js";
export { createNonInteractiveCanUseTool } from "./nonInteractive.js";
export { ruleSuggestions, SUGGESTION_DESTINATIONS } from "./suggestions.js";
export { describeRule, sourceLabel } from "./describe.js";
export {
  parsePermissionRule,
  formatPermissionRule,
  escapeRuleContent,
  splitRuleList,
  PermissionRuleParseError,
} from "./ruleParser.js";
export {
  buildPermissionContext,
  resolveDefaultMode,
  rulesFromSettings,
  rulesFromCli,
  type BuildPermissionContextOptions,
} from "./context.js";
export {
  applyPermissionUpdate,
  applyPermissionUpdateToContext,
  settingsFileForDestination,
  type PermissionUpdateTarget,
  type PermissionUpdateOutcome,
} from "./update.js";
export { parsePermissionUpdates, type ParsedPermissionUpdates } from "./updateInput.js";
export { formatRulesTable, sortRules, workingDirectoryLines } from "./listing.js";
export {
  findRuleToolNameProblems,
  formatRuleToolNameProblem,
  isRuleToolNameTypo,
  OTHER_AGENT_TOOL_NAMES,
  type RuleToolNameContext,
  type RuleToolNameProblem,
} from "./ruleToolNames.js";
