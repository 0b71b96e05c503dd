import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Session } from "../../src/session/index.js";
import { call, FIXTURES, openSession, project } from "./support.js";

const sessions: Session[] = [];
afterAll(async () => {
  for (const s of sessions.splice(0)) await s.close();
});

describe("the session and the lsp settings section", () => {
  it("without an lsp section there is no Diagnostics tool and no observer", async () => {
    const s = await openSession(project({ "a.ts": "x\n" }), {});
    sessions.push(s);
    expect(s.context.options.tools.map((t) => t.name)).not.toContain("Diagnostics");
    expect(s.context.lsp).toBeUndefined();
    expect(s.context.fileWriteObservers ?? []).toEqual([]);
    const result = await call(s, "Diagnostics", { file_path: "a.ts" });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/No such tool|not available|Diagnostics/);
  });

  it("with one, Diagnostics exists and refuses files no server handles, missing files and bad input with what to fix", async () => {
    const cwd = project({ "a.txt": "x\n" });
    const s = await openSession(cwd, { lsp: { fake: { command: ["node", path.join(FIXTURES, "fake-server.mjs")], extensions: [".fk"] } } });
    sessions.push(s);
    expect(s.context.options.tools.map((t) => t.name)).toContain("Diagnostics");
    const other = await call(s, "Diagnostics", { file_path: "a.txt" });
    expect(other).toEqual({ isError: true, text: expect.stringContaining("No language server handles") });
    expect(other.text).toContain("files ending in .fk");
    const missing = await call(s, "Diagnostics", { file_path: "nope.fk" });
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain("File does not exist");
    const bad = await call(s, "Diagnostics", { file_path: 7 });
    expect(bad.isError).toBe(true);
    const empty = await call(s, "Diagnostics", {});
    expect(empty).toEqual({ isError: false, text: expect.stringContaining("No file is open in a language server yet") });
    // nothing was started for any of this
    expect(s.context.lsp!.status()).toEqual([expect.objectContaining({ state: "not started" })]);
  });

  it("an invalid server entry is dropped with a warning; the valid ones stay", async () => {
    const s = await openSession(project({}), {
      lsp: { good: { command: ["x-lsp"], extensions: [".x"] }, bad: { command: [], extensions: ["ts"] } },
    });
    sessions.push(s);
    expect(s.warnings.join("\n")).toMatch(/lsp\.bad: server bad is not usable \(command: needs the program to run; extensions\.0: must start with a dot/);
    expect(s.fatalErrors).toEqual([]);
    expect(Object.keys(s.context.lsp!.servers)).toEqual(["good"]);
  });
});
