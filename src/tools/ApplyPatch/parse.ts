/**
 * The V4A patch format OpenAI models emit for apply_patch, parsed into file operations. Pure; every error names
 * the line of the patch it is about and what the line should look like.
 *
 *   *** Begin Patch
 *   *** Add File: path        then the file's lines, each prefixed "+"
 *   *** Delete File: path
 *   *** Update File: path     then optionally "*** Move to: new/path", then hunks: "@@ [a line to find first]"
 *                             followed by " context", "-removed", "+added" lines, optionally "*** End of File"
 *   *** End Patch
 */

export interface HunkLine {
  kind: "context" | "remove" | "add";
  text: string;
}

export interface Hunk {
  /** The text after "@@": a line to find first, the hunk then matches after it. */
  anchor?: string;
  lines: HunkLine[];
  /** "*** End of File": the hunk's old lines end the file. */
  atEnd: boolean;
  /** 1-based line of the patch where the hunk starts, for messages. */
  patchLine: number;
  /** While parsing: how many bare empty lines end the hunk so far. */
  blankTail?: number;
}

export type PatchOperation =
  | { kind: "add"; path: string; content: string }
  | { kind: "delete"; path: string }
  | { kind: "update"; path: string; moveTo?: string; hunks: Hunk[] };

export type ParseResult = { ok: true; operations: PatchOperation[] } | { ok: false; message: string };

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const END_OF_FILE = "*** End of File";

const isFileHeader = (line: string) => line.startsWith(ADD) || line.startsWith(DELETE) || line.startsWith(UPDATE) || line.trim() === END;

/** "@@ def f():" → "def f():"; "@@" → undefined; a closing "@@" some models add is dropped. */
function anchorOf(line: string): string | undefined {
  const text = line.slice(2).replace(/\s*@@\s*$/, "").trim();
  return text === "" ? undefined : text;
}

export function parsePatch(text: string): ParseResult {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  while (lines.length && lines[lines.length - 1].trim() === "") lines.pop();
  let i = 0;
  while (i < lines.length && lines[i].trim() === "") i++;
  const fail = (line: number, message: string): ParseResult => ({ ok: false, message: `Patch line ${line + 1}: ${message}` });
  if (lines[i]?.trim() !== BEGIN) return fail(i, `a patch starts with "${BEGIN}" on a line of its own.`);
  if (lines.length - 1 <= i || lines[lines.length - 1].trim() !== END) return fail(lines.length - 1, `a patch ends with "${END}" on a line of its own; it is missing.`);
  const last = lines.length - 1;
  const operations: PatchOperation[] = [];
  i++;
  while (i < last) {
    const line = lines[i];
    const pathAfter = (prefix: string) => line.slice(prefix.length).trim();
    if (line.startsWith(ADD)) {
      const path = pathAfter(ADD);
      if (!path) return fail(i, "Add File needs a path.");
      const content: string[] = [];
      for (i++; i < last && !isFileHeader(lines[i]); i++) {
        if (!lines[i].startsWith("+")) return fail(i, `every line of an added file starts with "+" (found ${JSON.stringify(lines[i].slice(0, 40))}).`);
        content.push(lines[i].slice(1));
      }
      operations.push({ kind: "add", path, content: content.length ? `${content.join("\n")}\n` : "" });
    } else if (line.startsWith(DELETE)) {
      const path = pathAfter(DELETE);
      if (!path) return fail(i, "Delete File needs a path.");
      operations.push({ kind: "delete", path });
      i++;
    } else if (line.startsWith(UPDATE)) {
      const path = pathAfter(UPDATE);
      if (!path) return fail(i, "Update File needs a path.");
      const op: Extract<PatchOperation, { kind: "update" }> = { kind: "update", path, hunks: [] };
      i++;
      if (i < last && lines[i].startsWith(MOVE)) {
        op.moveTo = lines[i].slice(MOVE.length).trim();
        if (!op.moveTo) return fail(i, "Move to needs a path.");
        i++;
      }
      let hunk: Hunk | undefined;
      for (; i < last && !isFileHeader(lines[i]); i++) {
        const l = lines[i];
        if (l.startsWith("@@")) {
          hunk = { anchor: anchorOf(l), lines: [], atEnd: false, patchLine: i + 1 };
          op.hunks.push(hunk);
          continue;
        }
        if (l.trim() === END_OF_FILE) {
          if (!hunk) return fail(i, `"${END_OF_FILE}" ends a hunk, but no hunk came before it.`);
          hunk.atEnd = true;
          continue;
        }
        const kind = l.startsWith("+") ? "add" : l.startsWith("-") ? "remove" : l.startsWith(" ") || l === "" ? "context" : undefined;
        if (!kind) {
          return fail(i, `a hunk line starts with " " (context), "-" (remove) or "+" (add); found ${JSON.stringify(l.slice(0, 40))}. Start a hunk with "@@", a file with "*** Update File:".`);
        }
        if (hunk?.atEnd) return fail(i, `"${END_OF_FILE}" must be the last line of its hunk.`);
        if (!hunk) {
          // The first hunk of a file may leave out its "@@" line.
          hunk = { lines: [], atEnd: false, patchLine: i + 1 };
          op.hunks.push(hunk);
        }
        hunk.lines.push({ kind, text: l.slice(l === "" ? 0 : 1) });
        if (l === "") hunk.blankTail = (hunk.blankTail ?? 0) + 1;
        else delete hunk.blankTail;
      }
      // Bare empty lines at a hunk's end are usually the gap before the next file, not context.
      for (const h of op.hunks) {
        if (h.blankTail) h.lines.splice(h.lines.length - h.blankTail, h.blankTail);
        delete h.blankTail;
      }
      const empty = op.hunks.find((h) => !h.lines.some((x) => x.kind !== "context"));
      if (empty) return fail(empty.patchLine - 1, "this hunk changes nothing: it needs at least one \"-\" or \"+\" line.");
      if (!op.hunks.length && !op.moveTo) return fail(i - 1, `Update File ${path} has no hunks and no Move to, so it would change nothing.`);
      operations.push(op);
    } else if (line.trim() === "") {
      i++;
    } else {
      return fail(i, `expected "${ADD}", "${DELETE}", "${UPDATE}" or "${END}", found ${JSON.stringify(line.slice(0, 60))}.`);
    }
  }
  if (!operations.length) return fail(last, "the patch has no file operations.");
  return { ok: true, operations };
}

/** Every path the patch touches, in order: each operation's path, and where an update moves its file. */
export function patchPaths(operations: readonly PatchOperation[]): string[] {
  return operations.flatMap((op) => (op.kind === "update" && op.moveTo ? [op.path, op.moveTo] : [op.path]));
}
