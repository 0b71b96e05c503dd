import type { RenderOptions, ToolRenderer } from "../../ui/toolRenderer.js";
import { displayPath, plural, searchRenderer, str } from "../../ui/components/index.js";
import type { GrepInput, GrepOutput } from "./index.js";

function summarize(input: Partial<GrepInput>, options: RenderOptions): string {
  const pattern = str(input.pattern);
  const parts = [pattern === undefined ? "" : `pattern: ${JSON.stringify(pattern)}`];
  const searchPath = str(input.path);
  if (searchPath !== undefined) parts.push(`path: ${JSON.stringify(displayPath(searchPath, options.cwd))}`);
  if (str(input.glob)) parts.push(`glob: ${JSON.stringify(input.glob)}`);
  if (str(input.type)) parts.push(`type: ${input.type}`);
  if (str(input.output_mode) && input.output_mode !== "files_with_matches") parts.push(`${input.output_mode}`);
  if (input["-i"] === true) parts.push("-i");
  return parts.filter(Boolean).join(", ");
}

function describe(output: GrepOutput | undefined): string {
  if (!output) return "Searched";
  const partial = output.partial === "timeout" ? " (timed out: partial)" : output.partial ? " (stopped early: partial)" : "";
  switch (output.mode) {
    case "content":
      return `Found ${plural(output.numLines, "line")} in ${plural(output.numFiles, "file")}${partial}`;
    case "count":
      return `Found ${plural(output.numMatches, "match", "matches")} in ${plural(output.numFiles, "file")}${partial}`;
    default:
      return `Found ${plural(output.numFiles, "file")}${partial}`;
  }
}

/** The matches as lines: file names, `path:line:text`, or `path: count`. */
function matchLines(output: GrepOutput | undefined): string {
  switch (output?.mode) {
    case "files_with_matches":
      return (output.filenames ?? []).join("\n");
    case "content":
      return (output.lines ?? []).map((l) => `${l.path}${l.isMatch ? ":" : "-"}${l.line}${l.isMatch ? ":" : "-"}${l.text}`).join("\n");
    case "count":
      return (output.counts ?? []).map((c) => `${c.path}: ${c.count}`).join("\n");
    default:
      return "";
  }
}

export const renderer: ToolRenderer<GrepInput, GrepOutput> = searchRenderer<GrepInput, GrepOutput>({ summarize, describe, matches: matchLines });
