/**
 * The writer side of FileWriteObserver, which skill discovery rides on: every writer tells the observers the
 * absolute path it wrote, shows their notes to the model after its own text, and a failing observer changes nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AnyTool, FileWriteObserver } from "../../../src/core/Tool.js";
import { EditTool, MultiEditTool, NotebookEditTool, ReadTool, WriteTool } from "../../../src/tools/index.js";
import { approveAll, tempDir, testContext } from "../../helpers.js";
import { resultText, runOne } from "../../mcp/helpers.js";

const tools: AnyTool[] = [EditTool, MultiEditTool, WriteTool, NotebookEditTool, ReadTool];
const notebook = JSON.stringify({ cells: [{ cell_type: "code", id: "a1", metadata: {}, source: ["x = 1"], outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1);

describe("writers and file-write observers", () => {
  it("Edit, MultiEdit, Write and NotebookEdit pass each written path to the observers and append their notes", async () => {
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, "nb.ipynb"), notebook);
    const seen: string[] = [];
    const noting: FileWriteObserver = {
      async afterWrite(absPath) {
        seen.push(absPath);
        return `note about ${path.basename(absPath)}`;
      },
    };
    const silent: FileWriteObserver = { afterWrite: async () => undefined };
    const failing: FileWriteObserver = {
      afterWrite: async () => {
        throw new Error("observer crashed");
      },
    };
    const context = testContext({ tools, cwd });
    context.fileWriteObservers = [failing, noting, silent];

    const calls: Array<[string, Record<string, unknown>, string]> = [
      ["Edit", { file_path: "a.txt", old_string: "", new_string: "one\n" }, "a.txt"],
      ["Edit", { file_path: "a.txt", old_string: "one", new_string: "two" }, "a.txt"],
      ["MultiEdit", { file_path: "a.txt", edits: [{ old_string: "two", new_string: "three" }] }, "a.txt"],
      ["Write", { file_path: "b.txt", content: "new\n" }, "b.txt"],
      ["Write", { file_path: "a.txt", content: "whole\n" }, "a.txt"],
    ];
    for (const [tool, input, file] of calls) {
      const { result } = await runOne(tool, input, context, approveAll);
      expect(result.outcome).toBe("success");
      expect(resultText(result).endsWith(`\n\nnote about ${file}`)).toBe(true);
    }
    await runOne("Read", { file_path: "nb.ipynb" }, context, approveAll);
    const nb = await runOne("NotebookEdit", { notebook_path: "nb.ipynb", cell_id: "a1", new_source: "x = 2" }, context, approveAll);
    expect(nb.result.outcome).toBe("success");
    expect(resultText(nb.result)).toMatch(/Replaced the source of code cell a1 .*\n\nnote about nb\.ipynb$/s);
    expect(seen).toEqual([...calls.map(([, , file]) => path.join(cwd, file)), path.join(cwd, "nb.ipynb")]);
    expect(fs.readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("whole\n");
  });

  it("without observers the results are as before", async () => {
    const cwd = tempDir();
    const context = testContext({ tools, cwd });
    const { result } = await runOne("Write", { file_path: "c.txt", content: "x\n" }, context, approveAll);
    expect(resultText(result)).toBe(`Created c.txt (1 line).`);
  });
});
