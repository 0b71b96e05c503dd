import { cellDisplayId, joinText, notebookLanguage, type Notebook, type NotebookOutput } from "../files/notebook.js";
import { MAX_IMAGE_BYTES, type ImageMediaType } from "./image.js";

const MAX_OUTPUT_CHARS = 10_000;
const MAX_IMAGES = 10;
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

export interface NotebookImage {
  cellId: string;
  mediaType: ImageMediaType;
  data: string;
}

export interface RenderedNotebook {
  text: string;
  images: NotebookImage[];
  cellCount: number;
  shownCells: number;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… [${text.length - max} more characters of this output not shown]`;
}

function renderOutput(output: NotebookOutput, cellId: string, images: NotebookImage[]): string {
  switch (output.output_type) {
    case "stream":
      return `[${output.name ?? "stream"}]\n${clip(joinText(output.text), MAX_OUTPUT_CHARS)}`;
    case "error": {
      const traceback = (output.traceback ?? []).join("\n").replace(ANSI, "");
      return `[error] ${output.ename ?? "Error"}: ${output.evalue ?? ""}\n${clip(traceback, MAX_OUTPUT_CHARS)}`;
    }
    case "execute_result":
    case "display_data": {
      const data = output.data ?? {};
      const parts: string[] = [];
      for (const mediaType of ["image/png", "image/jpeg", "image/gif", "image/webp"] as const) {
        const value = data[mediaType];
        if (typeof value !== "string" && !Array.isArray(value)) continue;
        const base64 = joinText(value).replace(/\s+/g, "");
        if (images.length >= MAX_IMAGES) parts.push(`[${mediaType} output not shown: at most ${MAX_IMAGES} images per read]`);
        else if (base64.length * 0.75 > MAX_IMAGE_BYTES) parts.push(`[${mediaType} output not shown: larger than ${MAX_IMAGE_BYTES} bytes]`);
        else {
          images.push({ cellId, mediaType, data: base64 });
          parts.push(`[${mediaType} output: image ${images.length} after the text]`);
        }
      }
      const plain = data["text/plain"];
      if (typeof plain === "string" || Array.isArray(plain)) parts.push(clip(joinText(plain), MAX_OUTPUT_CHARS));
      else if (parts.length === 0) parts.push(`[output of type ${Object.keys(data).join(", ") || "unknown"}]`);
      const label = output.output_type === "execute_result" ? "result" : "display";
      return `[${label}]\n${parts.join("\n")}`;
    }
    default:
      return `[${output.output_type} output]`;
  }
}

/** Cells as tagged text, outputs after their cell, image outputs collected as separate blocks. */
export function renderNotebook(notebook: Notebook, maxChars: number): RenderedNotebook {
  const language = notebookLanguage(notebook);
  const images: NotebookImage[] = [];
  const blocks: string[] = [];
  let used = 0;
  let shownCells = 0;
  for (const [index, cell] of notebook.cells.entries()) {
    const id = cellDisplayId(cell, index);
    const attrs = [`id="${id}"`, `type="${cell.cell_type}"`];
    if (cell.cell_type === "code" && cell.execution_count !== undefined && cell.execution_count !== null) attrs.push(`execution_count="${cell.execution_count}"`);
    let block = `<cell ${attrs.join(" ")}>\n${joinText(cell.source)}\n</cell>`;
    const outputs = cell.outputs ?? [];
    if (outputs.length) block += `\n<outputs cell="${id}">\n${outputs.map((o) => renderOutput(o, id, images)).join("\n")}\n</outputs>`;
    if (shownCells > 0 && used + block.length > maxChars) break;
    blocks.push(block);
    used += block.length;
    shownCells++;
  }
  const count = notebook.cells.length;
  const header = `Jupyter notebook with ${count} cell${count === 1 ? "" : "s"} (language: ${language}). Pass a cell's id to NotebookEdit as cell_id.`;
  const footer =
    shownCells < count
      ? `\n\n[Only the first ${shownCells} of ${count} cells fit in one result. Inspect the rest with Bash, e.g. jq '.cells[${shownCells}:]' on the file.]`
      : "";
  return { text: `${header}\n\n${blocks.join("\n\n")}${footer}`, images, cellCount: count, shownCells };
}
