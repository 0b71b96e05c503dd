/**
 * Edit dialects: which edit tools a session offers, as a pure choice, and end to end through `toolgate -p`
 * against the scripted model server (what the model is offered, and a dialect tool doing the edit).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from "../../scripts/fake-model.mjs";
import { DIALECT_TOOLS, filterEditTools, readEditDialect, resolveEditDialect } from "../../src/tools/editDialect.js";
import { getBuiltinTools } from "../../src/tools/index.js";
import { validateSettings } from "../../src/settings/schema.js";
import { settingsSections } from "../../src/session/settings.js";

vi.setConfig({ testTimeout: 120_000 });

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const builtCli = path.join(repoRoot, "dist/cli/main.js");
const srcNewest = (dir: string): number =>
  fs.readdirSync(dir, { withFileTypes: true }).reduce((m, e) => Math.max(m, e.isDirectory() ? srcNewest(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).mtimeMs), 0);
const cliArgs = fs.existsSync(builtCli) && fs.statSync(builtCli).mtimeMs >= srcNewest(path.join(repoRoot, "src")) ? [builtCli] : ["--import", "tsx", path.join(repoRoot, "src/cli/main.ts")];

describe("choosing the edit dialect", () => {
  const names = (dialect: "toolgate" | "anthropic" | "openai") => filterEditTools(getBuiltinTools(), dialect).map((t) => t.name);

  it("each dialect offers its own edit tools and keeps every other tool", () => {
    expect(names("toolgate")).toEqual(expect.arrayContaining(["Edit", "MultiEdit", "Write", "Read", "NotebookEdit", "Bash"]));
    expect(names("toolgate")).not.toContain("apply_patch");
    expect(names("toolgate")).not.toContain("str_replace_based_edit_tool");
    expect(names("anthropic")).toEqual(expect.arrayContaining(["str_replace_based_edit_tool", "Write", "Read"]));
    expect(names("anthropic")).not.toContain("Edit");
    expect(names("openai")).toEqual(expect.arrayContaining(["apply_patch", "Write", "Read"]));
    expect(names("openai")).not.toContain("MultiEdit");
    for (const dialect of ["toolgate", "anthropic", "openai"] as const) expect(names(dialect).length).toBe(getBuiltinTools().length - 5 + DIALECT_TOOLS[dialect].length);
  });

  it("auto: apply_patch for OpenAI models trained on it, the Edit family for Claude and any other model", () => {
    expect(resolveEditDialect("auto", "anthropic", "claude-sonnet-4-5")).toBe("toolgate");
    expect(resolveEditDialect("auto", "openai", "gpt-4.1-mini")).toBe("openai");
    expect(resolveEditDialect("auto", "openai", "gpt-5-codex")).toBe("openai");
    expect(resolveEditDialect("auto", "openai", "o4-mini")).toBe("openai");
    expect(resolveEditDialect("auto", "openai", "gpt-4o")).toBe("toolgate");
    expect(resolveEditDialect("auto", "openai", "qwen3:8b")).toBe("toolgate");
    expect(resolveEditDialect("anthropic", "openai", "qwen3:8b")).toBe("anthropic");
    expect(resolveEditDialect("openai", "anthropic", "claude-sonnet-4-5")).toBe("openai");
  });

  it("the editTools setting is checked when settings load; an invalid value falls back to auto", () => {
    expect(validateSettings({ editTools: "openai" }, settingsSections()).ok).toBe(true);
    const bad = validateSettings({ editTools: "vim" }, settingsSections());
    expect(JSON.stringify(bad)).toContain("editTools");
    expect(readEditDialect({ editTools: "anthropic" })).toBe("anthropic");
    expect(readEditDialect({ editTools: 3 })).toBe("auto");
    expect(readEditDialect({})).toBe("auto");
  });
});

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function project(files: Record<string, string>, settings?: object) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-dialect-")));
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  fs.mkdirSync(path.join(dir, ".home"));
  if (settings) {
    fs.mkdirSync(path.join(dir, ".toolgate"));
    fs.writeFileSync(path.join(dir, ".toolgate/settings.json"), JSON.stringify(settings));
  }
  return dir;
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

const toolNamesOf = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name);

describe("edit dialects through toolgate -p", () => {
  it("toolgate tools --json lists both dialect tools with their schemas", async () => {
    const result = await run(["tools", "--json"], process.env);
    const tools = JSON.parse(result.stdout) as Array<{ name: string; input_schema: { properties: Record<string, unknown> } }>;
    expect(Object.keys(tools.find((t) => t.name === "str_replace_based_edit_tool")!.input_schema.properties)).toEqual(
      expect.arrayContaining(["command", "path", "file_text", "old_str", "new_str", "insert_line", "view_range"]),
    );
    expect(Object.keys(tools.find((t) => t.name === "apply_patch")!.input_schema.properties)).toEqual(["input"]);
  });

  it("an OpenAI model trained on apply_patch is offered apply_patch (not Edit) and edits with it", async () => {
    const dir = project({ "app.py": "def greet():\n    print('Hi')\n" });
    const script: FakeModelScript = {
      turns: [
        { content: [{ type: "tool_use", id: "call_read", name: "Read", input: { file_path: "app.py" } }] },
        {
          content: [
            {
              type: "tool_use",
              id: "call_patch",
              name: "apply_patch",
              input: { input: "*** Begin Patch\n*** Update File: app.py\n@@ def greet():\n-    print('Hi')\n+    print('Hello')\n*** Add File: README.md\n+# app\n*** End Patch" },
            },
          ],
        },
        { content: [{ type: "text", text: "patched" }] },
      ],
    };
    const server = await startFakeModelServer({ script });
    servers.push(server);
    const env = { ...process.env, TOOLGATE_HOME: path.join(dir, ".home"), TOOLGATE_PROVIDER: "openai", OPENAI_API_KEY: "test", OPENAI_BASE_URL: `${server.url}/v1`, ANTHROPIC_API_KEY: "", ANTHROPIC_BASE_URL: "" };
    const result = await run(["-p", "greet with Hello", "--cwd", dir, "--model", "gpt-4.1", "--permission-mode", "acceptEdits", "--no-sandbox"], env);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("patched\n");
    const offered = toolNamesOf(server.requests()[0].body);
    expect(offered).toContain("apply_patch");
    expect(offered).toContain("Write");
    expect(offered).not.toContain("Edit");
    expect(offered).not.toContain("str_replace_based_edit_tool");
    expect(JSON.stringify(server.requests()[0].body.messages[0])).toContain("Read, apply_patch, Write, Glob and Grep");
    expect(fs.readFileSync(path.join(dir, "app.py"), "utf8")).toBe("def greet():\n    print('Hello')\n");
    expect(fs.readFileSync(path.join(dir, "README.md"), "utf8")).toBe("# app\n");
  });

  it('settings "editTools": "anthropic" offers the text editor to a Claude model, which views and edits with it', async () => {
    const dir = project({ "notes.txt": "draft\n" }, { editTools: "anthropic" });
    const tool = "str_replace_based_edit_tool";
    const script: FakeModelScript = {
      turns: [
        { content: [{ type: "tool_use", id: "toolu_view", name: tool, input: { command: "view", path: "notes.txt" } }] },
        { content: [{ type: "tool_use", id: "toolu_edit", name: tool, input: { command: "str_replace", path: "notes.txt", old_str: "draft", new_str: "final" } }] },
        { content: [{ type: "text", text: "edited" }] },
      ],
    };
    const server = await startFakeModelServer({ script });
    servers.push(server);
    const env = { ...process.env, TOOLGATE_HOME: path.join(dir, ".home"), ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url, OPENAI_API_KEY: "", OPENAI_BASE_URL: "" };
    const result = await run(["-p", "finalize the notes", "--cwd", dir, "--permission-mode", "acceptEdits", "--no-sandbox"], env);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("edited\n");
    const offered = toolNamesOf(server.requests()[0].body);
    expect(offered).toContain(tool);
    expect(offered).not.toContain("Edit");
    expect(offered).not.toContain("apply_patch");
    // sent as Anthropic's own tool type: the API gives the model the schema it was trained on
    expect(server.requests()[0].body.tools.find((t: { name: string }) => t.name === tool)).toMatchObject({ type: "text_editor_20250728" });
    expect(fs.readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("final\n");
  });
});
