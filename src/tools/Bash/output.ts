/**
 * A command's merged output with bounded memory: the first and last bytes stay in memory, everything
 * streams to a file once it outgrows the head (at once for background tasks, whose file the model may read).
 */
import fs from "node:fs";
import path from "node:path";
import { ensurePrivateDirSync, openPrivateFileSync } from "../../util/privateFiles.js";
import { formatBytes } from "../files/fileKind.js";

/** Output longer than this (in characters) is shown as head + tail with the count cut. */
export const MAX_INLINE_OUTPUT_CHARS = 30_000;
/** A longer output is saved to its file and the model gets a preview of both ends (Claude Code's persisted-output shape). */
const PREVIEW_HEAD_CHARS = 2_000;
const PREVIEW_TAIL_CHARS = 1_000;
const HEAD_BYTES = 128 * 1024;
const TAIL_BYTES = 128 * 1024;
/** How much may wait for the disk before the command's pipe is paused (a small value stalls the command on every chunk). */
const FILE_BUFFER_BYTES = 4 * 1024 * 1024;
const PROGRESS_LINES = 5;
const PROGRESS_MAX_CHARS = 1_000;

export interface OutputSnapshot {
  text: string;
  truncated: boolean;
  totalBytes: number;
  totalLines: number;
  /** The file holding the whole output, when there is one. */
  outputFile?: string;
}

/** A plain loop: far faster than indexOf when lines are short (`yes` output has one every 2 bytes). */
function countNewlines(buffer: Buffer): number {
  let count = 0;
  for (let i = 0; i < buffer.length; i++) if (buffer[i] === 10) count++;
  return count;
}

const countLines = (text: string) => {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
};

/** Decode bytes that may start or end inside a multi-byte character, dropping the broken edges. */
function decodeSlice(buffer: Buffer, brokenStart: boolean): string {
  let text = buffer.toString("utf8");
  if (brokenStart) text = text.replace(/^\uFFFD{1,3}/, "");
  return text;
}

function headPart(text: string, max: number): string {
  const slice = text.slice(0, max);
  const nl = slice.lastIndexOf("\n");
  return nl > max / 2 ? slice.slice(0, nl + 1) : slice;
}

function tailPart(text: string, max: number): string {
  const slice = text.slice(-max);
  const nl = slice.indexOf("\n");
  return nl >= 0 && nl < max / 2 ? slice.slice(nl + 1) : slice;
}

export interface OutputCollectorOptions {
  /** Where the whole output goes when it is kept. */
  filePath: string;
  /** Create the file at once and write everything to it (background tasks). */
  eager: boolean;
}

export class OutputCollector {
  readonly filePath: string;
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private bytes = 0;
  private lines = 0;
  private file?: fs.WriteStream;
  /** Why the full output could not be kept on disk (an unusable TOOLGATE_HOME, a full disk). */
  private fileError?: Error;
  private version = 0;

  constructor(options: OutputCollectorOptions) {
    this.filePath = options.filePath;
    if (options.eager) this.openFile();
  }

  get totalBytes(): number {
    return this.bytes;
  }

  /** Changes every time output arrives (for throttled progress). */
  get changeCount(): number {
    return this.version;
  }

  /**
   * Opened synchronously: the path is handed out at once and must exist. A failure is remembered, never
   * thrown: this runs inside the child's data handler, and the command's result must survive a disk problem.
   */
  private openFile(): fs.WriteStream | undefined {
    if (this.file || this.fileError) return this.file;
    try {
      ensurePrivateDirSync(path.dirname(this.filePath));
      const file = fs.createWriteStream(this.filePath, { fd: openPrivateFileSync(this.filePath, "w"), highWaterMark: FILE_BUFFER_BYTES });
      file.on("error", (err) => (this.fileError = err));
      for (const chunk of this.head) file.write(chunk);
      this.file = file;
      return file;
    } catch (err) {
      this.fileError = err instanceof Error ? err : new Error(String(err));
      return undefined;
    }
  }

  /** Where the whole output is, for the model: the file, or why there is none. */
  private whereFull(): string {
    return this.fileError ? `the full output could not be saved (${this.fileError.message})` : `the full output is in ${this.filePath}`;
  }

  private fileField(): { outputFile?: string } {
    return this.file && !this.fileError ? { outputFile: this.filePath } : {};
  }

  /** Take a chunk; false means the file is behind and the producer should pause until `drain`. */
  write(chunk: Buffer): boolean {
    this.version++;
    this.bytes += chunk.length;
    this.lines += countNewlines(chunk);
    let keptInHead = 0;
    if (this.headBytes < HEAD_BYTES) {
      const take = chunk.subarray(0, HEAD_BYTES - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      keptInHead = take.length;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0].length >= TAIL_BYTES) {
      this.tailBytes -= (this.tail.shift() as Buffer).length;
    }
    if (this.file) return this.file.write(chunk);
    if (this.bytes > HEAD_BYTES && !this.fileError) {
      // the output outgrew the head: the file starts with the head, then the rest of this chunk
      const file = this.openFile();
      if (file) return file.write(chunk.subarray(keptInHead));
    }
    return true;
  }

  onDrain(listener: () => void): void {
    if (this.file) this.file.once("drain", listener);
    else listener();
  }

  private tailBuffer(): { buffer: Buffer; brokenStart: boolean } {
    const buffer = Buffer.concat(this.tail);
    const excess = buffer.length - TAIL_BYTES;
    return excess > 0 ? { buffer: buffer.subarray(excess), brokenStart: true } : { buffer, brokenStart: this.bytes > buffer.length };
  }

  /** The last few lines, for progress updates. */
  recentLines(): string {
    const { buffer, brokenStart } = this.tailBuffer();
    const recent = buffer.length > 4096 ? buffer.subarray(buffer.length - 4096) : buffer;
    const text = decodeSlice(recent, brokenStart || recent.length < buffer.length).replace(/\s+$/, "");
    const lines = text.split("\n").slice(-PROGRESS_LINES).join("\n");
    return lines.length > PROGRESS_MAX_CHARS ? lines.slice(-PROGRESS_MAX_CHARS) : lines;
  }

  /** The output as the model sees it: whole when short, else a preview of its ends and where the rest is. */
  snapshot(maxChars = MAX_INLINE_OUTPUT_CHARS): OutputSnapshot {
    const base = { totalBytes: this.bytes, totalLines: this.lines + (this.bytes > 0 && !this.endsWithNewline() ? 1 : 0) };
    if (this.bytes <= HEAD_BYTES) {
      const full = Buffer.concat(this.head).toString("utf8");
      if (full.length <= maxChars) return { ...base, text: full, truncated: false, ...this.fileField() };
      // Short in bytes, long in characters: the file is written now so the path given exists.
      this.openFile();
      return { ...base, text: this.persisted(headPart(full, PREVIEW_HEAD_CHARS), tailPart(full, PREVIEW_TAIL_CHARS), base.totalLines), truncated: true, ...this.fileField() };
    }
    const head = headPart(decodeSlice(Buffer.concat(this.head), false).replace(/\uFFFD{1,3}$/, ""), PREVIEW_HEAD_CHARS);
    const { buffer, brokenStart } = this.tailBuffer();
    const tail = tailPart(decodeSlice(buffer, brokenStart), PREVIEW_TAIL_CHARS);
    return { ...base, text: this.persisted(head, tail, base.totalLines), truncated: true, ...this.fileField() };
  }

  private persisted(head: string, tail: string, totalLines: number): string {
    const where = this.fileError
      ? `the full output could not be saved (${this.fileError.message}), so only its ends are shown`
      : `all of it is saved in ${this.filePath}: Read that file with offset and limit, or search it with Grep`;
    const trim = (text: string) => text.replace(/\n$/, "");
    return `<persisted-output>\nThe output is too long to show here (${formatBytes(this.bytes)}, ${totalLines} lines); ${where}.\n\nFirst lines:\n${trim(head)}\n...\n\nLast lines:\n${trim(tail)}\n</persisted-output>`;
  }

  private endsWithNewline(): boolean {
    const last = this.tail[this.tail.length - 1];
    return last !== undefined && last[last.length - 1] === 10;
  }

  /** Close the file; `keepFile: false` removes a file nobody needs. A file that could not be written is already said in the snapshot. */
  async finish(keepFile: boolean): Promise<void> {
    if (keepFile) this.openFile();
    if (this.file) {
      const file = this.file;
      await new Promise<void>((resolve) => file.end(() => resolve()));
      if (!keepFile) await fs.promises.rm(this.filePath, { force: true });
    }
  }
}
