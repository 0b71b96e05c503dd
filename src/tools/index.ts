import type { Tools } from "../core/Tool.js";
import { ApplyPatchTool } from "./ApplyPatch/index.js";
import { AgentTool } from "./Agent/index.js";
import { TodoWriteTool } from "./TodoWrite/index.js";
import { ExitPlanModeTool } from "./ExitPlanMode/index.js";
import { AskUserQuestionTool } from "./AskUserQuestion/index.js";
import { BashTool } from "./Bash/tool.js";
import { DiagnosticsTool } from "./Diagnostics/index.js";
import { ListMcpResourcesTool, ReadMcpResourceTool } from "./McpResources/index.js";
import { EditTool } from "./Edit/index.js";
import { GlobTool } from "./Glob/index.js";
import { GrepTool } from "./Grep/index.js";
import { MultiEditTool } from "./MultiEdit/index.js";
import { NotebookEditTool } from "./NotebookEdit/index.js";
import { ReadTool } from "./Read/index.js";
import { REPLTool } from "./REPL/index.js";
import { SkillTool } from "./Skill/index.js";
import { TaskOutputTool } from "./TaskOutput/index.js";
import { TaskStopTool } from "./TaskStop/index.js";
import { TextEditorTool } from "./TextEditor/index.js";
import { COMPUTER_TOOL_NAME } from "./Computer/prompt.js";
import { ToolSearchTool } from "./ToolSearch/index.js";
import { WriteTool } from "./Write/index.js";
import { WebFetchTool } from "./WebFetch/index.js";
import { WebSearchTool } from "./WebSearch/index.js";

export {
  ApplyPatchTool,
  AgentTool,
  TodoWriteTool,
  ExitPlanModeTool,
  AskUserQuestionTool,
  BashTool,
  DiagnosticsTool,
  EditTool,
  GlobTool,
  GrepTool,
  MultiEditTool,
  NotebookEditTool,
  ReadTool,
  REPLTool,
  SkillTool,
  TaskOutputTool,
  TaskStopTool,
  TextEditorTool,
  ToolSearchTool,
  WriteTool,
  WebFetchTool,
  WebSearchTool,
};

/** Every built-in tool, in the order they are presented to the model. */
export function getBuiltinTools(): Tools {
  return [
    BashTool,
    GlobTool,
    GrepTool,
    ReadTool,
    EditTool,
    MultiEditTool,
    WriteTool,
    NotebookEditTool,
    TextEditorTool,
    ApplyPatchTool,
    TaskOutputTool,
    TaskStopTool,
    ToolSearchTool,
    WebFetchTool,
    WebSearchTool,
    SkillTool,
    TodoWriteTool,
    ExitPlanModeTool,
    AskUserQuestionTool,
    AgentTool,
  ];
}

/**
 * Every name (and alias) a permission rule may give a built-in tool, including the ones a session adds only
 * when configured (Diagnostics, with language servers; the MCP resource tools, with MCP servers; REPL, with python3; computer, with a display): a rule naming one of them is not a typo.
 */
export function builtinToolNames(): string[] {
  return [...[...getBuiltinTools(), DiagnosticsTool, ListMcpResourcesTool, ReadMcpResourceTool, REPLTool].flatMap((t) => [t.name, ...(t.aliases ?? [])]), COMPUTER_TOOL_NAME];
}
