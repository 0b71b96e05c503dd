import { describe, expect, it } from "vitest";
import { diagnoseNoMatch, formatAmbiguousMessage, formatNoMatchMessage } from "../../../src/tools/Edit/diagnose.js";

describe("no-match diagnosis", () => {
  const file = ["import x from 'x';", "", "export function total(items) {", "\tlet sum = 0;", "\tfor (const i of items) sum += i.price;", "\treturn sum;", "}", ""].join("\n");

  it("aligns old_string with the closest region and explains the first differing line", () => {
    const d = diagnoseNoMatch(file, "export function total(items) {\n    let sum = 0;\n    for (const i of items) sum += i.price;", "x");
    expect(d.closest).toMatchObject({ startLine: 3, endLine: 5, similarLines: 3, oldLineCount: 3 });
    expect(d.closest?.firstDifference).toMatchObject({ fileLine: 4, oldLine: 2, explanation: "indentation differs: the file has 1 tab, old_string has 4 spaces" });
    expect(d.closest?.excerpt.split("\n")[0]).toBe("1\timport x from 'x';");
  });

  it("explains case and text differences", () => {
    expect(diagnoseNoMatch(file, "\tRETURN SUM;\n}", "x").closest?.firstDifference?.explanation).toBe("letter case differs");
    expect(diagnoseNoMatch(file, "\tlet sum = 1;\n\tfor (const i of items) sum += i.price;", "x").closest?.firstDifference).toMatchObject({ fileLine: 4, explanation: "the text differs" });
    expect(diagnoseNoMatch(file, "\tRETURN SUM;", "x").caseInsensitiveLine).toBe(6);
  });

  it("finds a region by similarity when no line matches exactly", () => {
    const d = diagnoseNoMatch(file, "for (const item of items) sum += item.price;", "x");
    expect(d.closest?.startLine).toBe(5);
  });

  it("spots Read's prefixes, the truncation marker and an already-applied edit", () => {
    expect(diagnoseNoMatch(file, "4\t\tlet sum = 0;\n5\t\tfor", "y").lineNumberPrefixes).toEqual({ matchLine: 4 });
    expect(diagnoseNoMatch(file, "xx … [line truncated at 2000 characters; the full line is 9000 bytes]", "y").truncationMarker).toBe(true);
    expect(diagnoseNoMatch(file, "let total = 0;", "\tfor (const i of items) sum += i.price;").newStringLine).toBe(5);
    expect(diagnoseNoMatch(file, "qq", "x").newStringLine).toBeUndefined();
  });

  it("spots a final line break the file lacks and literal \\n escapes", () => {
    expect(diagnoseNoMatch("a\nlast", "last\n", "x").missingFinalNewline).toBe(true);
    expect(diagnoseNoMatch(file, "\\tlet sum = 0;\\n\\tfor", "x").escapedLine).toBe(4);
    const message = formatNoMatchMessage("/p", diagnoseNoMatch(file, "\\treturn sum;\\n}", "x"));
    expect(message).toContain("with real ones it matches at line 6");
  });

  it("formats a message that ends with the next step", () => {
    const message = formatNoMatchMessage("/p/f.js", diagnoseNoMatch(file, "\tlet sum = 1;", "\tlet sum = 2;"));
    expect(message).toContain("old_string was not found in /p/f.js");
    expect(message).toContain("The closest part of the file is line 4");
    expect(message).toContain('file:       "\\tlet sum = 0;"');
    expect(message).toContain('old_string: "\\tlet sum = 1;"');
    expect(message.trim().split("\n").pop()).toMatch(/^Next step:/);
    expect(formatNoMatchMessage("/p/f.js", diagnoseNoMatch(file, "zzzz qqqq wwww", "x"))).toContain("No part of the file resembles old_string");
  });

  it("formats ambiguity with the count, the lines and both ways out", () => {
    const message = formatAmbiguousMessage("/p/f.js", { kind: "ambiguous", strategy: "trailing_whitespace", count: 12, lines: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] });
    expect(message).toContain("matches 12 places in /p/f.js (ignoring whitespace at line ends), at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …");
    expect(message).toContain("set replace_all to true to change all 12");
  });
});
