import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import { readSettingsSection } from "../../core/context.js";
import { displayPath } from "../../core/paths.js";
import type { ToolUseContext } from "../../core/Tool.js";
import type { ToolResultBlockParam } from "../../core/messages.js";
import { GLOB_MAX_RESULTS, globSearch, splitGlobPattern, type GlobProgress } from "./glob.js";
import { GLOB_DESCRIPTION, GLOB_TOOL_NAME, globPrompt } from "./prompt.js";
import { resolveToolPath } from "../files/toolPaths.js";
import { searchPathOf, searchToolMembers } from "../search/searchTool.js";

const inputSchema = () =>
  z.strictObject({
    pattern: z.string().min(1).describe('The glob pattern to match file paths against, e.g. "**/*.ts" or "src/**/index.{js,ts}"'),
    path: z
      .string()
      .optional()
      .describe("The directory to search in (default: the current working directory). Leave it out rather than passing null or \"undefined\"."),
  });

export type GlobInput = z.infer<ReturnType<typeof inputSchema>>;

export interface GlobOutput {
  /** Matching files, newest modified first, relative to the session cwd when inside it; at most 100. */
  filenames: string[];
  /** Every match, before the cap. */
  numFiles: number;
  truncated: boolean;
  durationMs: number;
  /** The listing was stopped early (timeout or output cap): the files are only part of the matches. */
  partial?: "timeout" | "output_limit";
}

export type { GlobProgress };

/** The directory actually walked: an absolute pattern or a literal prefix narrows the directory the pattern is relative to. */
function searchRootOf(input: GlobInput, context: ToolUseContext): string {
  return splitGlobPattern(input.pattern, searchPathOf(input, context)).root;
}

/** `glob` in settings.json: search hidden files (default true) and apply .gitignore (default false). */
export const GLOB_SETTINGS = { key: "glob", schema: z.looseObject({ includeHidden: z.boolean().optional(), respectGitignore: z.boolean().optional() }) };

export const GlobTool = buildTool<GlobInput, GlobOutput, GlobProgress>({
  settingsSection: GLOB_SETTINGS,
  name: GLOB_TOOL_NAME,
  searchHint: "find files by name pattern glob wildcard list directory",
  maxResultSizeChars: 20_000,
  inputSchema,
  description: () => GLOB_DESCRIPTION,
  prompt: () => globPrompt(),
  ...searchToolMembers(searchRootOf),
  isResultTruncated: (output) => output.truncated || output.partial !== undefined,

  async validateInput(input, context) {
    if (input.path === undefined || path.isAbsolute(input.pattern)) return { result: true };
    const cwd = context.getCwd();
    const dir = resolveToolPath(input.path, context);
    const stat = fs.statSync(dir, { throwIfNoEntry: false });
    if (!stat) {
      return { result: false, message: `Directory does not exist: ${input.path}. The current working directory is ${cwd}.`, errorCode: 1 };
    }
    if (!stat.isDirectory()) {
      return { result: false, message: `Path is not a directory: ${input.path}. Pass the directory that contains it as "path".`, errorCode: 2 };
    }
    return { result: true };
  },

  async call(input, context, _canUseTool, _message, onProgress) {
    const started = Date.now();
    const cwd = context.getCwd();
    const settings = readSettingsSection(context, GLOB_SETTINGS) ?? {};
    const result = await globSearch({
      pattern: input.pattern,
      baseDir: searchPathOf(input, context),
      permissionContext: context.getAppState().toolPermissionContext,
      includeHidden: settings.includeHidden ?? true,
      respectGitignore: settings.respectGitignore ?? false,
      env: context.env,
      signal: context.abortController.signal,
      onHeartbeat: onProgress ? (data) => onProgress({ toolUseID: context.toolUseID ?? "", data }) : undefined,
    });
    const output: GlobOutput = {
      // The newest matches are kept when there are too many; they are listed oldest first, as Claude Code lists them.
      filenames: result.files.slice(0, GLOB_MAX_RESULTS).reverse().map((file) => displayPath(file, cwd)),
      numFiles: result.files.length,
      truncated: result.files.length > GLOB_MAX_RESULTS,
      durationMs: Date.now() - started,
    };
    if (result.partial) output.partial = result.partial;
    return { data: output };
  },

  mapToolResultToToolResultBlockParam(output, toolUseID): ToolResultBlockParam {
    return { type: "tool_result", tool_use_id: toolUseID, content: formatGlobResult(output) };
  },
});

const PARTIAL_NOTES = {
  timeout: "The search timed out, so these are only the files found before it was stopped; narrow the pattern or path.",
  output_limit: "The listing was too large and was stopped, so these are only part of the matches; narrow the pattern or path.",
} as const;

export function formatGlobResult(output: GlobOutput): string {
  const lines = output.filenames.length === 0 ? ["No files found"] : [...output.filenames];
  if (output.truncated) {
    lines.push(
      `(Results are truncated: showing the ${output.filenames.length} most recently modified of ${output.numFiles} matching files, oldest of them first. Use a more specific pattern or path to see the others.)`,
    );
  }
  if (output.partial) lines.push(`(${PARTIAL_NOTES[output.partial]})`);
  return lines.join("\n");
}
