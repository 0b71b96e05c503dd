import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import type { ToolUseContext, ValidationResult } from "../../core/Tool.js";
import type { ToolResultBlockParam, ToolResultContentBlock } from "../../core/messages.js";
import { FILE_STATE_MAX_ENTRY_CONTENT_CHARS, hashContent } from "../../core/fileStateCache.js";
import { decodeText, describeEncoding, sniffEncoding, type TextEncoding } from "../files/encoding.js";
import { FileToolError } from "../files/errors.js";
import {
  blockedDevicePath,
  describeSpecialFile,
  formatBytes,
  hasBinaryExtension,
  hasImageExtension,
  isNotebookPath,
  isPdfPath,
} from "../files/fileKind.js";
import { ALWAYS_HASH_BYTES, lookupFileState, MAX_HASHED_BYTES, recordFileState, unchangedByStat } from "../files/fileState.js";
import { parseNotebook } from "../files/notebook.js";
import { DEFAULT_READ_LIMIT, MAX_LINE_CHARS, numberText } from "../files/readFormat.js";
import { fileTarget, missingFileMessage, readDenial, resolveToolPath } from "../files/toolPaths.js";
import { MAX_IMAGE_BYTES, sniffImage, type ImageMediaType } from "./image.js";
import { renderNotebook, type NotebookImage } from "./notebook.js";
import { DEFAULT_PDF_PAGES, extractPdfText, parsePageRange, type PageRange } from "./pdf.js";
import { READ_DESCRIPTION, READ_PROMPT } from "./prompt.js";
import { READ_CHUNK_BYTES, readLineWindow, type LineIndex } from "./window.js";
import { loadLineIndex, saveLineIndex } from "./lineIndexStore.js";
import { findLineFromEnd } from "./tail.js";
import { openReadSource, readFull, type ReadSource } from "./source.js";
import { checkedPathFor, fileChangedError } from "../files/checkedFile.js";
import { descriptorPathForChildren, openVerifiedFile, PathChangedError } from "../../util/verifiedPath.js";

export const READ_TOOL_NAME = "Read";
/** The text of one result stops growing here (the window ends early and says where to continue). */
const MAX_READ_OUTPUT_CHARS = 100_000;
/**
 * A text file over this size is refused when no window is asked for: a whole read of it would flood the
 * context, and the refusal says how to read it in parts (Claude Code draws its line at the same size).
 */
export const MAX_UNWINDOWED_READ_BYTES = 256 * 1024;
const SNIFF_BYTES = 64 * 1024;
const MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024;
/**
 * Files up to this size have their decoded content recorded in readFileState: the cache's own per-entry
 * limit, since a file of N bytes decodes to at most N characters.
 */
const CONTENT_CACHE_BYTES = FILE_STATE_MAX_ENTRY_CONTENT_CHARS;

/** Files from this size keep a line index, so later windows of the same file version need no full scan. */
const LINE_INDEX_MIN_BYTES = 64 * 1024 * 1024;

const inputSchema = z.strictObject({
  file_path: z.string().describe("The file to read: absolute, or relative to the working directory"),
  offset: z
    .number()
    .int()
    .optional()
    .describe("First line to show, 1-based (for files too long to read at once); negative counts from the end: -100 starts 100 lines before the end"),
  limit: z.number().int().min(1).optional().describe(`How many lines to show (default ${DEFAULT_READ_LIMIT})`),
  pages: z.string().optional().describe('PDF only: a page or page range, e.g. "3" or "2-7"'),
});

export type ReadInput = z.infer<typeof inputSchema>;

export interface TextFileView {
  filePath: string;
  /** The lines shown, joined with "\n", without line numbers. */
  content: string;
  startLine: number;
  numLines: number;
  totalLines: number;
  /**
   * Set when the window was found from the end of a large file without counting the lines before it:
   * line numbers are then negative (-1 is the last line) and totalLines is only a lower bound.
   */
  countedFromEnd?: boolean;
  truncatedLines: number;
  stoppedAtOutputCap: boolean;
  encoding: TextEncoding;
  /** Set when the bytes did not decode cleanly. */
  undecodable?: string;
}

export type ReadOutput =
  | { type: "text"; file: TextFileView }
  | { type: "unchanged"; file: { filePath: string; startLine: number; limit: number } }
  | { type: "image"; file: { filePath: string; base64: string; mediaType: ImageMediaType; originalSize: number; width?: number; height?: number } }
  | { type: "notebook"; file: { filePath: string; text: string; images: NotebookImage[]; cellCount: number; shownCells: number } }
  | { type: "pdf"; file: { filePath: string; pages: string[]; first: number; last: number; totalPages?: number; truncated: boolean } };

const refuse = (message: string, errorCode: number): ValidationResult => ({ result: false, message, errorCode });

function statOrError(absPath: string): fs.Stats | NodeJS.ErrnoException {
  try {
    return fs.statSync(absPath);
  } catch (err) {
    return err as NodeJS.ErrnoException;
  }
}

/** Opens what the permission check judged; a file swapped since fails closed, with nothing read. */
async function openChecked<T>(absPath: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (err) {
    if (err instanceof PathChangedError) throw fileChangedError(absPath, "read");
    throw err;
  }
}

function binaryMessage(absPath: string, reason: string): string {
  return (
    `${absPath} is a binary file (${reason}). Read shows text files, images (png, jpg, gif, webp), PDFs and Jupyter notebooks. ` +
    `To inspect other binaries use Bash, e.g. \`file ${absPath}\` or \`xxd ${absPath} | head\`.`
  );
}

/** The window as asked for: a 1-based first line, or a negative one counted from the end. */
function windowOf(input: ReadInput): { offset: number; limit: number } {
  const offset = input.offset ?? 1;
  return { offset: offset < 0 ? offset : Math.max(1, offset), limit: input.limit ?? DEFAULT_READ_LIMIT };
}

async function readImage(handle: ReadSource, absPath: string, filePath: string, size: number): Promise<ReadOutput | undefined> {
  if (size > MAX_IMAGE_BYTES) {
    throw new FileToolError(
      `${absPath} is a ${formatBytes(size)} image; images up to ${formatBytes(MAX_IMAGE_BYTES)} can be shown. Make a smaller copy first (e.g. with ImageMagick: convert in.png -resize 50% small.png) and read that.`,
      "read:image_too_large",
    );
  }
  const bytes = await handle.readFile();
  const info = sniffImage(bytes);
  if (!info) return undefined;
  return { type: "image", file: { filePath, base64: bytes.toString("base64"), mediaType: info.mediaType, originalSize: bytes.length, width: info.width, height: info.height } };
}

async function readNotebook(handle: ReadSource, absPath: string, realPath: string, filePath: string, stat: fs.Stats, context: ToolUseContext): Promise<ReadOutput | undefined> {
  if (stat.size > MAX_NOTEBOOK_BYTES) return undefined;
  const raw = await handle.readFile();
  const sniff = sniffEncoding(raw, true);
  if (sniff.kind !== "text") return undefined;
  const text = decodeText(raw, sniff.encoding);
  const parsed = parseNotebook(text);
  if (!parsed.ok) return undefined;
  const rendered = renderNotebook(parsed.notebook, MAX_READ_OUTPUT_CHARS);
  const state = {
    contentHash: hashContent(raw),
    content: text,
    mtimeMs: stat.mtimeMs,
    size: stat.size,
    timestamp: Date.now(),
    coversWholeFile: rendered.shownCells === rendered.cellCount,
  };
  recordFileState(context, absPath, state, realPath);
  return { type: "notebook", file: { filePath, text: rendered.text, images: rendered.images, cellCount: rendered.cellCount, shownCells: rendered.shownCells } };
}

async function readPdf(absPath: string, filePath: string, pages: PageRange | undefined, signal: AbortSignal): Promise<ReadOutput> {
  const pdf = await extractPdfText(absPath, pages, signal);
  let used = 0;
  let truncated = false;
  const kept: string[] = [];
  for (const page of pdf.pages) {
    if (kept.length > 0 && used + page.length > MAX_READ_OUTPUT_CHARS) {
      truncated = true;
      break;
    }
    kept.push(page);
    used += page.length;
  }
  return { type: "pdf", file: { filePath, pages: kept, first: pdf.first, last: pdf.first + kept.length - 1, totalPages: pdf.totalPages, truncated } };
}

/** Where a window starts: a line number, or a known line start found from the end (with or without the total). */
type WindowStart =
  | { kind: "line"; offset: number; index?: LineIndex; wholeFile?: Buffer }
  | { kind: "fromEnd"; byte: number; linesToEnd: number; totalLines?: number };

/**
 * Resolve a negative offset. A known line index gives the absolute line at once; a file small enough to be
 * hashed on every read is counted (and hashed) in one pass; anything larger is read backward from its end,
 * so the cost follows the window's distance from the end, not the file's size.
 */
async function startFromEnd(handle: ReadSource, stat: fs.Stats, encoding: TextEncoding, back: number, index: LineIndex | undefined, signal: AbortSignal): Promise<WindowStart> {
  const absolute = (total: number) => Math.max(1, total - back + 1);
  if (index) return { kind: "line", offset: absolute(index.totalLines), index };
  if (stat.size <= ALWAYS_HASH_BYTES) {
    const counted = await readLineWindow(handle, {
      encoding,
      offset: Number.MAX_SAFE_INTEGER,
      limit: 1,
      maxLineChars: MAX_LINE_CHARS,
      maxOutputChars: MAX_READ_OUTPUT_CHARS,
      hash: true,
      signal,
      chunkBytes: chunkBytesFor(stat.size),
      keepWholeFileBytes: CONTENT_CACHE_BYTES,
    });
    return { kind: "line", offset: absolute(counted.totalLines), index: counted.index, wholeFile: counted.wholeFile };
  }
  return { kind: "fromEnd", ...(await findLineFromEnd(handle, stat.size, encoding, back, signal)) };
}

/** Reading `bytes` needs no 4 MiB buffers when it is less: allocating them dominated small reads. */
function chunkBytesFor(bytes: number): number {
  return Math.min(READ_CHUNK_BYTES, Math.max(64 * 1024, bytes + 2));
}

async function readHead(handle: ReadSource): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(SNIFF_BYTES);
  return buffer.subarray(0, await readFull(handle, buffer, 0));
}

async function readText(handle: ReadSource, absPath: string, realPath: string, filePath: string, stat: fs.Stats, input: ReadInput, context: ToolUseContext): Promise<ReadOutput> {
  const head = handle.bytes ? handle.bytes.subarray(0, SNIFF_BYTES) : await readHead(handle);
  const sniff = sniffEncoding(head, head.length >= stat.size);
  if (sniff.kind === "binary") throw new FileToolError(binaryMessage(absPath, sniff.reason), "read:binary");
  const encoding: TextEncoding = sniff.kind === "text" ? sniff.encoding : "utf8";
  const { offset: requested, limit } = windowOf(input);
  const signal = context.abortController.signal;

  const previous = lookupFileState(context, absPath);
  const sameWindow = previous?.offset === requested && previous.limit === limit && !previous.isPartialView;
  if (sameWindow && unchangedByStat(previous, stat)) return { type: "unchanged", file: { filePath, startLine: requested, limit } };

  const indexed = stat.size >= LINE_INDEX_MIN_BYTES;
  const knownIndex = indexed ? await loadLineIndex(context.paths.home, stat, handle, encoding) : undefined;
  const start: WindowStart = requested < 0 ? await startFromEnd(handle, stat, encoding, -requested, knownIndex, signal) : { kind: "line", offset: requested, index: knownIndex };
  const window = await readLineWindow(handle, {
    encoding,
    offset: start.kind === "line" ? start.offset : 1,
    limit,
    maxLineChars: MAX_LINE_CHARS,
    maxOutputChars: MAX_READ_OUTPUT_CHARS,
    hash: stat.size <= MAX_HASHED_BYTES,
    signal,
    chunkBytes: start.kind === "line" ? chunkBytesFor(stat.size) : chunkBytesFor(stat.size - start.byte),
    keepWholeFileBytes: CONTENT_CACHE_BYTES,
    // Lines found from the end are numbered from 1 at the window's first line, which is where reading starts.
    index: start.kind === "line" ? start.index : { totalLines: start.linesToEnd, checkpoints: [{ line: 1, byte: start.byte }] },
  });
  if (indexed && window.index) saveLineIndex(context.paths.home, stat, window.index);
  if (sameWindow && window.contentHash !== undefined && window.contentHash === previous.contentHash) {
    return { type: "unchanged", file: { filePath, startLine: requested, limit } };
  }

  const fromEnd = start.kind === "fromEnd" ? start : undefined;
  const countedFromEnd = fromEnd !== undefined && fromEnd.totalLines === undefined;
  // Found from the end with the whole file scanned: the window starts at line 1 of a file of known length.
  const startLine = start.kind === "line" ? start.offset : countedFromEnd ? -start.linesToEnd : 1;
  const totalLines = fromEnd ? (fromEnd.totalLines ?? fromEnd.linesToEnd + 1) : window.totalLines;
  const coversWholeFile = !countedFromEnd && startLine === 1 && window.lines.length === totalLines && window.truncatedLines === 0;
  const wholeFile = window.wholeFile ?? (start.kind === "line" ? start.wholeFile : undefined);
  const content = coversWholeFile && wholeFile ? decodeText(wholeFile, encoding) : undefined;
  const state = {
    contentHash: window.contentHash ?? "",
    content,
    mtimeMs: stat.mtimeMs,
    size: stat.size,
    offset: requested,
    limit,
    timestamp: Date.now(),
    coversWholeFile,
  };
  recordFileState(context, absPath, state, realPath);
  const file: TextFileView = {
    filePath,
    content: window.lines.join("\n"),
    startLine,
    numLines: window.lines.length,
    totalLines,
    truncatedLines: window.truncatedLines,
    stoppedAtOutputCap: window.stoppedAtOutputCap,
    encoding,
  };
  if (countedFromEnd) file.countedFromEnd = true;
  if (sniff.kind === "undecodable") file.undecodable = sniff.reason;
  return { type: "text", file };
}

function textResult(file: TextFileView): string {
  const { startLine, numLines, totalLines } = file;
  if (totalLines === 0) return `The file ${file.filePath} exists but is empty (0 lines).`;
  if (numLines === 0) {
    return `The file ${file.filePath} has ${totalLines} line${totalLines === 1 ? "" : "s"}, so offset ${startLine} is past its end. Use an offset from 1 to ${totalLines}.`;
  }
  const endLine = startLine + numLines - 1;
  const notes: string[] = [];
  const why = file.stoppedAtOutputCap ? ` The window ended early because the result reached ${MAX_READ_OUTPUT_CHARS} characters.` : "";
  if (file.countedFromEnd) {
    const more = endLine < -1 ? ` To continue, call Read with offset=${endLine + 1}.` : "";
    notes.push(
      `[Lines ${startLine} to ${endLine}, numbered from the end (-1 is the last line): the lines before them were not counted, so the file has at least ${totalLines} lines.${why}${more} ` +
        `For the lines before these, call Read with offset=${startLine - numLines} and limit=${numLines}.]`,
    );
  } else if (startLine !== 1 || endLine !== totalLines) {
    const more = endLine < totalLines ? ` To continue, call Read with offset=${endLine + 1}.` : "";
    notes.push(`[Lines ${startLine}-${endLine} of ${totalLines}.${why}${more}]`);
  }
  if (file.truncatedLines) {
    notes.push(
      `[${file.truncatedLines} line${file.truncatedLines === 1 ? " was" : "s were"} longer than ${MAX_LINE_CHARS} characters and cut (marked "… [line truncated"). To see a whole line use Bash, e.g. sed -n 'Np' FILE | cut -c1-10000.]`,
    );
  }
  if (file.undecodable) notes.push(`[The file is not clean text: ${file.undecodable}. Undecodable bytes are shown as \uFFFD; Edit will refuse this file.]`);
  else if (file.encoding !== "utf8") notes.push(`[Encoding: ${describeEncoding(file.encoding)}; edits keep it.]`);
  // A whole file needs no footer: a note only when there is more to read or something to know.
  return notes.length ? `${numberText(file.content, startLine)}\n\n${notes.join("\n")}` : numberText(file.content, startLine);
}

function pdfResult(file: Extract<ReadOutput, { type: "pdf" }>["file"]): string {
  const body = file.pages.map((page, i) => `--- Page ${file.first + i} ---\n${page.trimEnd()}`).join("\n\n");
  const total = file.totalPages;
  const notes: string[] = [`[Pages ${file.first}-${file.last}${total !== undefined ? ` of ${total}` : ""}.`];
  if (file.truncated) notes.push(`The result reached ${MAX_READ_OUTPUT_CHARS} characters, so it stops there.`);
  if (total !== undefined && file.last < total) notes.push(`For more, call Read with pages: "${file.last + 1}-${Math.min(total, file.last + DEFAULT_PDF_PAGES)}".`);
  const empty = file.pages.every((p) => p.trim() === "") ? "\nNo text was found on these pages: the PDF may be scanned images without a text layer." : "";
  return `${body}${empty}\n\n${notes.join(" ")}]`;
}

export const ReadTool = buildTool({
  name: READ_TOOL_NAME,
  searchHint: "view open show file contents lines image pdf notebook",
  maxResultSizeChars: Number.POSITIVE_INFINITY,
  strict: true,
  inputSchema,
  description: () => READ_DESCRIPTION,
  prompt: () => READ_PROMPT,
  userFacingName: () => "Read",
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  // What it records (readFileState) goes through the call's context, which a speculative run keeps apart.
  isSpeculationSafe: () => true,
  inputsEquivalent: (a, b) => path.normalize(a.file_path) === path.normalize(b.file_path) && a.offset === b.offset && a.limit === b.limit && a.pages === b.pages,
  ...fileTarget<ReadInput>("file_path", "read"),
  toAutoClassifierInput: (input) => input.file_path,
  async validateInput(input, context) {
    const absPath = resolveToolPath(input.file_path, context);
    const denied = readDenial(absPath, context);
    if (denied) return refuse(denied, 1);
    if (input.pages !== undefined) {
      if (!isPdfPath(absPath)) return refuse(`pages only applies to PDF files; for ${absPath} use offset and limit instead.`, 2);
      const range = parsePageRange(input.pages);
      if (typeof range === "string") return refuse(`Invalid pages: ${range}.`, 2);
    }
    const blocked = blockedDevicePath(absPath);
    if (blocked) return refuse(`${blocked}; Read only reads regular files.`, 3);
    const stat = statOrError(absPath);
    if (stat instanceof Error) {
      if (stat.code === "ENOENT" || stat.code === "ENOTDIR") return refuse(missingFileMessage(absPath, context), 4);
      return refuse(`${absPath} cannot be read: ${stat.message}`, 4);
    }
    if (stat.isDirectory()) return refuse(`${absPath} is a directory, not a file. List it with Bash (ls) or find files in it with Glob.`, 5);
    const special = describeSpecialFile(stat);
    if (special) return refuse(`${absPath} is ${special}; Read only reads regular files.`, 3);
    if (hasBinaryExtension(absPath)) return refuse(binaryMessage(absPath, `its extension marks it as one`), 6);
    if (input.offset === undefined && input.limit === undefined && stat.size > MAX_UNWINDOWED_READ_BYTES && !hasImageExtension(absPath) && !isPdfPath(absPath) && !isNotebookPath(absPath)) {
      return refuse(
        `${absPath} is ${formatBytes(stat.size)}, more than the ${formatBytes(MAX_UNWINDOWED_READ_BYTES)} Read shows without a window. ` +
          `Read it in parts with offset and limit (offset=1, limit=${DEFAULT_READ_LIMIT} for the first ${DEFAULT_READ_LIMIT} lines; a negative offset such as -100 for the end), or search it with Grep.`,
        7,
      );
    }
    return { result: true };
  },
  async call(input, context) {
    const absPath = resolveToolPath(input.file_path, context);
    const { checked, judged } = checkedPathFor(context, absPath);
    if (!judged) {
      // No permission check judged this resolution: at least no Read rule may deny the file opened.
      const denied = readDenial(absPath, context, checked.realPath);
      if (denied) throw new FileToolError(denied, "read:denied");
    }
    const handle = await openChecked(absPath, () => openReadSource(checked.realPath, checked.identity));
    try {
      const stat = await handle.stat();
      const special = describeSpecialFile(stat);
      if (special) throw new FileToolError(`${absPath} is ${special}; Read only reads regular files.`, "read:not_a_file");
      if (hasImageExtension(absPath)) {
        const image = await readImage(handle, absPath, input.file_path, stat.size);
        if (image) return { data: image };
      }
      if (isPdfPath(absPath)) {
        const pages = input.pages === undefined ? undefined : (parsePageRange(input.pages) as PageRange);
        // poppler opens the file itself: it gets a path to the verified descriptor, not the path that was checked.
        const fd = await openChecked(absPath, async () => openVerifiedFile(checked.realPath, fs.constants.O_RDONLY, checked.identity));
        try {
          return { data: await readPdf(descriptorPathForChildren(fd, checked.realPath), input.file_path, pages, context.abortController.signal) };
        } finally {
          fs.closeSync(fd);
        }
      }
      if (isNotebookPath(absPath)) {
        const notebook = await readNotebook(handle, absPath, checked.realPath, input.file_path, stat, context);
        if (notebook) return { data: notebook };
      }
      return { data: await readText(handle, absPath, checked.realPath, input.file_path, stat, input, context) };
    } finally {
      await handle.close();
    }
  },
  mapToolResultToToolResultBlockParam(output: ReadOutput, toolUseID: string): ToolResultBlockParam {
    const block = (content: string | ToolResultContentBlock[]): ToolResultBlockParam => ({ type: "tool_result", tool_use_id: toolUseID, content });
    switch (output.type) {
      case "text":
        return block(textResult(output.file));
      case "unchanged": {
        const { filePath, startLine, limit } = output.file;
        const from = startLine < 0 ? `${-startLine} line${startLine === -1 ? "" : "s"} from the end` : `from line ${startLine}`;
        return block(
          `${filePath} has not changed since you last read it with the same window (${from}, up to ${limit} lines), so that earlier result is still accurate; it is not repeated here.`,
        );
      }
      case "image": {
        const f = output.file;
        const size = f.width && f.height ? `, ${f.width}×${f.height} px` : "";
        return block([
          { type: "text", text: `Image ${f.filePath} (${f.mediaType}${size}, ${formatBytes(f.originalSize)}):` },
          { type: "image", source: { type: "base64", media_type: f.mediaType, data: f.base64 } },
        ]);
      }
      case "notebook": {
        const images: ToolResultContentBlock[] = output.file.images.map((img) => ({ type: "image", source: { type: "base64", media_type: img.mediaType, data: img.data } }));
        return block(images.length ? [{ type: "text", text: output.file.text }, ...images] : output.file.text);
      }
      case "pdf":
        return block(pdfResult(output.file));
    }
  },
});
