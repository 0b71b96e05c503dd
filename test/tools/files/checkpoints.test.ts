import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { rewindFiles } from "../../../src/core/context.js";
import { runToolUse } from "../../../src/core/pipeline/index.js";
import { session } from "./harness.js";

const nb = (source: string) => `${JSON.stringify({ cells: [{ cell_type: "markdown", id: "m", metadata: {}, source }], metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1)}\n`;

describe("checkpoints and rewind", () => {
  it("every writer checkpoints before writing; rewind restores changed files and deletes created ones", async () => {
    const s = session();
    s.write("a.txt", "a original\n");
    s.write("c.txt", "c original\n");
    s.write("n.ipynb", nb("nb original"));
    for (const f of ["a.txt", "c.txt", "n.ipynb"]) await s.run("Read", { file_path: f });

    expect((await s.run("Edit", { file_path: "a.txt", old_string: "original", new_string: "after m1" }, "m1")).outcome).toBe("success");
    expect((await s.run("Write", { file_path: "made/b.txt", content: "created in m1\n" }, "m1")).outcome).toBe("success");
    expect((await s.run("MultiEdit", { file_path: "c.txt", edits: [{ old_string: "c", new_string: "C" }] }, "m1")).outcome).toBe("success");
    expect((await s.run("NotebookEdit", { notebook_path: "n.ipynb", cell_id: "m", new_source: "nb after m1" }, "m1")).outcome).toBe("success");
    expect((await s.run("Edit", { file_path: "a.txt", old_string: "after m1", new_string: "after m2" }, "m2")).outcome).toBe("success");
    expect((await s.run("Edit", { file_path: "d.txt", old_string: "", new_string: "created in m2\n" }, "m2")).outcome).toBe("success");

    expect(s.ctx.fileHistory.messageIds()).toEqual(["m1", "m2"]);
    expect(s.ctx.fileHistory.changedFiles("m1").sort()).toEqual([s.file("a.txt"), s.file("c.txt"), s.file("made/b.txt"), s.file("n.ipynb")].sort());

    const m2 = rewindFiles(s.ctx, "m2");
    expect(m2.errors).toEqual([]);
    expect(s.read("a.txt")).toBe("a after m1\n");
    expect(fs.existsSync(s.file("d.txt"))).toBe(false);
    expect(s.read("made/b.txt")).toBe("created in m1\n");

    const m1 = rewindFiles(s.ctx, "m1");
    expect(m1.deleted).toEqual([s.file("made/b.txt")]);
    expect(s.read("a.txt")).toBe("a original\n");
    expect(s.read("c.txt")).toBe("c original\n");
    expect(s.read("n.ipynb")).toBe(nb("nb original"));
    expect(fs.existsSync(s.file("made/b.txt"))).toBe(false);

    // Rewound files count as unread again.
    expect((await s.run("Edit", { file_path: "a.txt", old_string: "original", new_string: "x" })).text).toContain("must be read");
  });

  it("keys checkpoints by the tool_use id when the assistant message has no id", async () => {
    const s = session();
    s.write("a.txt", "v1\n");
    await s.run("Read", { file_path: "a.txt" });
    const use = { type: "tool_use" as const, id: "toolu_noid", name: "Edit", input: { file_path: "a.txt", old_string: "v1", new_string: "v2" } };
    for await (const _ of runToolUse(use, { role: "assistant", content: [] }, async () => ({ behavior: "allow" }), s.ctx)) void _;
    expect(s.ctx.fileHistory.messageIds()).toEqual(["toolu_noid"]);
    rewindFiles(s.ctx, "toolu_noid");
    expect(s.read("a.txt")).toBe("v1\n");
  });

  it("a refused edit takes no checkpoint", async () => {
    const s = session();
    s.write("a.txt", "v1\n");
    await s.run("Read", { file_path: "a.txt" });
    await s.run("Edit", { file_path: "a.txt", old_string: "nope", new_string: "v2" }, "m_refused");
    expect(s.ctx.fileHistory.messageIds()).toEqual([]);
  });
});
