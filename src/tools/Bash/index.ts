/**
 * The Bash tool (defined in tool.ts). Importing this module waits for the bash grammar and the command
 * analysis, so BashTool's synchronous checks (isReadOnly, isConcurrencySafe) see a real AST from the first
 * call; the tool registry imports tool.js instead, so a session that never runs Bash never loads them.
 */
import { loadBashImplementation } from "./tool.js";

export * from "./tool.js";

await loadBashImplementation();
