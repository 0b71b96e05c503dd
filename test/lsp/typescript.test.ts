import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Session } from "../../src/session/index.js";
import { call, openSession, processesWith, project, TSCONFIG } from "./support.js";

const TS_LSP = { typescript: { command: ["typescript-language-server", "--stdio"], extensions: [".ts", ".tsx"], rootPatterns: ["tsconfig.json"], waitMs: 30_000 } };

const sessions: Session[] = [];
afterAll(async () => {
  for (const s of sessions.splice(0)) await s.close();
});

describe("after-edit diagnostics from the real typescript-language-server", () => {
  it("an edit that introduces a type error gets it in its result; the edit that fixes it clears it", async () => {
    const cwd = project({
      "tsconfig.json": TSCONFIG,
      "src/math.ts": "export function double(n: number): number {\n  return n * 2;\n}\n",
      "src/main.ts": 'import { double } from "./math.js";\n\nexport const four: number = double(2);\n',
    });
    const session = await openSession(cwd, { lsp: TS_LSP });
    sessions.push(session);
    await call(session, "Read", { file_path: "src/main.ts" });

    const broken = await call(session, "Edit", { file_path: "src/main.ts", old_string: "double(2)", new_string: 'double("two")' });
    expect(broken.isError).toBe(false);
    expect(broken.text).toContain("The file src/main.ts has been updated");
    expect(broken.text).toMatch(/LSP diagnostics \(typescript\): this edit introduced 1 error in src\/main\.ts:/);
    expect(broken.text).toMatch(/src\/main\.ts:3:\d+ error Argument of type 'string' is not assignable to parameter of type 'number'\. \[2345\]/);

    const fixed = await call(session, "Edit", { file_path: "src/main.ts", old_string: 'double("two")', new_string: "double(3)" });
    expect(fixed.isError).toBe(false);
    expect(fixed.text).not.toContain("LSP diagnostics");
    expect(fixed.text).not.toContain("2345");

    const pids = session.context.lsp!.status().flatMap((s) => (s.pid ? [s.pid] : []));
    expect(pids.length).toBe(1);
    await session.close();
    expect(processesWith(cwd)).toEqual([]);
  }, 120_000);
});
