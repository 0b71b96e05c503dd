export { bashParserStatus, parseBash } from "./parser.js";
export { analyzeCommand, analyzeCommandUncached, clearAnalysisCache, ANALYSIS_LIMITS, type BashAnalysis, type CommandPart, type RedirectPart, type PathArgument } from "./analyze.js";
export {
  checkBashCommandPermission,
  isReadOnlyCommand,
  isExactCommandRule,
  defaultBashPermissionDeps,
  type BashPermissionDeps,
  type BashPermissionRequest,
} from "./decide.js";
export { stripWrappers, shellScriptOf, isSafeEnvName } from "./wrappers.js";
export { judgeReadOnly, readOnlyCommandNames } from "./readOnly.js";
export { suggestRuleContent } from "./suggestions.js";
