/** The REPL's terminal renderer: the code as it streams in, the whole cell in the permission dialog, the result. */
import { describe, expect, it } from "vitest";
import { renderer } from "../../../src/tools/REPL/ui.js";
import { draw, expectPartialsDraw, renderOptions, textResult } from "../../ui/renderers/support.js";

describe("REPL renderer", () => {
  it("draws partial input and puts a multi-line cell on one line", () => {
    const frames = expectPartialsDraw(renderer, { code: "import math\nmath.pi * 2" });
    expect(frames.at(-1)).toBe("import math ⏎ math.pi * 2");
  });

  it("shows the code whole in the permission dialog, cutting only a very long cell and saying so", () => {
    const short = draw(renderer.renderPermissionPreview!({ code: "x = 1\nprint(x)" }, { ...renderOptions(), maxLines: 5 }));
    expect(short).toContain("x = 1\nprint(x)");
    expect(short).toContain("Python, in the session's persistent interpreter");
    const long = Array.from({ length: 30 }, (_, i) => `line_${i} = ${i}`).join("\n");
    const cut = draw(renderer.renderPermissionPreview!({ code: long }, { ...renderOptions(), maxLines: 5 }));
    expect(cut).toContain("line_19 = 19");
    expect(cut).not.toContain("line_20 = 20");
    expect(cut).toContain("+10 more lines of this code");
  });

  it("shows the result text", () => {
    expect(draw(renderer.renderToolResultMessage!(textResult("stdout:\nhi\nvalue: 42"), { code: "x" }, renderOptions()))).toContain("value: 42");
  });
});
