import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";
import { connectToServe } from "./mcpServe.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cliEntry = path.join(repoRoot, "src/cli/main.ts");
const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;

/** The real CLI, from source, in its own process, with a private data home. */
function toolgate(args: string[], options: { input?: string; cwd?: string; home?: string } = {}) {
  const home = options.home ?? tempDir("tg-cli-home-");
  const result = spawnSync(process.execPath, ["--import", "tsx", cliEntry, ...args], {
    cwd: options.cwd ?? repoRoot,
    input: options.input ?? "",
    encoding: "utf8",
    env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "no-managed.json") },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const lines = (text: string) => text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
const use = (id: string, name: string, input: unknown) => JSON.stringify({ type: "tool_use", id, name, input });

describe("toolgate CLI", () => {
  it("prints its version and help", () => {
    expect(toolgate(["--version"]).stdout.trim()).toBe(version);
    const help = toolgate(["--help"]).stdout;
    for (const command of ["exec", "tools", "permissions", "mcp"]) expect(help).toContain(command);
  });

  it("exec runs real tools in one session: Read, then Edit without re-reading, a denied command, a bad line", () => {
    const cwd = tempDir("tg-cli-cwd-");
    fs.writeFileSync(path.join(cwd, "app.txt"), "hello world\n");
    const input = [
      use("r1", "Read", { file_path: "app.txt" }),
      JSON.stringify({
        role: "assistant",
        id: "msg_edit",
        content: [
          { type: "text", text: "editing" },
          { type: "tool_use", id: "e1", name: "Edit", input: { file_path: "app.txt", old_string: "world", new_string: "there" } },
        ],
      }),
      use("e2", "Edit", { file_path: "app.txt", old_string: "there", new_string: "again" }),
      use("b1", "Bash", { command: "rm -rf build" }),
      "{not json",
      use("b2", "Bash", { command: "cat app.txt" }),
    ].join("\n");
    const { status, stdout } = toolgate(["exec", "--cwd", cwd, "--permission-mode", "acceptEdits", "--disallowedTools", "Bash(rm:*)"], { input });
    expect(status).toBe(0);
    const out = lines(stdout);
    expect(out).toHaveLength(6);
    expect(out[0].content[0].content).toContain("1\thello world");
    expect(out[1].content[0].is_error).toBeUndefined();
    expect(out[2].content[0].is_error).toBeUndefined();
    expect(fs.readFileSync(path.join(cwd, "app.txt"), "utf8")).toBe("hello again\n");
    expect(out[3].content[0]).toMatchObject({ tool_use_id: "b1", is_error: true });
    expect(out[3].content[0].content).toContain("Bash(rm:*)");
    expect(out[4]).toMatchObject({ type: "error", line: 5 });
    expect(out[5].content[0].content).toContain("hello again");
  });

  it("exec denies what would ask, saying which rule would allow it; rewinds on request", () => {
    const cwd = tempDir("tg-cli-cwd-");
    fs.writeFileSync(path.join(cwd, "a.txt"), "one\n");
    const input = [
      use("w1", "Write", { file_path: "new.txt", content: "fresh\n" }),
      JSON.stringify({ role: "assistant", id: "m1", content: [{ type: "tool_use", id: "r1", name: "Read", input: { file_path: "a.txt" } }] }),
      JSON.stringify({ role: "assistant", id: "m2", content: [{ type: "tool_use", id: "e1", name: "Edit", input: { file_path: "a.txt", old_string: "one", new_string: "two" } }] }),
      JSON.stringify({ type: "rewind", message_id: "m2" }),
    ].join("\n");
    const asks = lines(toolgate(["exec", "--cwd", cwd], { input: input.split("\n")[0] }).stdout);
    expect(asks[0].content[0].is_error).toBe(true);
    expect(asks[0].content[0].content).toMatch(/non-interactive/);
    expect(asks[0].content[0].content).toMatch(/--allowedTools|acceptEdits/);
    expect(fs.existsSync(path.join(cwd, "new.txt"))).toBe(false);

    const out = lines(toolgate(["exec", "--cwd", cwd, "--allowedTools", "Edit", "--allowedTools", "Write"], { input }).stdout);
    expect(fs.readFileSync(path.join(cwd, "new.txt"), "utf8")).toBe("fresh\n");
    expect(out[2].content[0].is_error).toBeUndefined();
    expect(out[3]).toMatchObject({ type: "rewind", message_id: "m2", deleted: [] });
    expect(out[3].restored).toEqual([path.join(cwd, "a.txt")]);
    expect(fs.readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("one\n");
  });

  it("exec refuses to start without a --settings file it cannot use", () => {
    const cwd = tempDir("tg-cli-cwd-");
    fs.writeFileSync(path.join(cwd, "broken.json"), '{"permissions": {"deny": ["Bash"]');
    const { status, stderr, stdout } = toolgate(["exec", "--cwd", cwd, "--settings", "broken.json"], { input: use("b", "Bash", { command: "ls" }) });
    expect(status).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("broken.json");
    expect(stderr).toContain("refusing to run tools");
  });

  it("tools --json lists every built-in with its input schema", () => {
    const tools = JSON.parse(toolgate(["tools", "--json"]).stdout) as Array<{ name: string; input_schema: { type: string }; aliases: string[]; deferred: boolean }>;
    const names = tools.map((t) => t.name);
    for (const name of ["Bash", "Glob", "Grep", "Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "TaskOutput", "TaskStop", "ToolSearch", "WebFetch", "WebSearch"]) {
      expect(names).toContain(name);
    }
    expect(tools.every((t) => t.input_schema.type === "object")).toBe(true);
    expect(tools.find((t) => t.name === "TaskOutput")?.aliases).toEqual(["BashOutput"]);
    expect(tools.find((t) => t.name === "NotebookEdit")?.deferred).toBe(true);
  });

  it("permissions explain names the part and the rule that decided", () => {
    const cwd = tempDir("tg-cli-cwd-");
    const { stdout, status } = toolgate(["permissions", "explain", "Bash", "git status && rm -rf dist", "--cwd", cwd, "--disallowedTools", "Bash(rm:*)"]);
    expect(status).toBe(0);
    expect(stdout).toContain("decision: deny");
    expect(stdout).toContain("rm -rf dist");
    expect(stdout).toContain('"Bash(rm:*)"');
  });

  it("mcp serve lists Diagnostics when language servers are configured (and not without)", async () => {
    const listed = async (settings?: object) => {
      const cwd = tempDir("tg-cli-cwd-");
      const home = tempDir("tg-cli-home-");
      if (settings) {
        fs.mkdirSync(path.join(cwd, ".toolgate"));
        fs.writeFileSync(path.join(cwd, ".toolgate/settings.json"), JSON.stringify(settings));
      }
      const client = await connectToServe(cwd, home, ["--trust"]);
      try {
        return (await client.listTools()).tools.map((t) => t.name);
      } finally {
        await client.close();
      }
    };
    expect(await listed({ lsp: { typescript: { command: ["typescript-language-server", "--stdio"], extensions: [".ts"] } } })).toContain("Diagnostics");
    expect(await listed()).not.toContain("Diagnostics");
  });

  it("mcp serve exposes the built-in tools over stdio; Read then Edit works in one connection", async () => {
    const cwd = tempDir("tg-cli-cwd-");
    const home = tempDir("tg-cli-home-");
    const file = path.join(cwd, "notes.md");
    fs.writeFileSync(file, "# Title\nold line\n");
    const client = await connectToServe(cwd, home, ["--permission-mode", "acceptEdits"]);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["Read", "Edit", "Bash", "Grep"]));
      expect(names).toEqual(expect.arrayContaining(["WebFetch", "Skill"]));
      // nothing a client cannot use: no deferred-tool search, no agent task list, no subagents without a model,
      // no WebSearch without a configured backend
      for (const absent of ["ToolSearch", "TodoWrite", "ExitPlanMode", "AskUserQuestion", "Agent", "Task", "WebSearch"]) expect(names).not.toContain(absent);
      expect(tools.find((t) => t.name === "Read")?.annotations?.readOnlyHint).toBe(true);
      const read = await client.callTool({ name: "Read", arguments: { file_path: file } });
      expect(read.isError).toBeFalsy();
      const edit = await client.callTool({ name: "Edit", arguments: { file_path: file, old_string: "old line", new_string: "new line" } });
      expect(edit.isError).toBeFalsy();
      expect(fs.readFileSync(file, "utf8")).toBe("# Title\nnew line\n");
      const bad = await client.callTool({ name: "Edit", arguments: { file_path: file, old_string: 3 } });
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
