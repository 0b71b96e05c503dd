import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import type { ToolUseContext } from "../../core/Tool.js";
import type { ToolResultBlockParam } from "../../core/messages.js";
import type { FileState } from "../../core/fileStateCache.js";
import { readOnlyReason } from "../files/commit.js";
import { createFileWriter, refusalCodes, type Prepared } from "../files/fileWriter.js";
import { decodeText, sniffEncoding, tryEncodeText, type TextEncoding } from "../files/encoding.js";
import type { FileOnDisk } from "../files/checkedFile.js";
import { blockedDevicePath, describeSpecialFile } from "../files/fileKind.js";
import { checkStaleness, lookupFileState, staleFileMessage } from "../files/fileState.js";
import { dominantLineEnding, normalizeToLf, toLfView, withLineEnding } from "../files/lineEndings.js";
import { buildStructuredPatch, diffRange, type StructuredPatchHunk } from "../files/patch.js";
import { editDenial, fileTarget, resolveToolPath } from "../files/toolPaths.js";
import { notifyAfterWrite, withAfterWriteNotes } from "../files/observers.js";
import { ORIGINAL_FILE_MAX_CHARS } from "../Edit/index.js";
import { WRITE_DESCRIPTION, WRITE_PROMPT } from "./prompt.js";

export const WRITE_TOOL_NAME = "Write";

const inputSchema = z.strictObject({
  file_path: z.string().describe("The file to write: absolute, or relative to the working directory"),
  content: z.string().describe("The complete new content of the file"),
});

export type WriteInput = z.infer<typeof inputSchema>;

export interface WriteOutput {
  type: "create" | "update";
  filePath: string;
  content: string;
  structuredPatch: StructuredPatchHunk[];
  /** The file before the write; null for new files and files over ORIGINAL_FILE_MAX_CHARS. */
  originalFile: string | null;
  /** What file-write observers said (new diagnostics); absent when nothing. */
  afterWriteNotes?: string[];
}

interface PreparedWrite {
  absPath: string;
  exists: boolean;
  bytes: Buffer;
  text: string;
  originalText?: string;
  /** The bytes and read state of the file being replaced. */
  basis?: { raw: Buffer; state: FileState };
}

/** Refusal codes, numbered from 1 in this order for ValidationResult.errorCode; append only. */
const WRITE_ERROR_CODES = ["denied", "not_a_file", "not_read", "partial_read", "stale", "read_only", "unrepresentable"] as const;
const fail = refusalCodes(WRITE_ERROR_CODES);

type PrepareResult = Prepared<PreparedWrite, (typeof WRITE_ERROR_CODES)[number]>;

function describeWindow(state: FileState): string {
  if (state.offset === undefined) return "";
  const from = state.offset < 0 ? `starting ${-state.offset} lines from the end` : `from line ${state.offset}`;
  return ` (Read showed it ${from}, at most ${state.limit ?? "?"} lines, not the whole file)`;
}

/** Every check and the new bytes, synchronously: validation and the critical section share it. */
function prepareWrite(input: WriteInput, context: ToolUseContext, file: FileOnDisk): PrepareResult {
  const absPath = resolveToolPath(input.file_path, context);
  const denied = editDenial(absPath, context, file.realPath);
  if (denied) return fail("denied", `${denied} Do not try to write this file another way.`);
  const blocked = blockedDevicePath(absPath);
  if (blocked) return fail("not_a_file", `${blocked}; Write only writes regular files.`);

  const stat = file.stat();
  if (stat && !stat.isFile()) return fail("not_a_file", `${absPath} is ${describeSpecialFile(stat)}, so Write cannot replace it with a file.`);
  if (!stat) return { ok: true, plan: { absPath, exists: false, bytes: Buffer.from(input.content, "utf8"), text: input.content } };

  let encoding: TextEncoding = "utf8";
  let originalText = "";
  let basis: PreparedWrite["basis"];
  if (stat.size > 0) {
    const state = lookupFileState(context, absPath);
    if (!state || state.isPartialView) {
      return fail("not_read", `${absPath} already exists and has not been read in this session. Write replaces the whole file, so Read it first (all of it), then retry. To change only part of it, use Edit.`);
    }
    if (!state.coversWholeFile) {
      return fail(
        "partial_read",
        `${absPath} exists and you have only seen part of it${describeWindow(state)}. Write replaces the whole file, so lines you have not seen would be lost. Read the whole file first (give Read a limit above its line count), or change it with Edit or MultiEdit.`,
      );
    }
    const { raw } = file.read();
    basis = { raw, state };
    const current = { mtimeMs: stat.mtimeMs, size: raw.length };
    if (checkStaleness(state, current, () => raw).stale) return fail("stale", staleFileMessage(absPath, state, current, "the write"));
    const readOnly = readOnlyReason(file.path, stat);
    if (readOnly) return fail("read_only", `${absPath} cannot be written: ${readOnly}.`);
    const sniff = sniffEncoding(raw, true);
    if (sniff.kind === "text") {
      encoding = sniff.encoding;
      originalText = decodeText(raw, encoding);
    }
  }
  let text = input.content;
  if (originalText && dominantLineEnding(toLfView(originalText)) === "CRLF" && !text.includes("\r\n")) text = withLineEnding(text, "CRLF");
  const encoded = tryEncodeText(text, encoding);
  if (!encoded.ok) return fail("unrepresentable", encoded.message);
  return { ok: true, plan: { absPath, exists: true, bytes: encoded.bytes, text, originalText, basis } };
}

const writer = createFileWriter<WriteInput, PreparedWrite>({
  label: "write",
  filePath: (input) => input.file_path,
  prepare: prepareWrite,
  write: (plan) => ({ absPath: plan.absPath, bytes: plan.bytes, text: plan.text, createParents: !plan.exists, coversWholeFile: true, basis: plan.basis }),
});

export const WriteTool = buildTool({
  name: WRITE_TOOL_NAME,
  searchHint: "create new file overwrite whole file content",
  maxResultSizeChars: 100_000,
  strict: true,
  inputSchema,
  description: () => WRITE_DESCRIPTION,
  prompt: () => WRITE_PROMPT,
  userFacingName: () => "Write",
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  ...fileTarget<WriteInput>("file_path", "edit"),
  toAutoClassifierInput: (input) => `${input.file_path}: ${input.content}`,
  validateInput: (input, context) => writer.validateInput(input, context),
  // Synchronous from the re-read to the write.
  async call(input, context, _canUseTool, parentMessage) {
    const write = writer.commit(input, context, parentMessage);
    const oldLf = normalizeToLf(write.originalText ?? "");
    const newLf = normalizeToLf(write.text);
    const output: WriteOutput = {
      type: write.exists ? "update" : "create",
      filePath: input.file_path,
      content: input.content,
      structuredPatch: buildStructuredPatch(oldLf, newLf, diffRange(oldLf, newLf)),
      originalFile: write.exists && oldLf.length <= ORIGINAL_FILE_MAX_CHARS ? (write.originalText ?? "") : null,
    };
    const notes = await notifyAfterWrite(context, write.absPath);
    if (notes.length) output.afterWriteNotes = notes;
    return { data: output };
  },
  mapToolResultToToolResultBlockParam(output: WriteOutput, toolUseID: string): ToolResultBlockParam {
    const lines = output.content === "" ? 0 : output.content.split("\n").length - (output.content.endsWith("\n") ? 1 : 0);
    const size = `${lines} line${lines === 1 ? "" : "s"}`;
    if (output.type === "create") return { type: "tool_result", tool_use_id: toolUseID, content: withAfterWriteNotes(`Created ${output.filePath} (${size}).`, output.afterWriteNotes) };
    let added = 0;
    let removed = 0;
    for (const hunk of output.structuredPatch) {
      for (const line of hunk.lines) {
        if (line.startsWith("+")) added++;
        else if (line.startsWith("-")) removed++;
      }
    }
    const change = added || removed ? `: ${added} line${added === 1 ? "" : "s"} added, ${removed} removed` : ": the content was already identical";
    return { type: "tool_result", tool_use_id: toolUseID, content: withAfterWriteNotes(`Updated ${output.filePath} (now ${size}${change}).`, output.afterWriteNotes) };
  },
});
