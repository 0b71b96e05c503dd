/**
 * One measured task of bench/files, in its own process so its peak RSS is its own:
 *   baseline                    load the tools, do nothing (the RSS floor of a worker)
 *   read FILE WINDOWS           Read each OFFSET:LIMIT window (comma-separated) in turn, in one session
 *   edit FILE RUNS              Read once, then RUNS Edits (MARKER_k → MARKER_k+1) through runToolUse
 *   plain FILE RUNS             RUNS × readFileSync + replace + writeFileSync
 * Prints one JSON line: {ms: [per run], rssKB, ...}.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createToolUseContext } from "../../src/core/context.js";
import { runToolUse } from "../../src/core/pipeline/index.js";
import type { CanUseToolFn } from "../../src/core/Tool.js";
import { ReadTool } from "../../src/tools/Read/index.js";
import { EditTool } from "../../src/tools/Edit/index.js";

const [task, file, arg] = process.argv.slice(2);
const allow: CanUseToolFn = async () => ({ behavior: "allow" });
const home = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-home-"));
const context = () => createToolUseContext({ tools: [ReadTool, EditTool], cwd: path.dirname(file ?? home), home });

async function run(ctx: ReturnType<typeof context>, name: string, input: unknown): Promise<string> {
  for await (const update of runToolUse({ type: "tool_use", id: `t${Math.random()}`, name, input }, { role: "assistant", id: "bench", content: [] }, allow, ctx)) {
    if (update.type === "result") {
      const text = typeof update.block.content === "string" ? update.block.content : JSON.stringify(update.block.content);
      if (update.block.is_error) throw new Error(text.slice(0, 500));
      return text;
    }
  }
  throw new Error("no result");
}

const report = (extra: object) => console.log(JSON.stringify({ rssKB: process.resourceUsage().maxRSS, ...extra }));

try {
  if (task === "baseline") {
    report({ ms: [] });
  } else if (task === "read") {
    // Every offset is read in turn in one session: the first pass builds the line index the later ones use.
    const ctx = context();
    const ms: number[] = [];
    const notes: string[] = [];
    for (const window of arg.split(",")) {
      const [offset, limit] = window.split(":").map(Number);
      const start = performance.now();
      const text = await run(ctx, "Read", { file_path: file, offset, limit });
      ms.push(performance.now() - start);
      notes.push(text.slice(text.lastIndexOf("\n[")).trim());
    }
    report({ ms, note: notes.join(" ") });
  } else if (task === "edit") {
    const ctx = context();
    await run(ctx, "Read", { file_path: file, limit: 10 });
    const ms: number[] = [];
    for (let k = 0; k < Number(arg); k++) {
      const start = performance.now();
      await run(ctx, "Edit", { file_path: file, old_string: `MARKER_${k}\n`, new_string: `MARKER_${k + 1}\n` });
      ms.push(performance.now() - start);
    }
    report({ ms });
  } else if (task === "plain") {
    const ms: number[] = [];
    for (let k = 0; k < Number(arg); k++) {
      const start = performance.now();
      const text = fs.readFileSync(file, "utf8");
      const at = text.indexOf(`MARKER_${k}\n`);
      fs.writeFileSync(file, text.slice(0, at) + `MARKER_${k + 1}\n` + text.slice(at + `MARKER_${k}\n`.length));
      ms.push(performance.now() - start);
    }
    report({ ms });
  } else {
    throw new Error(`unknown task ${task}`);
  }
} finally {
  fs.rmSync(home, { recursive: true, force: true });
}
