import fs from "node:fs";
import { z } from "zod";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { buildTool } from "../../core/buildTool.js";
import type { ToolUseContext } from "../../core/Tool.js";
import type { ToolResultBlockParam } from "../../core/messages.js";
import { displayPath } from "../../core/paths.js";
import { countBySeverity, formatDiagnosticList } from "../../lsp/format.js";
import type { LspManager } from "../../lsp/index.js";
import { missingFileMessage, observablePath, readPermission, resolveToolPath } from "../files/toolPaths.js";
import { DIAGNOSTICS_DESCRIPTION, DIAGNOSTICS_PROMPT, DIAGNOSTICS_TOOL_NAME } from "./prompt.js";

/** At most this many files are listed when no file is named. */
export const MAX_LISTED_FILES = 20;

const inputSchema = z.strictObject({
  file_path: z
    .string()
    .optional()
    .describe("The file to check: absolute, or relative to the working directory. Leave it out for every file the language servers have open."),
});

export type DiagnosticsInput = z.infer<typeof inputSchema>;

export interface FileDiagnostics {
  /** As shown to the model: relative to the working directory when inside it. */
  path: string;
  server: string;
  /** Errors, warnings and information (hints are left out). */
  diagnostics: Diagnostic[];
}

export interface DiagnosticsOutput {
  scope: "file" | "open";
  files: FileDiagnostics[];
  /** Asked about one file whose server could not answer: why. */
  unavailable?: string;
  /** Open files not listed because a rule denies reading them. */
  hiddenFiles: number;
  /** Server trouble not yet told to the model. */
  notices: string[];
}

const shown = (d: Diagnostic) => (d.severity ?? 1) <= 3;

function lspOf(context: ToolUseContext): LspManager | undefined {
  return context.lsp;
}

function targetOf(input: DiagnosticsInput, context: ToolUseContext): string {
  return input.file_path === undefined ? context.getCwd() : resolveToolPath(input.file_path, context);
}

function extensionsOf(lsp: LspManager): string {
  return [...new Set(Object.values(lsp.servers).flatMap((s) => s.extensions))].join(", ");
}

export const DiagnosticsTool = buildTool<DiagnosticsInput, DiagnosticsOutput>({
  name: DIAGNOSTICS_TOOL_NAME,
  searchHint: "type errors compiler warnings language server lsp problems",
  maxResultSizeChars: 30_000,
  inputSchema,
  description: () => DIAGNOSTICS_DESCRIPTION,
  prompt: () => DIAGNOSTICS_PROMPT,
  userFacingName: () => "Diagnostics",
  describeInput: (input) => input.file_path ?? "open files",
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  toAutoClassifierInput: (input) => input.file_path ?? "",

  getPath: (input, context) => (input.file_path === undefined ? (context?.getCwd() ?? ".") : observablePath(input.file_path, context)),
  backfillObservableInput(input, context) {
    if (input.file_path !== undefined) input.file_path = observablePath(input.file_path, context);
  },
  ruleFamily: "read",
  async checkPermissions(input, context) {
    return readPermission(targetOf(input, context), context);
  },

  async validateInput(input, context) {
    const lsp = lspOf(context);
    if (!lsp) return { result: false, message: "No language server is configured (settings: lsp), so there are no diagnostics to show.", errorCode: 1 };
    if (input.file_path === undefined) return { result: true };
    const absPath = targetOf(input, context);
    const stat = fs.statSync(absPath, { throwIfNoEntry: false });
    if (!stat) return { result: false, message: missingFileMessage(absPath, context), errorCode: 2 };
    if (!stat.isFile()) return { result: false, message: `${absPath} is not a file; Diagnostics checks one file (or leave file_path out for every open file).`, errorCode: 3 };
    if (!Object.values(lsp.servers).some((s) => s.extensions.some((ext) => absPath.toLowerCase().endsWith(ext.toLowerCase())))) {
      return { result: false, message: `No language server handles ${absPath}: the configured servers cover files ending in ${extensionsOf(lsp)}.`, errorCode: 4 };
    }
    return { result: true };
  },

  async call(input, context) {
    const lsp = lspOf(context)!;
    const cwd = context.getCwd();
    if (input.file_path !== undefined) {
      const absPath = targetOf(input, context);
      const result = await lsp.fileDiagnostics(absPath);
      const output: DiagnosticsOutput = { scope: "file", files: [], hiddenFiles: 0, notices: lsp.takeNotices() };
      if (result.kind === "ok") output.files.push({ path: displayPath(absPath, cwd), server: result.server, diagnostics: result.diagnostics.filter(shown) });
      else if (result.kind === "unavailable") output.unavailable = `The ${result.server} language server cannot check ${displayPath(absPath, cwd)}: ${result.reason}.`;
      else output.unavailable = `${displayPath(absPath, cwd)} cannot be checked (it is missing, too large, or no server handles it).`;
      return { data: output };
    }
    // A file a rule denies reading stays hidden, even though a server has it open.
    const open = lsp.openDocuments();
    const visible = open.filter((d) => readPermission(d.absPath, context).behavior !== "deny");
    const files = visible
      .map((d) => ({ path: displayPath(d.absPath, cwd), server: d.server, diagnostics: (d.diagnostics ?? []).filter(shown) }))
      .sort((a, b) => b.diagnostics.length - a.diagnostics.length || a.path.localeCompare(b.path));
    return { data: { scope: "open", files, hiddenFiles: open.length - visible.length, notices: lsp.takeNotices() } };
  },

  mapToolResultToToolResultBlockParam(output, toolUseID): ToolResultBlockParam {
    return { type: "tool_result", tool_use_id: toolUseID, content: formatDiagnosticsOutput(output) };
  },
});

export function formatDiagnosticsOutput(output: DiagnosticsOutput): string {
  const lines: string[] = [...output.notices];
  if (output.unavailable) lines.push(output.unavailable);
  if (output.scope === "file") {
    for (const file of output.files) {
      if (!file.diagnostics.length) lines.push(`No problems in ${file.path} (${file.server}).`);
      else lines.push(`${file.path} (${file.server}): ${countBySeverity(file.diagnostics)}`, ...formatDiagnosticList(file.path, file.diagnostics));
    }
    return lines.join("\n");
  }
  const withProblems = output.files.filter((f) => f.diagnostics.length);
  if (!output.files.length) lines.push("No file is open in a language server yet: they open files as they are edited, or pass file_path to check one.");
  else if (!withProblems.length) lines.push(`No problems in the ${output.files.length} open file${output.files.length === 1 ? "" : "s"}.`);
  else {
    const clean = output.files.length - withProblems.length;
    lines.push(`Problems in ${withProblems.length} of ${output.files.length} open files${clean ? ` (${clean} clean)` : ""}:`);
    for (const file of withProblems.slice(0, MAX_LISTED_FILES)) lines.push(`${file.path} (${file.server}): ${countBySeverity(file.diagnostics)}`, ...formatDiagnosticList(file.path, file.diagnostics));
    if (withProblems.length > MAX_LISTED_FILES) lines.push(`+${withProblems.length - MAX_LISTED_FILES} more files`);
  }
  if (output.hiddenFiles) lines.push(`(${output.hiddenFiles} open file${output.hiddenFiles === 1 ? " is" : "s are"} not shown: a rule denies reading ${output.hiddenFiles === 1 ? "it" : "them"}.)`);
  return lines.join("\n");
}
