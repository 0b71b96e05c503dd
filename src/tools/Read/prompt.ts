import { DEFAULT_READ_LIMIT, MAX_LINE_CHARS } from "../files/readFormat.js";
import { DEFAULT_PDF_PAGES, MAX_PDF_PAGES_PER_READ } from "./pdf.js";

export const READ_DESCRIPTION = "Read a file: text with line numbers, images, PDFs, Jupyter notebooks.";

export const READ_PROMPT = `Reads a file from the local filesystem.

- file_path may be absolute or relative to the working directory; ~ means the home directory.
- Text comes back one line per row as "N<tab>text", N being the 1-based line number. The number and the tab are not part of the file: leave them out when you copy text into Edit's old_string.
- By default the first ${DEFAULT_READ_LIMIT} lines are shown. For longer files use offset (the first line to show, 1-based) and limit (how many lines). Every result ends with the range shown and the file's total line count, and says which offset continues.
- A negative offset counts from the end: offset=-100 shows the last 100 lines (e.g. of a log), fast even in huge files. In a large file whose lines were not counted yet, such a window is numbered from the end (-1 is the last line) and the result says so.
- Lines longer than ${MAX_LINE_CHARS} characters are cut and marked. Very large results stop early and say where to continue.
- Works on files of any size: only the requested window is kept in memory.
- Images (png, jpg, gif, webp) are returned as images you can look at.
- PDFs come back as text, ${DEFAULT_PDF_PAGES} pages at a time; use pages ("3" or "2-7", at most ${MAX_PDF_PAGES_PER_READ}) for others. Needs poppler's pdftotext.
- Jupyter notebooks (.ipynb) are shown cell by cell with their outputs and cell ids (for NotebookEdit).
- Binary files and devices are refused; a missing file gets a suggestion of a similar existing path.
- Reading a file again with the same window when it has not changed returns a short note instead of the same content; the earlier result is still accurate.
- Read a file before changing it with Edit, MultiEdit, Write or NotebookEdit. You can read several files at once by calling Read in parallel.`;
