/**
 * `--plugin-dir`: a real plugin folder loaded by the real CLI against the scripted model server. Each part is
 * observed working: the namespaced command is expanded, the skill and the agent are offered and used, the hook
 * blocks Bash, the MCP server's tool answers; the init line names the plugin and its parts.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { agentEnv, project, runCli, serveModel } from "../cli/agentRun.js";
import { tempDir } from "../helpers.js";
import { SHOUT_TOOL, write, writePlugin } from "./fixtures.js";

vi.setConfig({ testTimeout: 120_000 });

const text = (value: unknown) => JSON.stringify(value);

describe("toolgate -p --plugin-dir", () => {
  it("uses the plugin's command, skill, agent, hook and MCP server, and lists them in the init line", async () => {
    const dir = project({ "notes.txt": "hello\n" });
    const plugin = writePlugin(path.join(tempDir("toolgate-plugin-"), "kit"));
    const server = await serveModel({
      turns: [
        {
          content: [
            { type: "tool_use", id: "toolu_skill", name: "Skill", input: { skill: "kit:style" } },
            { type: "tool_use", id: "toolu_shout", name: SHOUT_TOOL(), input: { text: "quiet words" } },
            { type: "tool_use", id: "toolu_bash", name: "Bash", input: { command: "echo must-not-run" } },
          ],
        },
        { content: [{ type: "tool_use", id: "toolu_agent", name: "Agent", input: { description: "review", prompt: "Review notes.txt", subagent_type: "kit:reviewer" } }] },
        { content: [{ type: "text", text: "REVIEWED" }] },
        { content: [{ type: "text", text: "Done." }] },
      ],
    });
    const run = await runCli(
      ["-p", "/kit:hello Ada", "--cwd", dir, "--plugin-dir", plugin, "--output-format", "stream-json", "--verbose", "--no-sandbox", "--allowedTools", SHOUT_TOOL()],
      agentEnv(server, dir),
    );
    expect(run.stderr).not.toContain("warning: plugin");
    const init = run.lines.find((l) => l.type === "system" && l.subtype === "init")!;
    expect(init.plugins).toEqual([{ name: "kit", path: plugin }]);
    expect(init.slash_commands).toContain("kit:hello");
    expect(init.agents).toContain("kit:reviewer");
    expect(init.skills).toContain("kit:style");
    expect(init.mcp_servers).toEqual([{ name: "plugin:kit:echo", status: "connected" }]);
    expect(init.tools).toContain(SHOUT_TOOL());
    expect(run.lines.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "Done." });

    const requests = server.requests();
    expect(requests).toHaveLength(4);
    // The command: `/kit:hello Ada` became its prompt; the skill and the agent type are offered.
    const first = text(requests[0].body);
    expect(first).toContain("Say hello to Ada in the kit style.");
    expect(first).toContain("kit:style: The kit's house style.");
    expect(first).toContain("kit:reviewer");
    // The skill's body, the server's answer (started with ${CLAUDE_PLUGIN_ROOT} expanded), the hook's block.
    const second = text(requests[1].body);
    expect(second).toContain("Write in the kit house style, short sentences.");
    expect(second).toContain(`QUIET WORDS from ${plugin}`);
    expect(second).toContain("kit guard blocked Bash");
    expect(fs.readFileSync(path.join(plugin, "hook-ran.txt"), "utf8")).toBe(plugin);
    // The subagent ran with the plugin agent's prompt.
    expect(text(requests[2].body)).toContain("You are the kit reviewer. Answer with REVIEWED.");
    expect(text(requests[3].body)).toContain("REVIEWED");
  });

  it("--plugin-dir-no-mcp loads the plugin without its servers; /hello also answers when no other command has the name", async () => {
    const dir = project();
    const plugin = writePlugin(path.join(tempDir("toolgate-plugin-"), "kit"));
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
    const run = await runCli(["-p", "/hello Bob", "--cwd", dir, "--plugin-dir-no-mcp", plugin, "--output-format", "stream-json", "--no-sandbox"], agentEnv(server, dir));
    const init = run.lines.find((l) => l.type === "system" && l.subtype === "init")!;
    expect(init.plugins).toEqual([{ name: "kit", path: plugin }]);
    expect(init.mcp_servers).toEqual([]);
    expect(text(server.requests()[0].body)).toContain("Say hello to Bob in the kit style.");
  });

  it("a plugin's skill also runs as /kit:style with its arguments, never as the bare /style", async () => {
    const dir = project();
    const plugin = writePlugin(path.join(tempDir("toolgate-plugin-"), "kit"));
    write(path.join(plugin, "skills/style/SKILL.md"), "---\nname: style\ndescription: The kit's house style.\n---\nRewrite $ARGUMENTS in the kit house style.\n");
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] }] });
    const run = await runCli(["-p", "/kit:style the README", "--cwd", dir, "--plugin-dir-no-mcp", plugin, "--output-format", "stream-json", "--no-sandbox"], agentEnv(server, dir));
    expect(run.lines.find((l) => l.subtype === "init")!.slash_commands).toContain("kit:style");
    expect(text(server.requests()[0].body)).toContain("Rewrite the README in the kit house style.");
    await runCli(["-p", "/style the README", "--cwd", dir, "--plugin-dir-no-mcp", plugin, "--no-sandbox"], agentEnv(server, dir));
    expect(text(server.requests()[1].body)).toContain("/style the README");
  });

  it("a bad manifest is a warning and the run goes on without the plugin", async () => {
    const dir = project();
    const broken = path.join(tempDir("toolgate-plugin-"), "broken");
    write(path.join(broken, ".claude-plugin/plugin.json"), '{"name": "broken", "version": 1');
    const noManifest = tempDir("toolgate-plugin-none-");
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "still here" }] }] });
    const run = await runCli(["-p", "hi", "--cwd", dir, "--plugin-dir", broken, "--plugin-dir", noManifest, "--no-sandbox"], agentEnv(server, dir));
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("still here\n");
    expect(run.stderr).toContain(`[toolgate] warning: --plugin-dir ${broken}: ${path.join(broken, ".claude-plugin/plugin.json")} is not valid JSON`);
    expect(run.stderr).toContain(`[toolgate] warning: --plugin-dir ${noManifest}: no .claude-plugin/plugin.json in ${noManifest}; the plugin was skipped`);
  });

  it("a missing --plugin-dir folder is a usage error", async () => {
    const dir = project();
    const run = await runCli(["-p", "hi", "--cwd", dir, "--plugin-dir", path.join(dir, "nope")], agentEnv(undefined, dir));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--plugin-dir ${path.join(dir, "nope")}: no such directory`);
  });
});
