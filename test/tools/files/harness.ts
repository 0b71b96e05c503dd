import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { runToolUse, type ToolResultUpdate } from "../../../src/core/pipeline/index.js";
import type { CanUseToolFn, ToolUseContext } from "../../../src/core/Tool.js";
import type { CreateToolUseContextOptions } from "../../../src/core/context.js";
import type { ToolResultBlockParam } from "../../../src/core/messages.js";
import { ReadTool } from "../../../src/tools/Read/index.js";
import { EditTool } from "../../../src/tools/Edit/index.js";
import { MultiEditTool } from "../../../src/tools/MultiEdit/index.js";
import { WriteTool } from "../../../src/tools/Write/index.js";
import { NotebookEditTool } from "../../../src/tools/NotebookEdit/index.js";
import { approveAll, assistantMessage, tempDir, testContext } from "../../helpers.js";

export const FILE_TOOLS = [ReadTool, EditTool, MultiEditTool, WriteTool, NotebookEditTool];

export function resultText(block: ToolResultBlockParam): string {
  return typeof block.content === "string" ? block.content : block.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
}

export interface Session {
  dir: string;
  ctx: ToolUseContext;
  /** Absolute path of a file in the session's directory. */
  file(name: string): string;
  write(name: string, content: string | Buffer): string;
  read(name: string): string;
  /** Run one tool call through the whole pipeline (runToolUse) and return its single result. */
  run(name: string, input: unknown, messageId?: string): Promise<ToolResultUpdate & { text: string }>;
}

let counter = 0;

export function session(options: Partial<CreateToolUseContextOptions> & { canUseTool?: CanUseToolFn } = {}): Session {
  const dir = options.cwd ?? tempDir("toolgate-files-");
  const ctx = testContext({ tools: FILE_TOOLS, cwd: dir, ...options });
  const canUseTool = options.canUseTool ?? approveAll;
  return {
    dir,
    ctx,
    file: (name) => path.join(dir, name),
    write(name, content) {
      const p = path.join(dir, name);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, content);
      return p;
    },
    read: (name) => fs.readFileSync(path.join(dir, name), "utf8"),
    async run(name, input, messageId = "msg_1") {
      const results: ToolResultUpdate[] = [];
      const use = { type: "tool_use" as const, id: `toolu_${++counter}`, name, input };
      for await (const update of runToolUse(use, assistantMessage(messageId), canUseTool, ctx)) {
        if (update.type === "result") results.push(update);
      }
      if (results.length !== 1) throw new Error(`expected one result, got ${results.length}`);
      return { ...results[0], text: resultText(results[0].block) };
    },
  };
}

/** A session in which `name` exists with `content` and has been read. */
export async function sessionAfterRead(name: string, content: string | Buffer, options: Parameters<typeof session>[0] = {}): Promise<Session> {
  const s = session(options);
  s.write(name, content);
  expect((await s.run("Read", { file_path: name })).outcome).toBe("success");
  return s;
}

/** Set a file's mtime to a moment in the past (or future), leaving its content alone. */
export function touch(filePath: string, offsetMs = 5_000): void {
  const when = new Date(Date.now() + offsetMs);
  fs.utimesSync(filePath, when, when);
}
