export { bashParserStatus, loadBashParser, parseBash, analyzeCommand, clearAnalysisCache, type BashAnalysis, type CommandPart, type RedirectPart, type PathArgument } from "../../../shell/index.js";
export {
  checkBashCommandPermission,
  checkBashCommandPermissionAsync,
  isReadOnlyCommand,
  isExactCommandRule,
  type BashPermissionDeps,
  type BashPermissionRequest,
} from "./decide.js";
export { stripWrappers, shellScriptOf, isSafeEnvName, judgeReadOnly } from "../../../shell/index.js";
export { suggestRuleContent } from "./suggestions.js";
