/** toolgate's public API. */
export * from "./core/index.js";
export * from "./permissions/index.js";
export * from "./settings/index.js";
export * from "./hooks/index.js";
export * from "./mcp/index.js";
export { createSession, type Session, type SessionOptions } from "./session/index.js";
export { runExec, type ExecSession, type ExecIO, type ExecSummary } from "./cli/exec.js";
export { parseExecLine, formatExecError, type ExecRequest } from "./cli/execProtocol.js";
export {
  getBuiltinTools,
  BashTool,
  EditTool,
  GlobTool,
  GrepTool,
  MultiEditTool,
  NotebookEditTool,
  ReadTool,
  TaskOutputTool,
  TaskStopTool,
  ToolSearchTool,
  WriteTool,
} from "./tools/index.js";
export type { BashInput, BashOutput, BashProgress } from "./tools/Bash/index.js";
export { checkBashCommandPermission, analyzeCommand, bashParserStatus, type BashAnalysis } from "./tools/Bash/permissions/index.js";
export type { TaskOutputInput, TaskOutputOutput } from "./tools/TaskOutput/index.js";
export type { TaskStopInput, TaskStopOutput } from "./tools/TaskStop/index.js";
export type { GlobInput, GlobOutput, GlobProgress } from "./tools/Glob/index.js";
export type { GrepInput, GrepOutput, GrepProgress } from "./tools/Grep/index.js";
export type { ReadInput, ReadOutput } from "./tools/Read/index.js";
export type { EditInput, EditOutput } from "./tools/Edit/index.js";
export type { MultiEditInput, MultiEditOutput } from "./tools/MultiEdit/index.js";
export type { WriteInput, WriteOutput } from "./tools/Write/index.js";
export type { NotebookEditInput, NotebookEditOutput } from "./tools/NotebookEdit/index.js";
export type { ToolSearchInput, ToolSearchOutput, ToolSearchResultFormat } from "./tools/ToolSearch/index.js";
