/** Changing a parsed notebook and writing it back in the file's own JSON layout: pure functions. */
import { randomBytes } from "node:crypto";
import { cellDisplayId, notebookUsesCellIds, splitSource, type CellType, type Notebook, type NotebookCell } from "../files/notebook.js";

export type EditMode = "replace" | "insert" | "delete";

export interface CellEdit {
  mode: EditMode;
  /** Index of the cell named by cell_id; -1 when none was given (insert at the top). */
  index: number;
  newSource: string;
  cellType?: "code" | "markdown";
}

export interface CellEditResult {
  /** The id of the cell replaced, inserted or deleted. */
  cellId: string;
  cellType: CellType | string;
}

function newCellId(notebook: Notebook): string {
  const taken = new Set(notebook.cells.map((c) => c.id));
  for (;;) {
    const id = randomBytes(4).toString("hex");
    if (!taken.has(id)) return id;
  }
}

/** A code cell's outputs and execution count describe the source it ran; they go when that changes. */
function clearOutputs(cell: NotebookCell): void {
  cell.execution_count = null;
  cell.outputs = [];
}

function setType(cell: NotebookCell, type: "code" | "markdown"): void {
  if (cell.cell_type === type) return;
  cell.cell_type = type;
  if (type === "code") {
    clearOutputs(cell);
  } else {
    delete cell.execution_count;
    delete cell.outputs;
  }
}

/** Apply one cell edit to the notebook in place. */
export function applyCellEdit(notebook: Notebook, edit: CellEdit): CellEditResult {
  const { cells } = notebook;
  if (edit.mode === "delete") {
    const [removed] = cells.splice(edit.index, 1);
    return { cellId: cellDisplayId(removed, edit.index), cellType: removed.cell_type };
  }
  if (edit.mode === "insert") {
    const type = edit.cellType ?? "code";
    const cell: NotebookCell = { cell_type: type, metadata: {}, source: splitSource(edit.newSource) };
    if (notebookUsesCellIds(notebook)) cell.id = newCellId(notebook);
    if (type === "code") clearOutputs(cell);
    const at = edit.index + 1;
    cells.splice(at, 0, cell);
    return { cellId: cellDisplayId(cell, at), cellType: type };
  }
  const cell = cells[edit.index];
  if (edit.cellType) setType(cell, edit.cellType);
  cell.source = Array.isArray(cell.source) ? splitSource(edit.newSource) : edit.newSource;
  if (cell.cell_type === "code") clearOutputs(cell);
  return { cellId: cellDisplayId(cell, edit.index), cellType: cell.cell_type };
}

export interface JsonLayout {
  indent: string;
  trailingNewline: boolean;
  /** The file escaped every non-ASCII character (Python's json.dump with ensure_ascii). */
  asciiOnly: boolean;
}

/** How the notebook file was formatted, so rewriting it changes only the edited cell. */
export function detectJsonLayout(text: string): JsonLayout {
  const indentMatch = /^\{\r?\n([ \t]+)\S/.exec(text);
  const asciiOnly = !/[^\x00-\x7f]/.test(text) && /\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})/.test(text);
  return { indent: indentMatch ? indentMatch[1] : "", trailingNewline: /\n$/.test(text), asciiOnly };
}

/** As Python's json.dump with ensure_ascii writes it: every non-ASCII UTF-16 unit as \uXXXX. */
function escapeNonAscii(json: string): string {
  return json.replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function serializeNotebook(notebook: Notebook, layout: JsonLayout): string {
  let json = JSON.stringify(notebook, null, layout.indent || undefined);
  if (layout.asciiOnly) json = escapeNonAscii(json);
  return layout.trailingNewline ? `${json}\n` : json;
}

interface Span {
  start: number;
  end: number;
}

/** Offsets of each element of the top-level "cells" array in a valid JSON text; undefined if there is none. */
export function locateCells(text: string): Span[] | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const skipString = () => {
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
  };
  const skipValue = (): void => {
    ws();
    const ch = text[i];
    if (ch === '"') return skipString();
    if (ch === "{" || ch === "[") {
      const close = ch === "{" ? "}" : "]";
      i++;
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (ch === "{") {
          ws();
          skipString();
          ws();
          i++; // ':'
        }
        skipValue();
        ws();
        if (text[i++] === close) return;
      }
    }
    while (i < text.length && !/[\s,\]}]/.test(text[i])) i++;
  };

  ws();
  if (text[i] !== "{") return undefined;
  i++;
  for (;;) {
    ws();
    if (text[i] !== '"') return undefined;
    const keyStart = i;
    skipString();
    const key = JSON.parse(text.slice(keyStart, i)) as string;
    ws();
    i++; // ':'
    ws();
    if (key === "cells" && text[i] === "[") {
      i++;
      const spans: Span[] = [];
      ws();
      if (text[i] === "]") return spans;
      for (;;) {
        ws();
        const start = i;
        skipValue();
        spans.push({ start, end: i });
        ws();
        if (text[i++] === "]") return spans;
      }
    }
    skipValue();
    ws();
    if (text[i++] !== ",") return undefined;
  }
}

function lineIndentBefore(text: string, pos: number): string {
  const lineStart = text.lastIndexOf("\n", pos - 1) + 1;
  const lead = text.slice(lineStart, pos);
  return /^[ \t]*$/.test(lead) ? lead : "";
}

function serializeCell(cell: NotebookCell, layout: JsonLayout, baseIndent: string, eol: string): string {
  let json = JSON.stringify(cell, null, layout.indent || undefined);
  if (layout.indent) json = json.replace(/\n/g, `${eol}${baseIndent}`);
  if (layout.asciiOnly) json = escapeNonAscii(json);
  return json;
}

/**
 * The edited notebook as text: only the edited cell's span of the original file is rewritten, so other cells
 * keep their exact bytes (number formats, escapes, key order). Falls back to re-serializing the whole
 * notebook in the detected layout when the file's shape does not allow a splice.
 */
export function renderEditedNotebook(original: string, before: number, after: Notebook, edit: CellEdit, layout: JsonLayout): string {
  const full = () => serializeNotebook(after, layout);
  const spans = locateCells(original);
  if (!spans || spans.length !== before || spans.length === 0) return full();
  const eol = original.includes("\r\n") ? "\r\n" : "\n";
  const sep = spans.length > 1 ? original.slice(spans[0].end, spans[1].start) : `,${original.slice(original.lastIndexOf("[", spans[0].start) + 1, spans[0].start)}`;
  let out: string;
  if (edit.mode === "replace") {
    const span = spans[edit.index];
    out = original.slice(0, span.start) + serializeCell(after.cells[edit.index], layout, lineIndentBefore(original, span.start), eol) + original.slice(span.end);
  } else if (edit.mode === "insert") {
    const cell = after.cells[edit.index + 1];
    const anchor = spans[Math.max(0, edit.index)];
    const text = serializeCell(cell, layout, lineIndentBefore(original, anchor.start), eol);
    out =
      edit.index === -1
        ? original.slice(0, anchor.start) + text + sep + original.slice(anchor.start)
        : original.slice(0, anchor.end) + sep + text + original.slice(anchor.end);
  } else {
    if (spans.length === 1) return full();
    const k = edit.index;
    out = k + 1 < spans.length ? original.slice(0, spans[k].start) + original.slice(spans[k + 1].start) : original.slice(0, spans[k - 1].end) + original.slice(spans[k].end);
  }
  try {
    JSON.parse(out);
    return out;
  } catch {
    return full();
  }
}
