export { bashParserStatus, parseBash } from "./parser.js";
export { analyzeCommand, clearAnalysisCache, type BashAnalysis, type CommandPart, type RedirectPart, type PathArgument } from "./analyze.js";
export {
  checkBashCommandPermission,
  isReadOnlyCommand,
  isExactCommandRule,
  type BashPermissionDeps,
  type BashPermissionRequest,
} from "./decide.js";
export { stripWrappers, shellScriptOf, isSafeEnvName } from "./wrappers.js";
export { judgeReadOnly } from "./readOnly.js";
export { suggestRuleContent } from "./suggestions.js";
