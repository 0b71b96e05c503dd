import fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { CanUseToolFn } from "../../../src/core/Tool.js";
import { session, type Session } from "./harness.js";

/**
 * The writers' one lifecycle: validation prepares the write, call() writes that plan when the file has not
 * moved since, and prepares again from the file as it is when it has (a prompt may stay open for minutes).
 */
describe("file writers share one prepare → commit lifecycle", () => {
  /** A permission prompt during which something else changes the file. */
  function promptThatEdits(get: () => Session, name: string, content: string): CanUseToolFn {
    return async () => {
      fs.writeFileSync(get().file(name), content);
      return { behavior: "allow" };
    };
  }

  for (const tool of ["Write", "Edit", "MultiEdit", "NotebookEdit"] as const) {
    it(`${tool}: a change made while the prompt was open is never overwritten`, async () => {
      let s!: Session;
      const isNotebook = tool === "NotebookEdit";
      const name = isNotebook ? "n.ipynb" : "a.txt";
      const original = isNotebook
        ? JSON.stringify({ cells: [{ id: "c1", cell_type: "code", source: "x = 1", metadata: {}, outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1)
        : "one\ntwo\n";
      const changed = isNotebook ? original.replace("x = 1", "x = 2") : "one\nTWO (changed meanwhile)\n";
      s = session({ canUseTool: promptThatEdits(() => s, name, changed), permissionDecider: async (t) => (t.name === "Read" ? { behavior: "allow" } : { behavior: "ask", message: "?" }) });
      s.write(name, original);
      await s.run("Read", { file_path: s.file(name) });
      const inputs = {
        Write: { file_path: s.file(name), content: "replaced\n" },
        Edit: { file_path: s.file(name), old_string: "one", new_string: "ONE" },
        MultiEdit: { file_path: s.file(name), edits: [{ old_string: "one", new_string: "ONE" }] },
        NotebookEdit: { notebook_path: s.file(name), cell_id: "c1", new_source: "y = 3" },
      };
      const result = await s.run(tool, inputs[tool]);
      expect(result.outcome).toBe("tool_error");
      expect(result.text).toMatch(/changed|modified/i);
      expect(s.read(name)).toBe(changed);
    });
  }

  it("Write: the validated plan is what gets written when nothing moved, including for a hook-rewritten input", async () => {
    const s = session({
      hookRunner: {
        preToolUse: async ({ tool, input }) => ({
          additionalContext: [],
          notices: [],
          ...(tool.name === "Write" && { updatedInput: { ...input, content: "from the hook\n" } }),
        }),
        postToolUse: async () => ({ additionalContext: [], notices: [] }),
        postToolUseFailure: async () => ({ additionalContext: [], notices: [] }),
        permissionRequest: async () => ({ additionalContext: [], notices: [] }),
      },
    });
    s.write("b.txt", "old\n");
    await s.run("Read", { file_path: s.file("b.txt") });
    const result = await s.run("Write", { file_path: s.file("b.txt"), content: "from the model\n" });
    expect(result.outcome).toBe("success");
    expect(s.read("b.txt")).toBe("from the hook\n");
  });
});
