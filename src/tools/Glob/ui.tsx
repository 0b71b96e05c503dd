import type { RenderOptions, ToolRenderer } from "../../ui/toolRenderer.js";
import { displayPath, plural, searchRenderer, str } from "../../ui/components/index.js";
import type { GlobInput, GlobOutput } from "./index.js";

function summarize(input: Partial<GlobInput>, options: RenderOptions): string {
  const pattern = str(input.pattern);
  const parts = [pattern === undefined ? "" : `pattern: ${JSON.stringify(pattern)}`];
  const dir = str(input.path);
  if (dir !== undefined) parts.push(`path: ${JSON.stringify(displayPath(dir, options.cwd))}`);
  return parts.filter(Boolean).join(", ");
}

function describe(output: GlobOutput | undefined): string {
  if (!output) return "Searched";
  const shown = output.truncated ? ` (first ${output.filenames?.length ?? 0} shown)` : "";
  const partial = output.partial === "timeout" ? " (timed out: partial)" : output.partial ? " (stopped early: partial)" : "";
  return `Found ${plural(output.numFiles, "file")}${shown}${partial}`;
}

export const renderer: ToolRenderer<GlobInput, GlobOutput> = searchRenderer<GlobInput, GlobOutput>({ summarize, describe, matches: (output) => (output?.filenames ?? []).join("\n") });
