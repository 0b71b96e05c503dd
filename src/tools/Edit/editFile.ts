/**
 * Everything Edit and MultiEdit check and compute before writing, as one synchronous function, so the
 * same code validates the input and, in the critical section, re-reads the file and builds the new bytes.
 * Checks run in SPEC order; every refusal tells the model what to do next.
 */
import fs from "node:fs";
import type { ToolUseContext } from "../../core/Tool.js";
import type { FileState } from "../../core/fileStateCache.js";
import { readOnlyReason } from "../files/commit.js";
import {
  bomLength,
  decodeText,
  describeEncoding,
  isUtf8Family,
  sniffEncoding,
  tryEncodeText,
  type TextEncoding,
} from "../files/encoding.js";
import { fileAtPath, type FileOnDisk } from "../files/checkedFile.js";
import { blockedDevicePath, describeSpecialFile, formatBytes, isNotebookPath } from "../files/fileKind.js";
import { checkStaleness, lookupFileState, staleFileMessage } from "../files/fileState.js";
import { dominantLineEnding, normalizeToLf, spliceOriginal, toLfView } from "../files/lineEndings.js";
import type { ChangedRange } from "../files/patch.js";
import { createFileWriter, refusalCodes, type FileWrite, type FileWriter, type Refusal } from "../files/fileWriter.js";
import { stringSource, utf8BytesSource, type TextSource } from "../files/textSource.js";
import { editDenial, missingFileMessage, resolveToolPath } from "../files/toolPaths.js";
import { applyEditsToText, applyEditsToUtf8Bytes, rangesOf, type AppliedEdit, type EditSpec } from "./applyEdits.js";
import { applyReplacements, type Replacement } from "./match.js";

/** SPEC: files above 1 GiB are refused. */
const MAX_EDIT_FILE_BYTES = 1024 ** 3;
/** UTF-8 files from this size are edited as bytes (exact matching only), never decoded as a whole. */
const BYTE_MODE_MIN_BYTES = 256 * 1024 ** 2;
/** UTF-8 files from this size first try an exact match on the bytes, decoding only if that cannot decide. */
const BYTE_FAST_PATH_MIN_BYTES = 4 * 1024 ** 2;

/** Refusal codes, numbered from 1 in this order (SPEC order first) for ValidationResult.errorCode; append only. */
const EDIT_ERROR_CODES = [
  "identical",
  "denied",
  "too_large",
  "missing",
  "exists",
  "notebook",
  "not_read",
  "stale",
  "no_match",
  "ambiguous",
  "not_a_file",
  "binary",
  "undecodable",
  "read_only",
  "unrepresentable",
  "empty_old_string",
] as const;

export type EditErrorCode = (typeof EDIT_ERROR_CODES)[number];

const refuse = refusalCodes(EDIT_ERROR_CODES);

export interface EditFileRequest {
  /** The tool's name, as messages name it. */
  toolName: string;
  /** Several edits in one call: refusals say which edit failed and that none was applied. */
  numbered?: boolean;
  filePath: string;
  edits: readonly EditSpec[];
}

export interface EditFileOptions {
  /** Override BYTE_MODE_MIN_BYTES (tests). */
  byteModeMinBytes?: number;
  /** Override BYTE_FAST_PATH_MIN_BYTES (tests). */
  fastPathMinBytes?: number;
  /** The file to read and judge: the critical section's verified target; by default the path, looked up anew. */
  file?: FileOnDisk;
}

export interface PreparedEdit {
  absPath: string;
  /** The file did not exist and will be created (with its parent directories). */
  creates: boolean;
  /** The bytes read, to check in the critical section that nothing moved since validation. */
  raw?: Buffer;
  state?: FileState;
  newBytes: Buffer;
  /** Decoded new content; absent for byte-mode edits of large files. */
  newText?: string;
  /** Decoded original content; absent for new files and byte-mode edits. */
  originalText?: string;
  applied: AppliedEdit[];
  oldSource: TextSource;
  newSource: TextSource;
  ranges: ChangedRange[];
}

export type PrepareResult = { ok: true; edit: PreparedEdit } | Refusal<EditErrorCode>;

const fail = (code: EditErrorCode, message: string): PrepareResult => refuse(code, message);

function edited(edit: Omit<PreparedEdit, "oldSource" | "newSource"> & { oldLf: string; newLf: string }): PrepareResult {
  const { oldLf, newLf, ...rest } = edit;
  return { ok: true, edit: { ...rest, oldSource: stringSource(oldLf), newSource: stringSource(newLf) } };
}

type Located = { ok: true; absPath: string; stat: fs.Stats | undefined; file: FileOnDisk } | Refusal<EditErrorCode>;

/** Steps 2-3: the path is not denied by an Edit rule, is not a device, and is a regular file of editable size (or absent). */
function locateTarget(request: Pick<EditFileRequest, "toolName" | "filePath">, context: ToolUseContext, given?: FileOnDisk): Located {
  // 2. an Edit deny rule
  const absPath = resolveToolPath(request.filePath, context);
  const file = given ?? fileAtPath(absPath);
  const denied = editDenial(absPath, context, file.realPath);
  if (denied) return refuse("denied", `${denied} Do not try to change this file another way.`);
  const blocked = blockedDevicePath(absPath);
  if (blocked) return refuse("not_a_file", `${blocked}; ${request.toolName} only changes regular files.`);

  // 3. size
  const stat = file.stat();
  if (stat && !stat.isFile()) {
    const kind = describeSpecialFile(stat);
    return refuse("not_a_file", `${absPath} is ${kind}, not a regular file.${stat.isDirectory() ? " Give the path of a file inside it." : ""}`);
  }
  if (stat && stat.size > MAX_EDIT_FILE_BYTES) {
    return refuse(
      "too_large",
      `${absPath} is ${formatBytes(stat.size)}; ${request.toolName} edits files up to 1 GiB. For a file this large, use a streaming tool through Bash (for example sed -i or a short script).`,
    );
  }

  return { ok: true, absPath, stat, file };
}

type Opened = { ok: true; raw: Buffer; state: FileState; encoding: TextEncoding } | Refusal<EditErrorCode>;

/** Steps 6-8 for an existing file: not a notebook, read in this session, unchanged since, writable, decodable text. */
function openExisting(toolName: string, absPath: string, file: FileOnDisk, context: ToolUseContext): Opened {
  // 6. notebooks
  if (isNotebookPath(absPath)) {
    return refuse("notebook", `${absPath} is a Jupyter notebook. Edit its cells with NotebookEdit (Read the notebook to see the cell ids).`);
  }

  // 7. read before edit
  const state = lookupFileState(context, absPath);
  if (!state || state.isPartialView) {
    const why = state ? "only an automatic partial view of it was shown, which does not count as reading it" : "it has not been read in this session";
    return refuse(
      "not_read",
      `${absPath} must be read before it is edited, and ${why}. Call Read on it (a window with offset and limit is enough), then retry this edit with old_string copied from what Read shows.`,
    );
  }

  // 8. changed since read
  const { raw, stat: current } = file.read();
  if (checkStaleness(state, current, () => raw).stale) return refuse("stale", staleFileMessage(absPath, state, current, "the edit"));

  const readOnly = readOnlyReason(file.path, current);
  if (readOnly) return refuse("read_only", `${absPath} cannot be edited: ${readOnly}.`);

  const sniff = sniffEncoding(raw, true);
  if (sniff.kind === "binary") return refuse("binary", `${absPath} is a binary file (${sniff.reason}); ${toolName} only edits text files.`);
  if (sniff.kind === "undecodable") {
    return refuse(
      "undecodable",
      `${absPath} cannot be edited safely: ${sniff.reason}. Rewriting it could corrupt the bytes that do not decode. Convert it to UTF-8 first (e.g. iconv -f <encoding> -t utf-8 via Bash) if that is acceptable.`,
    );
  }
  const encoding = sniff.encoding;
  return { ok: true, raw, state, encoding };
}

export function prepareFileEdit(request: EditFileRequest, context: ToolUseContext, options: EditFileOptions = {}): PrepareResult {
  const { edits } = request;
  const multi = request.numbered === true;
  const which = (i: number) => (multi ? `Edit ${i + 1} of ${edits.length} failed: ` : "");
  const untouched = multi ? " No edit was applied; the file is unchanged. Fix that edit and send all the edits again." : "";

  // 1. old_string == new_string
  for (const [i, edit] of edits.entries()) {
    if (edit.old_string === edit.new_string) {
      return fail(
        "identical",
        `${which(i)}old_string and new_string are identical, so this edit would change nothing. Put the text you want in new_string, or leave the file alone if it is already right.${untouched}`,
      );
    }
    if (i > 0 && edit.old_string === "") {
      return fail(
        "empty_old_string",
        `${which(i)}old_string is empty. Only the first edit may have an empty old_string (it creates the file); every later edit must name the text it replaces.${untouched}`,
      );
    }
  }

  return prepareChecked(request, context, options);
}

/** A new file with `content` (which may be empty), under Edit's checks: not denied, absent or empty, encodable. */
export function prepareFileCreate(request: Pick<EditFileRequest, "toolName" | "filePath">, context: ToolUseContext, content: string): PrepareResult {
  return prepareChecked({ ...request, edits: [{ old_string: "", new_string: content }] }, context, {});
}

/** Steps 2 onwards of prepareFileEdit, once the edits themselves are known to be sound. */
function prepareChecked(request: EditFileRequest, context: ToolUseContext, options: EditFileOptions): PrepareResult {
  const { edits } = request;
  const multi = request.numbered === true;
  const which = (i: number) => (multi ? `Edit ${i + 1} of ${edits.length} failed: ` : "");
  const untouched = multi ? " No edit was applied; the file is unchanged. Fix that edit and send all the edits again." : "";
  const located = locateTarget(request, context, options.file);
  if (!located.ok) return located;
  const { absPath, stat, file } = located;

  // 4. missing
  const creating = edits[0].old_string === "";
  if (!stat && !creating) {
    return fail("missing", missingFileMessage(absPath, context, "To create a new file, use Write (or Edit with an empty old_string)."));
  }

  // 5. empty old_string: create the file
  if (creating) {
    let encoding: TextEncoding = "utf8";
    let raw: Buffer | undefined;
    if (stat) {
      raw = file.read().raw;
      const sniff = sniffEncoding(raw, true);
      if (sniff.kind !== "text" || decodeText(raw, sniff.encoding).trim() !== "") {
        return fail(
          "exists",
          `${absPath} already exists and is not empty, so an empty old_string (which means "create this file") was refused. To change part of it, Read it and put the text to replace in old_string; to replace all of it, Read it and use Write.`,
        );
      }
      const readOnly = readOnlyReason(file.path, stat);
      if (readOnly) return fail("read_only", `${absPath} cannot be edited: ${readOnly}.`);
      encoding = sniff.encoding;
    }
    const initial = edits[0].new_string;
    const rest = edits.slice(1);
    const result = applyEditsToText(initial, rest, absPath);
    if (!result.ok) return fail(result.code, `${which(result.index + 1)}${result.message}${untouched}`);
    const encoded = tryEncodeText(result.text, encoding);
    if (!encoded.ok) return fail("unrepresentable", encoded.message);
    const originalText = raw ? decodeText(raw, encoding) : undefined;
    const oldLf = normalizeToLf(originalText ?? "");
    return edited({
      absPath,
      creates: !stat,
      raw,
      newBytes: encoded.bytes,
      newText: result.text,
      originalText,
      applied: [{ strategy: "create", occurrences: 1 }, ...result.applied],
      oldLf,
      newLf: result.newLf,
      ranges: [{ oldStart: 0, oldEnd: oldLf.length, newStart: 0, newEnd: result.newLf.length }],
    });
  }

  const opened = openExisting(request.toolName, absPath, file, context);
  if (!opened.ok) return opened;
  const { raw, state, encoding } = opened;

  // 9-10. match and replace: large UTF-8 files as bytes, exactly; others (or when that cannot decide) as text
  const byteMode = raw.length >= (options.byteModeMinBytes ?? BYTE_MODE_MIN_BYTES);
  if (isUtf8Family(encoding) && (byteMode || raw.length >= (options.fastPathMinBytes ?? BYTE_FAST_PATH_MIN_BYTES))) {
    const bom = bomLength(encoding);
    const result = applyEditsToUtf8Bytes(raw, bom, edits, absPath, byteMode ? { sizeNote: `${absPath} is ${formatBytes(raw.length)}.` } : { fallback: true });
    if (!result.ok && "needsText" in result) return prepareAsText(raw, encoding, state, absPath, edits, which, untouched);
    if (!result.ok) return fail(result.code, `${which(result.index)}${result.message}${untouched}`);
    return {
      ok: true,
      edit: {
        absPath,
        creates: false,
        raw,
        state,
        newBytes: result.bytes,
        applied: result.applied,
        oldSource: utf8BytesSource(raw, bom),
        newSource: utf8BytesSource(result.bytes, bom),
        ranges: result.ranges,
      },
    };
  }

  return prepareAsText(raw, encoding, state, absPath, edits, which, untouched);
}

/** The file's text, or the refusal for a file too large to decode in memory (`about` is said of it in brackets). */
function decodeOrRefuse(raw: Buffer, encoding: TextEncoding, absPath: string, about: string): { ok: true; text: string } | Refusal<EditErrorCode> {
  try {
    return { ok: true, text: decodeText(raw, encoding) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ERR_STRING_TOO_LONG") throw err;
    return refuse("too_large", `${absPath} (${about}) is too large to decode in memory. Use a streaming tool through Bash instead.`);
  }
}

function prepareAsText(
  raw: Buffer,
  encoding: TextEncoding,
  state: FileState,
  absPath: string,
  edits: readonly EditSpec[],
  which: (i: number) => string,
  untouched: string,
): PrepareResult {
  const decoded = decodeOrRefuse(raw, encoding, absPath, `${formatBytes(raw.length)}, ${describeEncoding(encoding)}`);
  if (!decoded.ok) return decoded;
  const originalText = decoded.text;
  const result = applyEditsToText(originalText, edits, absPath);
  if (!result.ok) return fail(result.code, `${which(result.index)}${result.message}${untouched}`);
  const encoded = tryEncodeText(result.text, encoding);
  if (!encoded.ok) return fail("unrepresentable", encoded.message);
  return edited({
    absPath,
    creates: false,
    raw,
    state,
    newBytes: encoded.bytes,
    newText: result.text,
    originalText,
    applied: result.applied,
    oldLf: result.oldLf,
    newLf: result.newLf,
    ranges: result.ranges,
  });
}

/** A change of an existing text file computed from its content (LF line endings): ascending, non-overlapping replacements. */
export type TextRewrite = (lf: string) => { ok: true; replacements: Replacement[] } | { ok: false; code: EditErrorCode; message: string };

/**
 * An existing file changed by `rewrite` (an insertion at a line, a patch's hunks) under every check Edit makes:
 * not denied, a regular text file, read in this session and unchanged since, writable. Untouched lines keep
 * their own line endings; inserted lines get the file's dominant one; the encoding is kept.
 */
export function prepareFileRewrite(
  request: Pick<EditFileRequest, "toolName" | "filePath">,
  context: ToolUseContext,
  rewrite: TextRewrite,
  missingHint = "",
  given?: FileOnDisk,
): PrepareResult {
  const located = locateTarget(request, context, given);
  if (!located.ok) return located;
  const { absPath, stat, file } = located;
  if (!stat) return fail("missing", missingFileMessage(absPath, context, missingHint));
  const opened = openExisting(request.toolName, absPath, file, context);
  if (!opened.ok) return opened;
  const { raw, state, encoding } = opened;
  const decoded = decodeOrRefuse(raw, encoding, absPath, formatBytes(raw.length));
  if (!decoded.ok) return decoded;
  const originalText = decoded.text;
  const view = toLfView(originalText);
  const result = rewrite(view.lf);
  if (!result.ok) return fail(result.code, result.message);
  const text = spliceOriginal(view, result.replacements, dominantLineEnding(view));
  const encoded = tryEncodeText(text, encoding);
  if (!encoded.ok) return fail("unrepresentable", encoded.message);
  return edited({
    absPath,
    creates: false,
    raw,
    state,
    newBytes: encoded.bytes,
    newText: text,
    originalText,
    applied: [{ strategy: "exact", occurrences: result.replacements.length }],
    oldLf: view.lf,
    newLf: applyReplacements(view.lf, result.replacements),
    ranges: rangesOf(result.replacements),
  });
}

/** What the critical section writes for a prepared edit. */
export function editWriteOf(edit: PreparedEdit): FileWrite {
  return {
    absPath: edit.absPath,
    bytes: edit.newBytes,
    text: edit.newText,
    createParents: edit.creates,
    coversWholeFile: edit.applied[0]?.strategy === "create" || (edit.state?.coversWholeFile ?? false),
    basis: edit.raw && edit.state && !edit.creates ? { raw: edit.raw, state: edit.state } : undefined,
  };
}

/** The writer Edit and MultiEdit share: prepare in validation, commit the plan (or a fresh one) in call(). */
export function createEditWriter<Input>(label: string, toRequest: (input: Input) => EditFileRequest): FileWriter<Input, PreparedEdit> {
  return createFileWriter<Input, PreparedEdit>({
    label,
    filePath: (input) => toRequest(input).filePath,
    prepare(input, context, file) {
      const prepared = prepareFileEdit(toRequest(input), context, { file });
      return prepared.ok ? { ok: true, plan: prepared.edit } : prepared;
    },
    write: editWriteOf,
  });
}
