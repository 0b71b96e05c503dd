/**
 * Bash as data: the tree-sitter parser and the command analysis (parts, words, wrappers, redirections,
 * directories, what each read-only program may do). Judged by the Bash tool's permission check; available to
 * hooks, the sandbox and the UI that need to understand a command line. Importing this surface waits for the
 * parser, so its synchronous functions see a real AST from the first call; the CLI imports the modules
 * behind it directly and loads the parser on first need.
 */
import { loadBashParser } from "./parser.js";

export { bashParserStatus, parseBash, bashSyntaxError, bashSyntaxErrorAsync, loadBashParser, isBashParserLoaded } from "./parser.js";
export { analyzeCommand, clearAnalysisCache, type BashAnalysis, type CommandPart, type RedirectPart, type PathArgument, type DirectoryState } from "./analyze.js";
export { stripWrappers, shellScriptOf, isSafeEnvName } from "./wrappers.js";
export { judgeReadOnly } from "./readOnly.js";

await loadBashParser();
