import { describe, expect, it } from "vitest";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { countBySeverity, formatDiagnostic, formatDiagnosticList, newProblems } from "../../src/lsp/format.js";

const d = (line: number, message: string, severity?: 1 | 2 | 3 | 4, code?: string | number): Diagnostic => ({
  range: { start: { line, character: 4 }, end: { line, character: 9 } },
  message,
  ...(severity ? { severity } : {}),
  ...(code !== undefined ? { code } : {}),
});

describe("newProblems", () => {
  it("ignores positions: an old error that moved is not new", () => {
    expect(newProblems([d(1, "x is unused", 1, 6133)], [d(7, "x is unused", 1, 6133)])).toEqual([]);
  });
  it("counts copies: a second identical error is new", () => {
    const fresh = newProblems([d(1, "boom", 1)], [d(1, "boom", 1), d(5, "boom", 1)]);
    expect(fresh).toHaveLength(1);
  });
  it("a change of severity or code is a new problem; information and hints never are", () => {
    const fresh = newProblems([d(1, "m", 2, "A")], [d(1, "m", 1, "A"), d(1, "m", 2, "B"), d(2, "fyi", 3), d(3, "hint", 4)]);
    expect(fresh.map((x) => [x.severity, x.code])).toEqual([
      [1, "A"],
      [2, "B"],
    ]);
  });
  it("a diagnostic without a severity counts as an error", () => {
    expect(newProblems([], [d(0, "no severity")])).toHaveLength(1);
  });
  it("markup messages compare by their text", () => {
    const markup = { ...d(0, ""), message: { kind: "markdown" as const, value: "bad `x`" } };
    expect(newProblems([d(3, "bad `x`", 1)], [markup])).toEqual([]);
  });
});

describe("formatting", () => {
  it("path:line:col severity message [code], 1-based, one line", () => {
    expect(formatDiagnostic("src/a.ts", d(2, "Type 'string'\n  is not 'number'.", 1, 2322))).toBe("src/a.ts:3:5 error Type 'string' is not 'number'. [2322]");
    expect(formatDiagnostic("a.py", d(0, "unused", 2))).toBe("a.py:1:5 warning unused");
  });
  it("sorts errors first, caps the count with +N more and each message's length", () => {
    const list = [d(9, "late warning", 2), ...Array.from({ length: 11 }, (_, i) => d(i, `error ${i} ${"x".repeat(i === 0 ? 500 : 0)}`, 1))];
    const lines = formatDiagnosticList("f", list);
    expect(lines).toHaveLength(11);
    expect(lines[0].length).toBeLessThan(330);
    expect(lines[0].endsWith("…")).toBe(true);
    expect(lines.slice(0, 10).every((l) => l.includes(" error "))).toBe(true);
    expect(lines[10]).toBe("+2 more");
  });
  it("counts by severity", () => {
    expect(countBySeverity([d(0, "a", 1), d(0, "b", 1), d(0, "c", 2), d(0, "d", 3)])).toBe("2 errors, 1 warning, 1 other");
    expect(countBySeverity([])).toBe("none");
  });
});
