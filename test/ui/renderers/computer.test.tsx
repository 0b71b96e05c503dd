import { describe, expect, it } from "vitest";
import { renderer as computer } from "../../../src/tools/Computer/ui.js";
import { draw, expectPartialsDraw, renderOptions, textResult } from "./support.js";

const preview = { maxLines: 20, expanded: false } as never;

describe("the computer tool's renderer", () => {
  it("the question shows the place to click, the region to see, and the whole text to type, quoted", () => {
    expect(draw(computer.renderPermissionPreview!({ action: "left_click", coordinate: [12, 34] }, preview))).toContain("left_click at [12, 34]");
    expect(draw(computer.renderPermissionPreview!({ action: "zoom", region: [0, 0, 99, 49] }, preview))).toContain("zoom [0, 0, 99, 49]");
    expect(draw(computer.renderPermissionPreview!({ action: "left_click_drag", start_coordinate: [1, 2], coordinate: [3, 4] }, preview))).toContain("from [1, 2] to [3, 4]");
    const frame = draw(computer.renderPermissionPreview!({ action: "type", text: "sudo rm -rf ~\n" }, preview));
    expect(frame).toContain('text to type: "sudo rm -rf ~\\n"');
    expect(draw(computer.renderPermissionPreview!({ action: "key", text: "ctrl+alt+Delete" }, preview))).toContain("key ctrl+alt+Delete");
  });

  it("draws every partial input, and a result with its screenshot noted", () => {
    expectPartialsDraw(computer, { action: "type", text: "hello", coordinate: [1, 2] });
    const result = textResult("Clicked.", { content: [{ type: "text", text: "left click at [1, 2]." }, { type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } }] });
    const frame = draw(computer.renderToolResultMessage!(result, { action: "left_click" }, renderOptions()));
    expect(frame).toContain("left click at [1, 2].");
    expect(frame).toContain("[screenshot sent to the model]");
  });
});
