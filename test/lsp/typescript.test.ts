import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Session } from "../../src/session/index.js";
import { listProcesses, treeMembers } from "../../src/util/processTree.js";
import { call, isRunning, openSession, project, TSCONFIG } from "./support.js";

// Generous waits: the server is slow to start on a busy machine. They bound the test, they are not asserted.
const TS_LSP = { typescript: { command: ["typescript-language-server", "--stdio"], extensions: [".ts", ".tsx"], rootPatterns: ["tsconfig.json"], waitMs: 30_000, startTimeoutMs: 120_000 } };

describe("the real typescript-language-server 5.3.0", () => {
  let cwd: string;
  let session: Session;
  beforeAll(async () => {
    cwd = project({
      "tsconfig.json": TSCONFIG,
      "src/math.ts": "export function double(n: number): number {\n  return n * 2;\n}\n",
      "src/main.ts": 'import { double } from "./math.js";\n\nexport const four: number = double(2);\n',
      "src/old.ts": "export const broken: string = 42;\n",
    });
    session = await openSession(cwd, { lsp: TS_LSP, permissions: { deny: ["Read(src/secret.ts)"] } });
  });
  afterAll(async () => {
    await session?.close();
  });

  it("Diagnostics shows a file's current errors (the server starts on demand)", async () => {
    const result = await call(session, "Diagnostics", { file_path: "src/old.ts" });
    expect(result.isError).toBe(false);
    expect(result.text).toBe("src/old.ts (typescript): 1 error\nsrc/old.ts:1:14 error Type 'number' is not assignable to type 'string'. [2322]");
    const clean = await call(session, "Diagnostics", { file_path: "src/math.ts" });
    expect(clean.text).toBe("No problems in src/math.ts (typescript).");
  }, 240_000);

  it("an Edit that introduces a type error gets it in its result; the Edit that fixes it clears it", async () => {
    await call(session, "Read", { file_path: "src/main.ts" });
    const broken = await call(session, "Edit", { file_path: "src/main.ts", old_string: "double(2)", new_string: 'double("two")' });
    expect(broken.isError).toBe(false);
    expect(broken.text).toContain("The file src/main.ts has been updated");
    expect(broken.text).toContain("LSP diagnostics (typescript): this edit introduced 1 error in src/main.ts:");
    expect(broken.text).toMatch(/\nsrc\/main\.ts:3:\d+ error Argument of type 'string' is not assignable to parameter of type 'number'\. \[2345\]$/);

    const fixed = await call(session, "Edit", { file_path: "src/main.ts", old_string: 'double("two")', new_string: "double(3)" });
    expect(fixed.isError).toBe(false);
    expect(fixed.text).not.toContain("LSP diagnostics");
    const now = await call(session, "Diagnostics", { file_path: "src/main.ts" });
    expect(now.text).toBe("No problems in src/main.ts (typescript).");
  }, 240_000);

  it("a file with an old error: an edit adding a line above it reports only its own error", async () => {
    await call(session, "Read", { file_path: "src/old.ts" });
    const result = await call(session, "Edit", { file_path: "src/old.ts", old_string: "export const broken", new_string: "export const extra: boolean = 'no';\nexport const broken" });
    expect(result.text).toContain("this edit introduced 1 error in src/old.ts:");
    expect(result.text).toMatch(/\nsrc\/old\.ts:1:14 error Type 'string' is not assignable to type 'boolean'\. \[2322\]$/);
    expect(result.text).not.toContain("'number' is not assignable to type 'string'");
  }, 240_000);

  it("an edit in one file that breaks another open file is seen there by Diagnostics", async () => {
    await call(session, "Read", { file_path: "src/math.ts" });
    await call(session, "Edit", { file_path: "src/math.ts", old_string: "n: number", new_string: "n: boolean" });
    // the server re-checks the other open files on its own schedule: ask until it has
    await vi.waitFor(
      async () => {
        const main = await call(session, "Diagnostics", { file_path: "src/main.ts" });
        expect(main.text).toContain("Argument of type 'number' is not assignable to parameter of type 'boolean'. [2345]");
      },
      { timeout: 60_000, interval: 200 },
    );
  }, 240_000);

  it("Diagnostics without a path lists the open files, leaving out one a rule denies reading", async () => {
    // Write may create it (no Edit rule denies it), so the server has it open; the listing still leaves it out
    const write = await call(session, "Write", { file_path: "src/secret.ts", content: "export const hidden: number = 'leak';\n" });
    expect(write.isError, write.text).toBe(false);
    const all = await call(session, "Diagnostics", {});
    expect(all.text).toContain("src/old.ts (typescript): 2 errors");
    expect(all.text).toContain("src/main.ts (typescript): 1 error");
    expect(all.text).not.toContain("secret");
    expect(all.text).not.toContain("leak");
    expect(all.text).toContain("(1 open file is not shown: a rule denies reading it.)");
    const denied = await call(session, "Diagnostics", { file_path: "src/secret.ts" });
    expect(denied.isError).toBe(true);
    expect(denied.text).not.toContain("leak");
  }, 240_000);

  it("session close shuts the server down and leaves none of its processes", async () => {
    const [status] = session.context.lsp!.status();
    expect(status).toMatchObject({ name: "typescript", state: "ready", root: cwd, starts: 1 });
    const tree = treeMembers(await listProcesses(), status.pid!).map((p) => p.pid);
    expect(tree.length).toBeGreaterThan(1); // the server and its tsserver processes
    await session.close();
    expect(tree.filter(isRunning)).toEqual([]);
  }, 240_000);
});
