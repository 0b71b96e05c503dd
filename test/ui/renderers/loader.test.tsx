import { Fragment } from "react";
import { describe, expect, it } from "vitest";
import { RENDERED_TOOL_NAMES, loadToolRenderer } from "../../../src/ui/renderers.js";
import { genericRenderer, summarizeArguments } from "../../../src/ui/genericRenderer.js";
import { splitMcpName } from "../../../src/ui/mcpRenderer.js";
import { getBuiltinTools } from "../../../src/tools/index.js";
import { draw, expectPartialsDraw, numberedLines, renderOptions, textResult } from "./support.js";

describe("loadToolRenderer", () => {
  it("has a renderer of its own for every built-in tool and every alias", async () => {
    const builtIns = getBuiltinTools();
    for (const tool of builtIns) {
      for (const name of [tool.name, ...(tool.aliases ?? [])]) {
        expect(RENDERED_TOOL_NAMES, name).toContain(name);
        expect(await loadToolRenderer(name), name).not.toBe(genericRenderer);
      }
    }
    expect((await loadToolRenderer("BashOutput")).userFacingName!({})).toBe("Task Output");
    expect((await loadToolRenderer("KillShell")).userFacingName!({})).toBe("Stop Task");
    expect((await loadToolRenderer("Task")).userFacingName!({ subagent_type: "explorer" })).toBe("explorer");
    expect(await loadToolRenderer("Read")).toBe(await loadToolRenderer("Read"));
  });

  it("loads every listed renderer, each drawing an empty (just started) input", async () => {
    for (const name of RENDERED_TOOL_NAMES) {
      const renderer = await loadToolRenderer(name);
      expect(typeof renderer.renderToolUseMessage, name).toBe("function");
      expect(() => draw(<>{renderer.renderToolUseMessage({}, renderOptions())}</>), name).not.toThrow();
      expect(() => draw(<>{renderer.renderToolUseErrorMessage?.("boom", {}, renderOptions())}</>), name).not.toThrow();
    }
  });

  it("gives an unknown tool, and names from Object's prototype, the generic renderer", async () => {
    for (const name of ["NoSuchTool", "constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(await loadToolRenderer(name), name).toBe(genericRenderer);
    }
  });

  it("draws MCP tools by prefix: server, tool and arguments", async () => {
    const renderer = await loadToolRenderer("mcp__github__create_issue");
    expect(renderer).not.toBe(genericRenderer);
    expect(renderer.userFacingName!({})).toBe("github - create_issue (MCP)");
    const input = { repo: "acme/app", title: "Crash on start", labels: ["bug", "p1"] };
    expect(draw(renderer.renderToolUseMessage(input, renderOptions()))).toBe('repo: "acme/app", title: "Crash on start", labels: ["bug","p1"]');
    expectPartialsDraw(renderer, input);
    const result = textResult(numberedLines(12, "row"));
    expect(draw(renderer.renderToolResultMessage!(result, input, renderOptions()))).toContain("… +4 lines (ctrl+o to expand)");
    expect(renderer.isResultTruncated!(result, input)).toBe(true);
    const images = draw(renderer.renderToolResultMessage!(textResult("", { content: [{ type: "text", text: "caption" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } }] }), input, renderOptions()));
    expect(images).toContain("caption");
    expect(images).toContain("[image]");
    expect(draw(renderer.renderToolUseRejectedMessage!(input, { ...renderOptions(), reason: "denied" }))).toContain("Rejected: github - create_issue (MCP)");
    expect(splitMcpName("mcp__my_server__get__items")).toEqual({ server: "my_server", tool: "get__items" });
    expect(splitMcpName("mcp__broken")).toBeUndefined();
  });
});

describe("a renderer never takes the UI down", () => {
  it("draws any input value a model can send (null, a string, an array, a number) through every loaded renderer", async () => {
    const odd: unknown[] = [null, undefined, "rm -rf /", ["a"], 42, { file_path: 7, command: { nested: true }, todos: "x", edits: 5, input: null }];
    for (const name of [...RENDERED_TOOL_NAMES, "mcp__srv__tool", "Unknown"]) {
      const renderer = await loadToolRenderer(name);
      // one frame per renderer holding every case: an Ink render apiece would take seconds
      expect(() => {
        draw(
          <>
            {odd.map((input, i) => (
              <Fragment key={i}>
                {renderer.renderToolUseMessage(input as never, renderOptions())}
                {renderer.renderToolUseRejectedMessage?.(input as never, renderOptions())}
                {renderer.renderToolUseProgressMessage?.([input], input as never, renderOptions())}
                {renderer.renderToolResultMessage?.(textResult("ok", { output: input }), input as never, renderOptions())}
              </Fragment>
            ))}
          </>,
        );
        for (const input of odd) {
          renderer.userFacingName?.(input as never);
          renderer.isResultTruncated?.(textResult("ok", { output: input }), input as never);
        }
      }, name).not.toThrow();
    }
  });

  it("falls back to the generic drawing when a tool's own renderer throws on a malformed output", async () => {
    const read = await loadToolRenderer("Read");
    const broken = textResult("1\thello", { output: { type: "text", file: null } });
    const frame = draw(<>{read.renderToolResultMessage!(broken, { file_path: "a.txt" }, renderOptions())}</>);
    expect(frame).toBe("  ⎿  1    hello");
    const edit = await loadToolRenderer("Edit");
    const badPatch = textResult("updated", { output: { structuredPatch: [{ oldStart: 1, lines: null }, null], occurrences: 1 } });
    expect(() => draw(<>{edit.renderToolResultMessage!(badPatch, { file_path: "a.txt" }, renderOptions())}</>)).not.toThrow();
    expect(edit.isResultTruncated!(badPatch, { file_path: "a.txt" })).toBe(false);
    const grouped = read.renderGroupedToolUse!(
      [
        { toolUseID: "1", input: null as never, progress: null as never, result: broken },
        { toolUseID: "2", input: { file_path: "b" }, progress: [] },
      ],
      renderOptions(),
    );
    expect(() => draw(<>{grouped}</>)).not.toThrow();
  });
});

describe("generic renderer", () => {
  it("summarizes any arguments on one line, cut to the width, and never throws on odd values", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    for (const input of [{}, { a: 1n }, cyclic, { s: "x".repeat(5000) }, { n: null, u: undefined }, { nested: { deep: [1, { two: "three" }] } }]) {
      expect(() => draw(genericRenderer.renderToolUseMessage(input as never, renderOptions()))).not.toThrow();
    }
    const line = summarizeArguments({ s: "x".repeat(5000), t: "y" }, { columns: 80, verbose: false });
    expect(line.length).toBeLessThanOrEqual(60);
    // a long value is cut on its own, so the arguments after it still show
    expect(line).toMatch(/^s: "x+…, t: "y"$/);
    expect(summarizeArguments({ multi: "a\nb" }, { columns: 80, verbose: false })).toBe('multi: "a\\nb"');
  });

  it("shows the result's first lines with the +N note, the error without the model's tags", () => {
    const frame = draw(genericRenderer.renderToolResultMessage!(textResult(numberedLines(10)), {}, renderOptions()));
    expect(frame).toContain("line 6");
    expect(frame).not.toContain("line 7");
    expect(frame).toContain("… +4 lines (ctrl+o to expand)");
    expect(draw(genericRenderer.renderToolResultMessage!(textResult(numberedLines(10)), {}, renderOptions({ expanded: true })))).toContain("line 10");
    expect(draw(genericRenderer.renderToolResultMessage!(textResult(""), {}, renderOptions()))).toContain("(no output)");
    const error = draw(genericRenderer.renderToolUseErrorMessage!("<tool_use_error>InputValidationError: x is missing</tool_use_error>", {}, renderOptions()));
    expect(error).toBe("  ⎿  InputValidationError: x is missing");
  });
});
