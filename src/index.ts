/** toolgate's public API. */
export * from "./core/index.js";
export { getBuiltinTools } from "./tools/index.js";
export { runExec, type ExecSession, type ExecIO, type ExecSummary } from "./cli/exec.js";
export { parseExecLine, type ExecRequest } from "./cli/execProtocol.js";
export type * from "./settings/types.js";
