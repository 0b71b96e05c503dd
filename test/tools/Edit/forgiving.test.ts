import { describe, expect, it } from "vitest";
import { sessionAfterRead } from "../files/harness.js";

describe("Edit's forgiving tiers through the pipeline", () => {
  it("says in its result which tier matched, and writes the file's own style", async () => {
    const s = await sessionAfterRead("m.go", "func f() {\n\tif a {\n\t\tb()\n\t}\n}\n");
    const r = await s.run("Edit", { file_path: "m.go", old_string: "    if a {\n        b()\n    }", new_string: "    if a {\n        c()\n    }" });
    expect(r.outcome).toBe("success");
    expect(r.text).toContain("tabs and spaces");
    expect(s.read("m.go")).toBe("func f() {\n\tif a {\n\t\tc()\n\t}\n}\n");
  });

  it("escape sequences written literally are read as the characters, in MultiEdit too", async () => {
    const s = await sessionAfterRead("t.txt", "a\tb\nc\n");
    const r = await s.run("MultiEdit", { file_path: "t.txt", edits: [{ old_string: "a\\tb\\nc", new_string: "a\\tB\\nc" }] });
    expect(r.outcome).toBe("success");
    expect(r.text).toContain("escape sequences");
    expect(s.read("t.txt")).toBe("a\tB\nc\n");
  });

  it("two candidates in a loose tier are refused with the count, and the file is unchanged", async () => {
    const s = await sessionAfterRead("d.py", "if a:\n    go()\nif a:\n        go()\n");
    const r = await s.run("Edit", { file_path: "d.py", old_string: "if a:\n  go()", new_string: "if a:\n  stop()" });
    expect(r.outcome).toBe("invalid_input");
    expect(r.text).toContain("matches 2 places");
    expect(r.text).toContain("allowing each indentation level to differ");
    expect(s.read("d.py")).toBe("if a:\n    go()\nif a:\n        go()\n");
  });
});
