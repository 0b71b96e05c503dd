/** The parts of the Jupyter notebook format (nbformat 4) that Read shows and NotebookEdit changes. */

export type MultilineText = string | string[];

export interface NotebookOutput {
  output_type: "stream" | "execute_result" | "display_data" | "error" | (string & {});
  name?: string;
  text?: MultilineText;
  data?: Record<string, MultilineText | Record<string, unknown>>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
  execution_count?: number | null;
  [key: string]: unknown;
}

export type CellType = "code" | "markdown" | "raw";

export interface NotebookCell {
  cell_type: CellType | (string & {});
  id?: string;
  source: MultilineText;
  metadata?: Record<string, unknown>;
  outputs?: NotebookOutput[];
  execution_count?: number | null;
  [key: string]: unknown;
}

export interface Notebook {
  cells: NotebookCell[];
  metadata?: {
    language_info?: { name?: string };
    kernelspec?: { language?: string; name?: string };
    [key: string]: unknown;
  };
  nbformat?: number;
  nbformat_minor?: number;
  [key: string]: unknown;
}

export type ParsedNotebook = { ok: true; notebook: Notebook } | { ok: false; error: string };

export function parseNotebook(text: string): ParsedNotebook {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `it is not valid JSON (${(err as Error).message})` };
  }
  if (value === null || typeof value !== "object" || !Array.isArray((value as Notebook).cells)) {
    return { ok: false, error: 'it has no "cells" array, so it is not a Jupyter notebook (nbformat 4)' };
  }
  return { ok: true, notebook: value as Notebook };
}

export function joinText(text: MultilineText | undefined): string {
  if (text === undefined) return "";
  return Array.isArray(text) ? text.join("") : text;
}

/** nbformat's usual source form: one string per line, each but the last ending with "\n". */
export function splitSource(source: string): string[] {
  if (source === "") return [];
  const lines = source.split("\n").map((line) => `${line}\n`);
  const last = lines.length - 1;
  lines[last] = lines[last].slice(0, -1);
  return lines[last] === "" ? lines.slice(0, -1) : lines;
}

/** The id Read shows for a cell: its own id, or `cell-N` (0-based) for notebooks without ids. */
export function cellDisplayId(cell: NotebookCell, index: number): string {
  return typeof cell.id === "string" && cell.id ? cell.id : `cell-${index}`;
}

/** Index of the cell with this id; `cell-N` also means index N when no cell has that literal id. */
export function findCellIndex(notebook: Notebook, cellId: string): number {
  const byId = notebook.cells.findIndex((cell) => cell.id === cellId);
  if (byId !== -1) return byId;
  const match = /^cell-(\d+)$/.exec(cellId.trim());
  if (match) {
    const index = Number(match[1]);
    if (index < notebook.cells.length) return index;
  }
  return -1;
}

export function notebookLanguage(notebook: Notebook): string {
  return notebook.metadata?.language_info?.name ?? notebook.metadata?.kernelspec?.language ?? "python";
}

/** nbformat 4.5 added mandatory cell ids. */
export function notebookUsesCellIds(notebook: Notebook): boolean {
  return (notebook.nbformat ?? 4) > 4 || ((notebook.nbformat ?? 4) === 4 && (notebook.nbformat_minor ?? 0) >= 5) || notebook.cells.some((c) => typeof c.id === "string");
}
