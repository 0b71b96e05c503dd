import { describe, expect, it } from "vitest";
import { applyReplacements, findReplacements, lineNumbersOf, type MatchOutcome } from "../../../src/tools/Edit/match.js";
import { normalizeTypography, preserveQuoteStyle } from "../../../src/tools/Edit/quotes.js";

/** Apply the outcome to content, or fail the test with the outcome. */
function edit(content: string, oldString: string, newString: string, replaceAll = false): { result: string; outcome: MatchOutcome } {
  const outcome = findReplacements(content, oldString, newString, replaceAll);
  if (outcome.kind !== "matched") throw new Error(`expected a match, got ${JSON.stringify(outcome)}`);
  return { result: applyReplacements(content, outcome.replacements), outcome };
}

describe("exact matching", () => {
  it("replaces a unique occurrence", () => {
    const { result, outcome } = edit("a\nfoo()\nb\n", "foo()", "bar()");
    expect(result).toBe("a\nbar()\nb\n");
    expect(outcome.kind === "matched" && outcome.strategy).toBe("exact");
  });

  it("refuses two occurrences without replace_all, reporting count and lines", () => {
    const outcome = findReplacements("x = 1\ny = 2\nx = 1\n", "x = 1", "x = 3", false);
    expect(outcome).toEqual({ kind: "ambiguous", strategy: "exact", count: 2, lines: [1, 3] });
  });

  it("replaces every occurrence with replace_all", () => {
    const { result, outcome } = edit("x = 1\ny = 2\nx = 1\n", "x = 1", "x = 3", true);
    expect(result).toBe("x = 3\ny = 2\nx = 3\n");
    expect(outcome.kind === "matched" && outcome.replacements).toHaveLength(2);
  });

  it("counts non-overlapping occurrences", () => {
    const outcome = findReplacements("aaaa", "aa", "b", false);
    expect(outcome.kind === "ambiguous" && outcome.count).toBe(2);
    expect(edit("aaaa", "aa", "b", true).result).toBe("bb");
  });

  it("inserts the replacement literally: $& $1 $$ stay as written", () => {
    expect(edit("price: X\n", "X", "$& and $1 and $$ and $`").result).toBe("price: $& and $1 and $$ and $`\n");
  });

  it("matches inside a line and across lines", () => {
    expect(edit("function f() {\n  return 1;\n}\n", "return 1;\n}", "return 2;\n}").result).toBe("function f() {\n  return 2;\n}\n");
  });

  it("throws on an empty old_string (creation is handled before matching)", () => {
    expect(() => findReplacements("x", "", "y", false)).toThrow(RangeError);
  });

  it("reports not_found when nothing matches", () => {
    expect(findReplacements("alpha\nbeta\n", "gamma", "delta", false)).toEqual({ kind: "not_found" });
  });
});

describe("deleting whole lines", () => {
  it("removes the line break after a deleted whole line", () => {
    expect(edit("a\nremove me\nb\n", "remove me", "").result).toBe("a\nb\n");
  });

  it("removes the line break of several deleted lines", () => {
    expect(edit("a\nx\ny\nb\n", "x\ny", "").result).toBe("a\nb\n");
  });

  it("keeps the line break when the deletion is inside a line", () => {
    expect(edit("keep x = 1\nnext\n", "x = 1", "").result).toBe("keep \nnext\n");
  });

  it("does not double-remove when old_string already ends with a newline", () => {
    expect(edit("a\nx\nb\n", "x\n", "").result).toBe("a\nb\n");
  });

  it("removes the preceding line break for the last line of a file without a final newline", () => {
    expect(edit("a\nlast", "last", "").result).toBe("a");
  });

  it("handles the first line", () => {
    expect(edit("first\nsecond\n", "first", "").result).toBe("second\n");
  });

  it("is not applied when new_string is non-empty", () => {
    expect(edit("a\nx\nb\n", "x", "y").result).toBe("a\ny\nb\n");
  });
});

describe("quote, dash and space normalization", () => {
  it("finds straight quotes in a curly-quoted file and keeps the curly style in the new text", () => {
    const content = "She said \u201Chello\u201D and left.\n";
    const { result, outcome } = edit(content, 'said "hello"', 'said "goodbye"');
    expect(result).toBe("She said \u201Cgoodbye\u201D and left.\n");
    expect(outcome.kind === "matched" && outcome.strategy).toBe("quote_normalized");
  });

  it("keeps apostrophes between letters as \u2019 and curls single quotes by position", () => {
    const content = "It\u2019s the \u2018best\u2019 one.\n";
    const { result } = edit(content, "It's the 'best'", "It's not the 'best' one; don't");
    expect(result).toBe("It\u2019s not the \u2018best\u2019 one; don\u2019t one.\n");
  });

  it("replaces the file's actual characters, not the model's", () => {
    const content = "range 1\u20135 here\n";
    const { outcome } = edit(content, "range 1-5", "range 1-9");
    expect(outcome.kind === "matched" && outcome.replacements[0]).toMatchObject({ start: 0, end: 9 });
  });

  it("matches Unicode spaces (NBSP) as plain spaces", () => {
    expect(edit("a\u00A0b c\n", "a b c", "abc").result).toBe("abc\n");
  });

  it("straightens curly quotes the model typed when the file uses straight ones", () => {
    const { result } = edit('const s = "x";\n', "const s = \u201Cx\u201D;", "const s = \u201Cy\u201D;");
    expect(result).toBe('const s = "y";\n');
  });

  it("refuses two normalized candidates without replace_all", () => {
    const outcome = findReplacements("\u201Ca\u201D\n\u201Ca\u201D\n", '"a"', '"b"', false);
    expect(outcome).toMatchObject({ kind: "ambiguous", strategy: "quote_normalized", count: 2, lines: [1, 2] });
  });

  it("normalization keeps every index (same length)", () => {
    const text = "\u2018\u2019\u201C\u201D\u2013\u2014\u00A0\u3000x";
    expect(normalizeTypography(text)).toBe("''\"\"--  x");
    expect(normalizeTypography(text)).toHaveLength(text.length);
  });

  it("preserveQuoteStyle leaves new text alone when the region has no curly quotes", () => {
    expect(preserveQuoteStyle("a-b", "a\u2013b", 'say "hi"')).toBe('say "hi"');
  });
});

describe("trailing whitespace", () => {
  it("matches lines whose trailing whitespace differs, and keeps it on unchanged lines", () => {
    const content = "one  \ntwo\t\nthree\n";
    const { result, outcome } = edit(content, "one\ntwo\nthree", "one\nTWO\nthree");
    expect(outcome.kind === "matched" && outcome.strategy).toBe("trailing_whitespace");
    expect(result).toBe("one  \nTWO\nthree\n");
  });

  it("matches when old_string has trailing whitespace the file lacks", () => {
    const { result } = edit("let a = 1;\nlet b = 2;\n", "let a = 1;   \nlet b = 2;", "let a = 10;\nlet b = 2;");
    expect(result).toBe("let a = 10;\nlet b = 2;\n");
  });

  it("matches a single line with trailing whitespace only in old_string", () => {
    const { result, outcome } = edit("x();\ny();\n", "x();  ", "z();");
    expect(outcome.kind === "matched" && outcome.strategy).toBe("trailing_whitespace");
    expect(result).toBe("z();\ny();\n");
  });

  it("handles an old_string ending with a newline", () => {
    const { result } = edit("a \nb \nc\n", "a\nb\n", "");
    expect(result).toBe("c\n");
  });

  it("refuses two candidates without replace_all", () => {
    const outcome = findReplacements("a \nb\na\t\nb\n", "a\nb", "c", false);
    expect(outcome).toMatchObject({ kind: "ambiguous", strategy: "trailing_whitespace", count: 2, lines: [1, 3] });
  });

  it("applies to every candidate with replace_all", () => {
    expect(edit("a \nb\na\t\nb\n", "a\nb", "c", true).result).toBe("c\nc\n");
  });

  it("combines with quote normalization", () => {
    const { result, outcome } = edit("say \u201Chi\u201D  \nnext\n", 'say "hi"\nnext', 'say "bye"\nnext');
    expect(outcome.kind === "matched" && outcome.strategy).toBe("trailing_whitespace");
    expect(result).toBe("say \u201Cbye\u201D\nnext\n");
  });
});

describe("uniform indentation shift", () => {
  const file = "class A {\n    method() {\n        if (x) {\n            go();\n        }\n    }\n}\n";

  it("matches a block the model wrote with less indentation and re-indents new_string", () => {
    const { result, outcome } = edit(file, "if (x) {\n    go();\n}", "if (x) {\n    go();\n    stop();\n}");
    expect(outcome).toMatchObject({ kind: "matched", strategy: "indentation_shift", shift: "8 spaces more than old_string" });
    expect(result).toBe("class A {\n    method() {\n        if (x) {\n            go();\n            stop();\n        }\n    }\n}\n");
  });

  it("matches a block the model wrote with more indentation", () => {
    const content = "def f():\n  return 1\n";
    const { result, outcome } = edit(content, "    def f():\n      return 1", "    def f():\n      return 2");
    expect(outcome).toMatchObject({ strategy: "indentation_shift", shift: "4 spaces less than old_string" });
    expect(result).toBe("def f():\n  return 2\n");
  });

  it("handles tab indentation", () => {
    const content = "func() {\n\tif a {\n\t\tb()\n\t}\n}\n";
    const { result } = edit(content, "if a {\n\tb()\n}", "if a {\n\tc()\n}");
    expect(result).toBe("func() {\n\tif a {\n\t\tc()\n\t}\n}\n");
  });

  it("requires blank lines to line up with blank lines", () => {
    const content = "  a\n\n  b\n";
    expect(edit(content, "a\n\nb", "a\nb").result).toBe("  a\n  b\n");
  });

  it("refuses when the shift is not uniform", () => {
    expect(findReplacements("    a\n  b\n", "a\nb", "c", false)).toEqual({ kind: "not_found" });
  });

  it("refuses two candidates without replace_all", () => {
    const content = "  foo()\n  bar()\n\n    foo()\n    bar()\n";
    const outcome = findReplacements(content, "foo()\nbar()", "baz()", false);
    expect(outcome).toMatchObject({ kind: "ambiguous", strategy: "indentation_shift", count: 2, lines: [1, 4] });
  });

  it("replaces all candidates with replace_all, each with its own shift", () => {
    const content = "  foo()\n  bar()\n\n    foo()\n    bar()\n";
    expect(edit(content, "foo()\nbar()", "baz()\nbar()", true).result).toBe("  baz()\n  bar()\n\n    baz()\n    bar()\n");
  });

  it("does not treat tabs and spaces as the same indentation (that is a later, separate tier)", () => {
    expect(findReplacements("\tif a {\n\t\tb()\n\t}\n", "if a {\n    b()\n}", "x", false)).toMatchObject({ kind: "matched", strategy: "indentation_remapped" });
  });

  it("deletes a shifted block with its line break", () => {
    expect(edit("keep\n    a()\n    b()\nend\n", "a()\nb()", "").result).toBe("keep\nend\n");
  });
});

describe("tabs and spaces, runs of whitespace inside lines (whitespace_normalized)", () => {
  it("matches spaces written for the file's tabs, and new_string takes the file's tabs", () => {
    const content = "\tif (a)  {\n\t\treturn 1;\n\t}\n";
    const { result, outcome } = edit(content, "    if (a) {\n        return 1;\n    }", "    if (a) {\n        return 2;\n        done();\n    }");
    expect(outcome).toMatchObject({ strategy: "whitespace_normalized" });
    expect(result).toBe("\tif (a)  {\n\t\treturn 2;\n\t\tdone();\n\t}\n");
  });

  it("matches tabs written for the file's spaces (a tab as 8 columns when 4 does not fit)", () => {
    const content = "        x = 1\n";
    const { result } = edit(content, "\tx = 1", "\tx = 2");
    expect(result).toBe("        x = 2\n");
  });

  it("matches runs of spaces inside a line, even inside a line of the file", () => {
    const { result, outcome } = edit("total = add(a,   b)  # sum\n", "add(a, b)", "add(a, c)");
    expect(outcome).toMatchObject({ strategy: "whitespace_normalized" });
    expect(result).toBe("total = add(a, c)  # sum\n");
  });

  it("an unindented old_string inside an indented line leaves the line's indentation alone", () => {
    const { result, outcome } = edit("\tunique_marker(a,  b)\n", "unique_marker(a, b)", "unique_marker(a, c)");
    expect(outcome).toMatchObject({ strategy: "whitespace_normalized" });
    expect(result).toBe("\tunique_marker(a, c)\n");
  });

  it("refuses two candidates with their count", () => {
    expect(findReplacements("\tx  =  1\n\tx = 1\n", "    x = 1", "    x = 2", false)).toEqual({ kind: "ambiguous", strategy: "whitespace_normalized", count: 2, lines: [1, 2] });
  });
});

describe("escape sequences (escape_sequences)", () => {
  it("reads \\n and \\t written literally as the real characters, converting new_string the same way", () => {
    const { result, outcome } = edit("line1\n\tline2\n", "line1\\n\\tline2", "line1\\n\\tline3");
    expect(outcome).toMatchObject({ strategy: "escape_sequences" });
    expect(result).toBe("line1\n\tline3\n");
  });

  it("and the reverse: real line breaks where the file has \\n inside a string", () => {
    const { result } = edit('print("a\\nb")\n', 'print("a\nb")', 'print("a\nc")');
    expect(result).toBe('print("a\\nc")\n');
  });

  it('escapes quotes where the file has \\"', () => {
    const { result } = edit('x = "{\\"a\\": 1}"\n', '{"a": 1}', '{"a": 2}');
    expect(result).toBe('x = "{\\"a\\": 2}"\n');
  });

  it("refuses two candidates with their count", () => {
    expect(findReplacements("a\tb\nx\na\tb\n", "a\\tb", "c", false)).toEqual({ kind: "ambiguous", strategy: "escape_sequences", count: 2, lines: [1, 3] });
  });
});

describe("uneven indentation (indentation_remapped)", () => {
  const file = "def f():\n    if x:\n        y()\n";

  it("maps each indentation level of old_string to the file's, and re-indents new_string level by level", () => {
    const { result, outcome } = edit(file, "def f():\n  if x:\n    y()", "def f():\n  if x:\n    z()\n      w()");
    expect(outcome).toMatchObject({ strategy: "indentation_remapped" });
    expect(result).toBe("def f():\n    if x:\n        z()\n            w()\n");
  });

  it("leaves new_string alone when it is already indented for the file (no double indent)", () => {
    const { result } = edit(file, "def f():\n  if x:\n    y()", "def f():\n    if x:\n        z()");
    expect(result).toBe("def f():\n    if x:\n        z()\n");
  });

  it("refuses a mapping that does not keep the levels' order", () => {
    expect(findReplacements("a:\n    b\n  c\n", "a:\n  b\n    c", "x", false)).toEqual({ kind: "not_found" });
  });

  it("refuses two candidates with their count", () => {
    const content = "if a:\n    go()\nif a:\n        go()\n";
    expect(findReplacements(content, "if a:\n  go()", "x", false)).toMatchObject({ kind: "ambiguous", strategy: "indentation_remapped", count: 2, lines: [1, 3] });
  });
});

describe("the double-indent fix (indentation_shift)", () => {
  it("does not indent again a new_string already written at the file's indentation", () => {
    const content = "class A:\n    def f(self):\n        return 1\n";
    const { result, outcome } = edit(content, "def f(self):\n    return 1", "    def f(self):\n        return 2");
    expect(outcome).toMatchObject({ strategy: "indentation_shift", shift: "4 spaces more than old_string" });
    expect(result).toBe("class A:\n    def f(self):\n        return 2\n");
  });

  it("still shifts a new_string written like old_string", () => {
    const content = "class A:\n    def f(self):\n        return 1\n";
    expect(edit(content, "def f(self):\n    return 1", "def f(self):\n    return 2").result).toBe("class A:\n    def f(self):\n        return 2\n");
  });
});

describe("strategy order", () => {
  it("prefers an exact match over looser ones", () => {
    const content = "  go();\ngo();\n";
    const { outcome } = edit(content, "go();", "stop();", true);
    expect(outcome).toMatchObject({ strategy: "exact" });
    expect(outcome.kind === "matched" && outcome.replacements).toHaveLength(2);
  });

  it("a whitespace-only old_string never matches loosely", () => {
    expect(findReplacements("a\nb\n", "   ", "x", false)).toEqual({ kind: "not_found" });
  });
});

describe("lineNumbersOf", () => {
  it("maps ascending indices to 1-based lines", () => {
    expect(lineNumbersOf("a\nb\nc", [0, 2, 4, 5])).toEqual([1, 2, 3, 3]);
  });
});
