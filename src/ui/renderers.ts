/** Which renderer draws which tool: each is imported on first use, and an unknown tool gets the generic one. */
import type { AnyToolRenderer } from "./toolRenderer.js";

type Loader = () => Promise<{ renderer: AnyToolRenderer }>;

/** Built-in tool name → its `src/tools/<Name>/ui.tsx`. */
const LOADERS: Readonly<Record<string, Loader>> = {
  Agent: () => import("../tools/Agent/ui.js"),
  TodoWrite: () => import("../tools/TodoWrite/ui.js"),
};

const loaded = new Map<string, AnyToolRenderer>();

/** The renderer for a tool (MCP tools and tools without one of their own get the generic renderer). */
export async function loadToolRenderer(toolName: string): Promise<AnyToolRenderer> {
  const cached = loaded.get(toolName);
  if (cached) return cached;
  const loader = LOADERS[toolName];
  const renderer = loader ? (await loader()).renderer : (await import("./genericRenderer.js")).genericRenderer;
  loaded.set(toolName, renderer);
  return renderer;
}
