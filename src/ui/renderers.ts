/** Which renderer draws which tool: each is imported on first use, and an unknown tool gets the generic one. */
import type { AnyToolRenderer } from "./toolRenderer.js";

type Loader = () => Promise<{ renderer: AnyToolRenderer }>;

/** Built-in tool name (and old names still in use) → its `src/tools/<Name>/ui.tsx`. */
const LOADERS: Readonly<Record<string, Loader>> = {
  Read: () => import("../tools/Read/ui.js"),
  Edit: () => import("../tools/Edit/ui.js"),
  MultiEdit: () => import("../tools/MultiEdit/ui.js"),
  Write: () => import("../tools/Write/ui.js"),
  NotebookEdit: () => import("../tools/NotebookEdit/ui.js"),
  Bash: () => import("../tools/Bash/ui.js"),
  Grep: () => import("../tools/Grep/ui.js"),
  Glob: () => import("../tools/Glob/ui.js"),
  TaskOutput: () => import("../tools/TaskOutput/ui.js"),
  BashOutput: () => import("../tools/TaskOutput/ui.js"),
  TaskStop: () => import("../tools/TaskStop/ui.js"),
  KillShell: () => import("../tools/TaskStop/ui.js"),
  ToolSearch: () => import("../tools/ToolSearch/ui.js"),
  WebFetch: () => import("../tools/WebFetch/ui.js"),
  WebSearch: () => import("../tools/WebSearch/ui.js"),
  TodoWrite: () => import("../tools/TodoWrite/ui.js"),
  ExitPlanMode: () => import("../tools/ExitPlanMode/ui.js"),
  AskUserQuestion: () => import("../tools/AskUserQuestion/ui.js"),
  Agent: () => import("../tools/Agent/ui.js"),
  Task: () => import("../tools/Agent/ui.js"),
  Skill: () => import("../tools/Skill/ui.js"),
  str_replace_based_edit_tool: () => import("../tools/TextEditor/ui.js"),
  apply_patch: () => import("../tools/ApplyPatch/ui.js"),
  Diagnostics: () => import("../tools/Diagnostics/ui.js"),
  REPL: () => import("../tools/REPL/ui.js"),
  computer: () => import("../tools/Computer/ui.js"),
};

/** The tool names with a renderer of their own (MCP tools are matched by prefix instead). */
export const RENDERED_TOOL_NAMES: readonly string[] = Object.keys(LOADERS);

const loaded = new Map<string, AnyToolRenderer>();

/**
 * The renderer for a tool: its own, the MCP one for `mcp__server__tool`, else the generic one; wrapped so that a
 * renderer that throws (a malformed output, a non-object input) draws the generic rendering instead.
 */
export async function loadToolRenderer(toolName: string): Promise<AnyToolRenderer> {
  const cached = loaded.get(toolName);
  if (cached) return cached;
  const loader = Object.hasOwn(LOADERS, toolName) ? LOADERS[toolName] : undefined;
  let renderer: AnyToolRenderer;
  if (loader) renderer = (await loader()).renderer;
  else if (toolName.startsWith("mcp__")) renderer = (await import("./mcpRenderer.js")).mcpRenderer(toolName);
  else renderer = (await import("./genericRenderer.js")).genericRenderer;
  renderer = (await import("./safeRenderer.js")).safeRenderer(renderer, toolName);
  loaded.set(toolName, renderer);
  return renderer;
}
