import { execFile } from "node:child_process";
import { FileToolError } from "../files/errors.js";

/** Pages extracted when the model names none, and the most it may ask for at once. */
export const DEFAULT_PDF_PAGES = 20;
export const MAX_PDF_PAGES_PER_READ = 50;
const PDF_TIMEOUT_MS = 60_000;
const PDF_MAX_BUFFER = 64 * 1024 * 1024;

export interface PageRange {
  first: number;
  last: number;
}

/** `"3"` or `"2-7"` (1-based, inclusive); a string saying what is wrong otherwise. */
export function parsePageRange(pages: string): PageRange | string {
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(pages);
  if (!match) return `pages must be a page number like "3" or a range like "2-7", not ${JSON.stringify(pages)}`;
  const first = Number(match[1]);
  const last = match[2] === undefined ? first : Number(match[2]);
  if (first < 1) return "pages are numbered from 1";
  if (last < first) return `the range ${pages} ends before it starts`;
  if (last - first + 1 > MAX_PDF_PAGES_PER_READ) return `at most ${MAX_PDF_PAGES_PER_READ} pages can be read at once; ask for a smaller range`;
  return { first, last };
}

function run(command: string, args: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: PDF_TIMEOUT_MS, maxBuffer: PDF_MAX_BUFFER, encoding: "utf8", signal }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      if ((err as NodeJS.ErrnoException).code === "ENOENT") {
        return reject(
          new FileToolError(
            `Reading PDF text needs poppler's ${command}, which is not installed on this machine. Install poppler-utils (apt-get install poppler-utils, brew install poppler), or convert the PDF to text another way.`,
            "read:pdf_tool_missing",
          ),
        );
      }
      reject(new FileToolError(`${command} could not read the PDF: ${(stderr || err.message).trim()}`, "read:pdf_failed"));
    });
  });
}

async function pdfPageCount(absPath: string, signal?: AbortSignal): Promise<number | undefined> {
  const info = await run("pdfinfo", [absPath], signal);
  const match = /^Pages:\s+(\d+)/m.exec(info);
  return match ? Number(match[1]) : undefined;
}

export interface PdfText {
  /** Page texts in order, from `first`. */
  pages: string[];
  first: number;
  totalPages?: number;
}

/** Text of a page range with pdftotext's layout mode (pages separated by form feeds in its output). */
export async function extractPdfText(absPath: string, requested: PageRange | undefined, signal?: AbortSignal): Promise<PdfText> {
  const totalPages = await pdfPageCount(absPath, signal);
  const first = requested?.first ?? 1;
  if (totalPages !== undefined && first > totalPages) {
    throw new FileToolError(`The PDF has ${totalPages} page${totalPages === 1 ? "" : "s"}; page ${first} does not exist.`, "read:pdf_page_range");
  }
  const wantedLast = requested?.last ?? first + DEFAULT_PDF_PAGES - 1;
  const last = totalPages === undefined ? wantedLast : Math.min(wantedLast, totalPages);
  const text = await run("pdftotext", ["-layout", "-enc", "UTF-8", "-f", String(first), "-l", String(last), absPath, "-"], signal);
  const pages = text.split("\f");
  if (pages.length > last - first + 1) pages.length = last - first + 1;
  return { pages, first, totalPages };
}
