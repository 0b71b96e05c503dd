import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../../src/core/buildTool.js";
import { createHookRunner } from "../../src/hooks/index.js";
import { loadedSettings, makeContext, makeTempDir, removeTempDirs, resultText, runOne } from "./helpers.js";

afterEach(removeTempDirs);

// docs/hooks.md, the hooks reference
const docs = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "../../docs/hooks.md"), "utf8");
const blocks = (lang: string) => [...docs.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]);

function fakeTool(name: string, field: "command" | "file_path") {
  const calls: unknown[] = [];
  const tool = buildTool({
    name,
    maxResultSizeChars: 10_000,
    inputSchema: z.strictObject({ [field]: z.string() }),
    description: async () => name,
    prompt: async () => name,
    async call(input) {
      calls.push(input);
      return { data: "done" };
    },
    mapToolResultToToolResultBlockParam: (output, id) => ({ type: "tool_result", tool_use_id: id, content: String(output) }),
  });
  return { tool, calls };
}

describe("the examples in docs/hooks.md work as written", () => {
  it("quick start: rm -rf is blocked with the hook's message, every call is logged", async () => {
    const dir = makeTempDir();
    fs.mkdirSync(path.join(dir, ".toolgate/hooks"), { recursive: true });
    fs.writeFileSync(path.join(dir, ".toolgate/hooks/no-rm-rf.js"), blocks("js")[0]);
    const settings = JSON.parse(blocks("json")[0]);
    const bash = fakeTool("Bash", "command");
    const runner = createHookRunner({ settings: loadedSettings(settings.hooks), projectDir: dir });
    expect(runner.configNotices).toEqual([]);
    const context = makeContext(dir, [bash.tool], { hookRunner: runner });

    const blocked = await runOne(context, "Bash", { command: "cd /tmp && rm -rf build" });
    const allowed = await runOne(context, "Bash", { command: "rm -r -i notes.txt" });

    expect(resultText(blocked)).toBe("A PreToolUse hook blocked this Bash call: rm -rf is not allowed in this project. Delete specific files instead.");
    expect(allowed.outcome).toBe("success");
    expect(bash.calls).toEqual([{ command: "rm -r -i notes.txt" }]);
    const log = fs.readFileSync(path.join(dir, ".toolgate/tool-calls.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(log.map((entry) => entry.tool_input.command)).toEqual(["cd /tmp && rm -rf build", "rm -r -i notes.txt"]);
  });

  it("the lockfile example asks, with its reason", async () => {
    const dir = makeTempDir();
    fs.writeFileSync(path.join(dir, "lock.js"), blocks("js")[1]);
    const edit = fakeTool("Edit", "file_path");
    const runner = createHookRunner({
      settings: loadedSettings({ PreToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: `node "${dir}/lock.js"` }] }] }),
      projectDir: dir,
    });
    const context = makeContext(dir, [edit.tool], { hookRunner: runner });

    const outcome = await runner.preToolUse({ tool: edit.tool, input: { file_path: `${dir}/package-lock.json` }, toolUseID: "t", context });
    const other = await runner.preToolUse({ tool: edit.tool, input: { file_path: `${dir}/index.ts` }, toolUseID: "t", context });

    expect(outcome.permissionDecision).toEqual({ behavior: "ask", reason: "Lockfiles are generated; run the package manager instead.", command: `node "${dir}/lock.js"`, file: "/settings/0.json" });
    expect(other.permissionDecision).toBeUndefined();
  });
});
