import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { locateCells } from "../../../src/tools/NotebookEdit/notebookEdit.js";
import { session, sessionAfterRead, touch } from "../files/harness.js";

const notebook = (cells: object[], minor = 5) => ({
  cells,
  metadata: { kernelspec: { name: "python3", language: "python" }, language_info: { name: "python" } },
  nbformat: 4,
  nbformat_minor: minor,
});

const codeCell = (id: string, source: string[]) => ({
  cell_type: "code",
  execution_count: 1,
  id,
  metadata: {},
  outputs: [{ output_type: "stream", name: "stdout", text: ["out\n"] }],
  source,
});

/** As Jupyter writes it: one-space indent, trailing newline. */
const jupyter = (nb: object) => `${JSON.stringify(nb, null, 1)}\n`;

const readNotebook = (content: string) => sessionAfterRead("nb.ipynb", content);

const load = (s: ReturnType<typeof session>) => JSON.parse(s.read("nb.ipynb"));

describe("NotebookEdit", () => {
  it("replaces a code cell's source by id and clears its outputs, leaving the rest byte-identical", async () => {
    const original = jupyter(notebook([codeCell("a1", ["x = 1\n", "x"]), codeCell("b2", ["y = 2.0"])]));
    const withFloat = original.replace(/"execution_count": 1,(\s+)"id": "b2"/, '"execution_count": 1.0,$1"id": "b2"');
    expect(withFloat).not.toBe(original);
    const s = await readNotebook(withFloat);
    const before = s.read("nb.ipynb");
    const r = await s.run("NotebookEdit", { notebook_path: "nb.ipynb", cell_id: "a1", new_source: "x = 10\nprint(x)" });
    expect(r.outcome).toBe("success");
    expect(r.text).toContain("Replaced the source of code cell a1");
    const nb = load(s);
    expect(nb.cells[0]).toMatchObject({ id: "a1", source: ["x = 10\n", "print(x)"], outputs: [], execution_count: null });
    const after = s.read("nb.ipynb");
    const tail = before.slice(before.indexOf('"id": "b2"') - 40);
    expect(after.endsWith(tail)).toBe(true);
    expect(after).toContain('"execution_count": 1.0');
    expect(after.startsWith('{\n "cells": [\n  {\n')).toBe(true);
  });

  it("accepts cell-N ids, inserts after a cell with a fresh id, and deletes", async () => {
    const s = await readNotebook(jupyter(notebook([codeCell("a1", ["a"]), codeCell("b2", ["b"])])));
    const inserted = await s.run("NotebookEdit", { notebook_path: "nb.ipynb", cell_id: "cell-0", new_source: "# Notes", cell_type: "markdown", edit_mode: "insert" });
    expect(inserted.outcome).toBe("success");
    let nb = load(s);
    expect(nb.cells.map((c: { cell_type: string }) => c.cell_type)).toEqual(["code", "markdown", "code"]);
    expect(nb.cells[1]).toMatchObject({ cell_type: "markdown", source: ["# Notes"] });
    expect(nb.cells[1].id).toMatch(/^[0-9a-f]{8}$/);
    expect(inserted.text).toContain(`id ${nb.cells[1].id}`);

    const top = await s.run("NotebookEdit", { notebook_path: "nb.ipynb", new_source: "import os", cell_type: "code", edit_mode: "insert" });
    expect(top.outcome).toBe("success");
    nb = load(s);
    expect(nb.cells[0]).toMatchObject({ cell_type: "code", source: ["import os"], outputs: [], execution_count: null });

    const deleted = await s.run("NotebookEdit", { notebook_path: "nb.ipynb", cell_id: "b2", new_source: "", edit_mode: "delete" });
    expect(deleted.text).toContain("Deleted cell b2");
    expect(load(s).cells.map((c: { id: string }) => c.id)).not.toContain("b2");
  });

  it("changes a cell's type", async () => {
    const s = await readNotebook(jupyter(notebook([codeCell("a1", ["print(1)"])])));
    await s.run("NotebookEdit", { notebook_path: "nb.ipynb", cell_id: "a1", new_source: "Now prose", cell_type: "markdown" });
    const cell = load(s).cells[0];
    expect(cell.cell_type).toBe("markdown");
    expect(cell).not.toHaveProperty("outputs");
    expect(cell).not.toHaveProperty("execution_count");
  });

  it("says the notebook does not exist, also when a parent on the path is a file", async () => {
    const s = session();
    s.write("plain.txt", "not a directory");
    for (const notebook_path of ["missing.ipynb", "plain.txt/nb.ipynb"]) {
      const r = await s.run("NotebookEdit", { notebook_path, new_source: "x", cell_id: "a" });
      expect(r.outcome).toBe("invalid_input");
      expect(r.text).toContain("File does not exist");
    }
  });

  it("refuses without a read, when stale, for unknown cells, and for missing cell_type on insert", async () => {
    const s = session();
    s.write("nb.ipynb", jupyter(notebook([codeCell("a1", ["a"])])));
    expect((await s.run("NotebookEdit", { notebook_path: "nb.ipynb", cell_id: "a1", new_source: "x" })).text).toContain("has not been read");
    await s.run("Read", { file_path: "nb.ipynb" });
    const unknown = await s.run("NotebookEdit", { notebook_path: "nb.ipynb", cell_id: "zz", new_source: "x" });
    expect(unknown.text).toContain('No cell with id "zz"');
    expect(unknown.text).toContain("Its cells are: a1");
    expect((await s.run("NotebookEdit", { notebook_path: "nb.ipynb", new_source: "x", edit_mode: "insert" })).text).toContain("cell_type");
    expect((await s.run("NotebookEdit", { notebook_path: "nb.ipynb", new_source: "x" })).text).toContain("cell_id is required");
    touch(s.file("nb.ipynb"));
    expect((await s.run("NotebookEdit", { notebook_path: "nb.ipynb", cell_id: "a1", new_source: "ok" })).outcome).toBe("success");
    fs.writeFileSync(s.file("nb.ipynb"), jupyter(notebook([codeCell("a1", ["changed"])])));
    touch(s.file("nb.ipynb"), 30_000);
    expect((await s.run("NotebookEdit", { notebook_path: "nb.ipynb", cell_id: "a1", new_source: "x" })).text).toContain("has changed since you last read it");
  });

  it("refuses other files and invalid notebooks", async () => {
    const s = session();
    s.write("a.py", "x\n");
    expect((await s.run("NotebookEdit", { notebook_path: "a.py", cell_id: "a", new_source: "x" })).text).toContain("not a Jupyter notebook");
    s.write("bad.ipynb", "{ not json");
    await s.run("Read", { file_path: "bad.ipynb" });
    const r = await s.run("NotebookEdit", { notebook_path: "bad.ipynb", cell_id: "cell-0", new_source: "x" });
    expect(r.text).toContain("not valid JSON");
  });

  it("keeps a compact, ASCII-escaped layout", async () => {
    const nb = notebook([{ cell_type: "markdown", id: "m", metadata: {}, source: "caf\u00e9" }]);
    const escaped = JSON.stringify(nb).replace("\u00e9", "\\u00e9");
    const s = await readNotebook(escaped);
    await s.run("NotebookEdit", { notebook_path: "nb.ipynb", cell_id: "m", new_source: "na\u00efve" });
    const text = s.read("nb.ipynb");
    expect(text).not.toContain("\n");
    expect(text).toContain('"source":"na\\u00efve"');
    expect(JSON.parse(text).cells[0].source).toBe("na\u00efve");
  });

  it("locateCells finds every cell's span", () => {
    const text = jupyter(notebook([codeCell("a", ["{]\"\\"]), codeCell("b", [])]));
    const spans = locateCells(text);
    expect(spans?.map((s) => JSON.parse(text.slice(s.start, s.end)).id)).toEqual(["a", "b"]);
  });
});
