import fs from "node:fs";
import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import { readSettingsSection } from "../../core/context.js";
import { displayPath } from "../../core/paths.js";
import type { ToolUseContext } from "../../core/Tool.js";
import type { ToolResultBlockParam } from "../../core/messages.js";
import { DEFAULT_SEARCH_TIMEOUT_MS } from "../search/ripgrep.js";
import { searchPathOf, searchToolMembers } from "../search/searchTool.js";
import { splitGlobList } from "./args.js";
import { formatGrepResult, isFailedSearch, type GrepOutput, type GrepPage } from "./output.js";
import { contentPage, grepSearch, type GrepProgress } from "./search.js";
import { GREP_DEFAULT_HEAD_LIMIT, GREP_DESCRIPTION, GREP_TOOL_NAME, grepPrompt } from "./prompt.js";

const count = () => z.number().int().nonnegative();

const inputSchema = () =>
  z.strictObject({
    pattern: z.string().describe("The regular expression to search for (ripgrep syntax)"),
    path: z.string().optional().describe("File or directory to search (default: the current working directory)"),
    glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.js" or "*.{ts,tsx}" (rg --glob)'),
    type: z.string().optional().describe("Only search files of this ripgrep type, e.g. js, py, rust (rg --type)"),
    output_mode: z
      .enum(["files_with_matches", "content", "count"])
      .optional()
      .describe('"files_with_matches" (default): file paths; "content": matching lines; "count": matches per file'),
    "-A": count().optional().describe("Lines of context after each match (content mode)"),
    "-B": count().optional().describe("Lines of context before each match (content mode)"),
    "-C": count().optional().describe("Lines of context before and after each match (content mode)"),
    "-n": z.boolean().optional().describe("Show line numbers (content mode; default true)"),
    "-i": z.boolean().optional().describe("Case-insensitive search"),
    multiline: z.boolean().optional().describe("Let matches span lines; . matches newlines (default false)"),
    head_limit: count().optional().describe(`Return at most this many entries (lines, files or count rows); default ${GREP_DEFAULT_HEAD_LIMIT}, 0 = no limit`),
    offset: count().optional().describe("Skip this many entries first (default 0); use it to get the next page"),
  });

export type GrepInput = z.infer<ReturnType<typeof inputSchema>>;
export type { GrepOutput, GrepProgress };

function timeoutFrom(context: ToolUseContext): number {
  const configured = readSettingsSection(context, GREP_SETTINGS)?.timeoutMs;
  return typeof configured === "number" && Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_SEARCH_TIMEOUT_MS;
}

function pageOf(offset: number, headLimit: number, shown: number, total: number): GrepPage {
  return { offset, headLimit, shown, total, hasMore: headLimit > 0 && offset + headLimit < total };
}

function paginate<T>(items: readonly T[], offset: number, headLimit: number): { items: T[]; page: GrepPage } {
  const slice = items.slice(offset, headLimit > 0 ? offset + headLimit : undefined);
  return { items: slice, page: pageOf(offset, headLimit, slice.length, items.length) };
}

/** `grep` in settings.json: kill ripgrep after this many milliseconds (default 20 000). */
export const GREP_SETTINGS = { key: "grep", schema: z.looseObject({ timeoutMs: z.number().positive().finite().optional() }) };

export const GrepTool = buildTool<GrepInput, GrepOutput, GrepProgress>({
  settingsSection: GREP_SETTINGS,
  name: GREP_TOOL_NAME,
  searchHint: "search file contents regex ripgrep rg grep find text",
  maxResultSizeChars: 20_000,
  inputSchema,
  description: () => GREP_DESCRIPTION,
  prompt: () => grepPrompt(),
  ...searchToolMembers<GrepInput>(searchPathOf),
  isResultTruncated: (output) => output.page.hasMore || output.partial !== undefined,

  async validateInput(input, context) {
    if (input.path === undefined) return { result: true };
    const cwd = context.getCwd();
    if (!fs.existsSync(searchPathOf(input, context))) {
      return { result: false, message: `Path does not exist: ${input.path}. The current working directory is ${cwd}.`, errorCode: 1 };
    }
    return { result: true };
  },

  async call(input, context, _canUseTool, _message, onProgress) {
    const started = Date.now();
    const cwd = context.getCwd();
    const mode = input.output_mode ?? "files_with_matches";
    const timeoutMs = timeoutFrom(context);
    const result = await grepSearch({
      pattern: input.pattern,
      mode,
      globs: input.glob ? splitGlobList(input.glob) : [],
      type: input.type,
      caseInsensitive: input["-i"] ?? false,
      multiline: input.multiline ?? false,
      before: input["-B"],
      after: input["-A"],
      context: input["-C"],
      target: searchPathOf(input, context),
      permissionContext: context.getAppState().toolPermissionContext,
      timeoutMs,
      env: context.env,
      signal: context.abortController.signal,
      onHeartbeat: onProgress ? (data) => onProgress({ toolUseID: context.toolUseID ?? "", data }) : undefined,
    });

    const offset = input.offset ?? 0;
    const headLimit = input.head_limit ?? GREP_DEFAULT_HEAD_LIMIT;
    const shown = (file: string) => displayPath(file, cwd);
    const common = {
      durationMs: 0,
      timeoutMs,
      ...(result.partial ? { partial: result.partial } : {}),
      ...(result.binaryFiles.length ? { binaryFiles: result.binaryFiles.map(shown) } : {}),
      ...(result.warnings.length ? { warnings: result.warnings } : {}),
    };
    let output: GrepOutput;
    if (mode === "files_with_matches") {
      const { items, page } = paginate(result.files, offset, headLimit);
      output = { ...common, mode, page, filenames: items.map(shown), numFiles: result.files.length };
    } else if (mode === "content") {
      const lines = contentPage(result.content, offset, headLimit);
      output = {
        ...common,
        mode,
        page: pageOf(offset, headLimit, lines.length, result.numLines),
        lines: lines.map((record) => ({ ...record, path: shown(record.path) })),
        numLines: result.numLines,
        numFiles: result.content.length,
        showLineNumbers: input["-n"] ?? true,
        showSeparators: input["-A"] !== undefined || input["-B"] !== undefined || input["-C"] !== undefined,
      };
    } else {
      const { items, page } = paginate(result.counts, offset, headLimit);
      output = {
        ...common,
        mode,
        page,
        counts: items.map((entry) => ({ ...entry, path: shown(entry.path) })),
        numMatches: result.counts.reduce((sum, entry) => sum + entry.count, 0),
        numFiles: result.counts.length,
      };
    }
    output.durationMs = Date.now() - started;
    return { data: output };
  },

  mapToolResultToToolResultBlockParam(output, toolUseID): ToolResultBlockParam {
    const block: ToolResultBlockParam = { type: "tool_result", tool_use_id: toolUseID, content: formatGrepResult(output) };
    return isFailedSearch(output) ? { ...block, is_error: true } : block;
  },
});
