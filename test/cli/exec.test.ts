import fs from "node:fs";
import path from "node:path";
import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../../src/core/buildTool.js";
import { runExec } from "../../src/cli/exec.js";
import { parseExecLine } from "../../src/cli/execProtocol.js";
import { approveAll, tempDir, testContext } from "../helpers.js";

/** A tool with session state (a counter) and a file write with a checkpoint, to see that lines share a session. */
function counterTool() {
  let count = 0;
  return buildTool({
    name: "Count",
    maxResultSizeChars: 10_000,
    inputSchema: z.strictObject({ file: z.string().optional() }),
    description: () => "",
    prompt: () => "",
    async call({ file }, context, _c, parent) {
      count++;
      if (file) {
        context.fileHistory.checkpoint(file, parent.id ?? "none");
        fs.writeFileSync(file, `count ${count}`);
      }
      return { data: count };
    },
    mapToolResultToToolResultBlockParam: (n: number, id) => ({ type: "tool_result", tool_use_id: id, content: `count=${n}` }),
  });
}

async function exec(lines: string[], tools = [counterTool()], cwd = tempDir()) {
  const context = testContext({ tools, cwd });
  const output = new PassThrough();
  const chunks: string[] = [];
  output.on("data", (c) => chunks.push(String(c)));
  const summary = await runExec(
    { context, canUseTool: approveAll },
    { input: Readable.from(lines.map((l) => `${l}\n`)), output, diagnostics: new PassThrough() },
  );
  const out = chunks.join("").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  return { out, summary, context };
}

describe("toolgate exec protocol", () => {
  it("prints one line per input line, errors for malformed ones, and keeps going", async () => {
    const inputs = [
      "not json",
      "[1,2]",
      "42",
      '"text"',
      "null",
      '{"foo":1}',
      '{"role":"user","content":[]}',
      '{"role":"assistant","content":"hi"}',
      '{"role":"assistant","content":[{"type":"tool_use","name":"Count","input":{}}]}',
      '{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"Count","input":{}},{"type":"tool_use","id":"a","name":"Count","input":{}}]}',
      '{"type":"tool_use","id":"x"}',
      '{"type":"tool_use","id":"ok","name":"Count","input":{}}',
      "",
      '{"type":"rewind"}',
      '{"role":"assistant","content":[{"type":"text","text":"thinking"},{"type":"tool_use","id":"b","name":"Count","input":{}},{"type":"tool_use","id":"c","name":"Nope","input":{}}]}',
    ];
    const { out, summary } = await exec(inputs);
    expect(out).toHaveLength(inputs.length - 1);
    const errors = out.filter((o) => o.type === "error");
    expect(errors.map((e) => e.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14]);
    expect(errors[0].error).toMatch(/^not valid JSON/);
    expect(errors[8].error).toContain('no string "id"');
    expect(errors[9].error).toContain("repeats tool_use id");
    expect(errors[10].error).toContain('no string "name"');
    expect(out[11]).toEqual({ role: "user", content: [{ type: "tool_result", tool_use_id: "ok", content: "count=1" }] });
    expect(out[13].content).toEqual([
      { type: "tool_result", tool_use_id: "b", content: "count=2" },
      { type: "tool_result", tool_use_id: "c", content: "<tool_use_error>Error: No such tool available: Nope</tool_use_error>", is_error: true },
    ]);
    expect(summary).toEqual({ lines: 14, malformed: 12, toolUses: 3 });
  });

  it("answers every tool_use even when the input is any JSON value", async () => {
    const weird = [null, 1, "s", [], true, { nested: { deep: [1] } }];
    const { out } = await exec(weird.map((input, i) => JSON.stringify({ type: "tool_use", id: `w${i}`, name: "Count", input })));
    expect(out).toHaveLength(weird.length);
    for (const [i, line] of out.entries()) {
      expect(line.content).toHaveLength(1);
      expect(line.content[0]).toMatchObject({ tool_use_id: `w${i}`, is_error: true });
      expect(line.content[0].content).toContain("InputValidationError");
    }
  });

  it("rewinds the files changed since an assistant message", async () => {
    const cwd = tempDir();
    const file = path.join(cwd, "f.txt");
    fs.writeFileSync(file, "original");
    const { out } = await exec(
      [
        JSON.stringify({ role: "assistant", id: "m1", content: [{ type: "tool_use", id: "t1", name: "Count", input: { file } }] }),
        JSON.stringify({ type: "tool_use", id: "t2", name: "Count", input: { file } }),
        JSON.stringify({ type: "rewind", message_id: "m1" }),
        JSON.stringify({ type: "rewind", message_id: "m1" }),
      ],
      [counterTool()],
      cwd,
    );
    expect(out[2]).toEqual({ type: "rewind", message_id: "m1", restored: [file], deleted: [], errors: [] });
    expect(fs.readFileSync(file, "utf8")).toBe("original");
    expect(out[3]).toMatchObject({ type: "error", line: 4 });
    expect(out[3].error).toContain("No file changes were recorded for message m1");
  });

  it("keys a message without an id by its first tool_use id", () => {
    const request = parseExecLine('{"role":"assistant","content":[{"type":"tool_use","id":"first","name":"X","input":{}}]}');
    expect(request).toMatchObject({ kind: "tools", message: { id: "first" } });
  });
});
