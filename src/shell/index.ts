/**
 * Bash as data: the tree-sitter parser and the command analysis (parts, words, wrappers, redirections,
 * directories, what each read-only program may do). Judged by the Bash tool's permission check; available to
 * hooks, the sandbox and the UI that need to understand a command line.
 */
export { bashParserStatus, parseBash, bashSyntaxError } from "./parser.js";
export { analyzeCommand, clearAnalysisCache, type BashAnalysis, type CommandPart, type RedirectPart, type PathArgument, type DirectoryState } from "./analyze.js";
export { stripWrappers, shellScriptOf, isSafeEnvName } from "./wrappers.js";
export { judgeReadOnly } from "./readOnly.js";
