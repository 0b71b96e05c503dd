import type { Tools } from "../core/Tool.js";
import { AgentTool } from "./Agent/index.js";
import { TodoWriteTool } from "./TodoWrite/index.js";
import { BashTool } from "./Bash/tool.js";
import { EditTool } from "./Edit/index.js";
import { GlobTool } from "./Glob/index.js";
import { GrepTool } from "./Grep/index.js";
import { MultiEditTool } from "./MultiEdit/index.js";
import { NotebookEditTool } from "./NotebookEdit/index.js";
import { ReadTool } from "./Read/index.js";
import { TaskOutputTool } from "./TaskOutput/index.js";
import { TaskStopTool } from "./TaskStop/index.js";
import { ToolSearchTool } from "./ToolSearch/index.js";
import { WriteTool } from "./Write/index.js";

export {
  AgentTool,
  TodoWriteTool,
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
    TaskOutputTool,
    TaskStopTool,
    ToolSearchTool,
    TodoWriteTool,
    AgentTool,
  ];
}
