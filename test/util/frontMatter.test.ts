import { describe, expect, it } from "vitest";
import { parseFrontMatter } from "../../src/util/frontMatter.js";

describe("parseFrontMatter", () => {
  it("splits the YAML block from the body", () => {
    const doc = parseFrontMatter("---\nname: reviewer\ntools: [Read, Grep]\ndescription: \"Reviews: diffs\"\n---\nYou review code.\n");
    expect(doc.attributes).toEqual({ name: "reviewer", tools: ["Read", "Grep"], description: "Reviews: diffs" });
    expect(doc.body).toBe("You review code.\n");
  });

  it("takes CRLF files and a BOM, and a file without front matter is all body", () => {
    expect(parseFrontMatter("\uFEFF---\r\nname: x\r\n---\r\nbody\r\n")).toEqual({ attributes: { name: "x" }, body: "body\r\n" });
    expect(parseFrontMatter("# just text\n---\n")).toEqual({ attributes: {}, body: "# just text\n---\n" });
    expect(parseFrontMatter("---\n---\nbody")).toEqual({ attributes: {}, body: "body" });
  });

  it("refuses an unclosed block or one that is not a mapping, instead of guessing", () => {
    expect(() => parseFrontMatter("---\nname: x\nbody")).toThrow(/no closing ---/);
    expect(() => parseFrontMatter("---\n- a\n- b\n---\nbody")).toThrow(/not a set of `key: value` lines/);
    expect(() => parseFrontMatter("---\nname: [unclosed\n---\n")).toThrow();
  });
});
