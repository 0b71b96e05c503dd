/**
 * Plugins and folder trust, through the real CLI: a cloned project's files must not turn a plugin on, nor run
 * the hooks and servers of a plugin folder it ships, until the person trusts the folder.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { agentEnv, project, runCli, serveModel } from "../cli/agentRun.js";
import { tempDir } from "../helpers.js";
import type { FakeModelTurn } from "../../scripts/fake-model.mjs";
import { SHOUT_TOOL, write, writePlugin } from "./fixtures.js";

vi.setConfig({ testTimeout: 120_000 });

const initOf = (run: Awaited<ReturnType<typeof runCli>>) => run.lines.find((l) => l.type === "system" && l.subtype === "init")!;

/** A local marketplace `local` with `kit`, installed into the project's data home, then set to `enabled`. */
async function installKit(dir: string, enabled: boolean): Promise<string> {
  const env = agentEnv(undefined, dir);
  const market = tempDir("toolgate-market-dir-");
  writePlugin(path.join(market, "kit"));
  write(path.join(market, ".claude-plugin/marketplace.json"), JSON.stringify({ name: "local", plugins: [{ name: "kit", source: "./kit" }] }));
  expect((await runCli(["plugin", "marketplace", "add", market], env)).code).toBe(0);
  expect((await runCli(["plugin", "install", "kit@local"], env)).code).toBe(0);
  if (!enabled) expect((await runCli(["plugin", "disable", "kit@local"], env)).code).toBe(0);
  return path.join(env.TOOLGATE_HOME!, "plugins/cache/local/kit");
}

describe("plugins and folder trust", () => {
  it("an untrusted project's settings cannot turn on a plugin the user disabled; --trust can", async () => {
    const dir = project();
    const copy = await installKit(dir, false);
    write(path.join(dir, ".toolgate/settings.json"), JSON.stringify({ enabledPlugins: { "kit@local": true } }));
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] }] });
    const untrusted = await runCli(["-p", "hi", "--cwd", dir, "--output-format", "stream-json", "--no-sandbox"], agentEnv(server, dir));
    expect(initOf(untrusted).plugins).toEqual([]);
    expect(untrusted.stderr).toContain("is not a trusted folder, so what its own files turn on was ignored: enabledPlugins (1)");
    const trusted = await runCli(["-p", "hi", "--cwd", dir, "--output-format", "stream-json", "--no-sandbox", "--trust"], agentEnv(server, dir));
    expect(initOf(trusted).plugins).toEqual([{ name: "kit", path: copy }]);
  });

  it("an untrusted project may turn a plugin off (that only narrows)", async () => {
    const dir = project();
    await installKit(dir, true);
    write(path.join(dir, ".toolgate/settings.json"), JSON.stringify({ enabledPlugins: { "kit@local": false } }));
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
    const run = await runCli(["-p", "hi", "--cwd", dir, "--output-format", "stream-json", "--no-sandbox"], agentEnv(server, dir));
    expect(initOf(run).plugins).toEqual([]);
    expect(run.stderr).not.toContain("not a trusted folder");
  });

  it("a project's enabledPlugins naming a plugin nobody installed loads nothing, trusted or not", async () => {
    const dir = project();
    write(path.join(dir, ".toolgate/settings.json"), JSON.stringify({ enabledPlugins: { "kit@elsewhere": true } }));
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
    const run = await runCli(["-p", "hi", "--cwd", dir, "--output-format", "stream-json", "--verbose", "--no-sandbox", "--trust"], agentEnv(server, dir));
    expect(initOf(run).plugins).toEqual([]);
    expect(run.stderr).toContain("enabledPlugins turns on kit@elsewhere, which is not installed (toolgate plugin install kit@elsewhere)");
  });

  it("a plugin folder inside an untrusted project: its command loads, its hook and server wait for trust", async () => {
    const dir = project();
    const plugin = writePlugin(path.join(dir, "tools/kit"));
    const turns: FakeModelTurn[] = [
      { content: [{ type: "tool_use", id: "toolu_bash", name: "Bash", input: { command: "echo ran-anyway" } }] },
      { content: [{ type: "text", text: "done" }] },
    ];
    const server = await serveModel({ turns, loop: true });
    const args = ["-p", "/kit:hello Ada", "--cwd", dir, "--plugin-dir", plugin, "--output-format", "stream-json", "--no-sandbox", "--allowedTools", "Bash(echo:*)"];
    const untrusted = await runCli(args, agentEnv(server, dir));
    expect(untrusted.stderr).toContain("plugin kit hooks (1), plugin kit MCP servers (1)");
    expect(initOf(untrusted).plugins).toEqual([{ name: "kit", path: plugin }]);
    expect(initOf(untrusted).mcp_servers).toEqual([]);
    expect(JSON.stringify(server.requests()[0].body)).toContain("Say hello to Ada in the kit style.");
    // The hook did not run: Bash ran, and the hook left no trace.
    expect(JSON.stringify(server.requests()[1].body)).toContain("ran-anyway");
    expect(fs.existsSync(path.join(plugin, "hook-ran.txt"))).toBe(false);

    const trusted = await runCli([...args, "--trust"], agentEnv(server, dir));
    expect(initOf(trusted).mcp_servers).toEqual([{ name: "plugin:kit:echo", status: "connected" }]);
    expect(JSON.stringify(server.requests()[3].body)).toContain("kit guard blocked Bash");
    expect(fs.readFileSync(path.join(plugin, "hook-ran.txt"), "utf8")).toBe(plugin);
  });

  it("a plugin's server never takes the tool names of one of the user's servers", async () => {
    const dir = project();
    const plugin = writePlugin(path.join(tempDir("toolgate-plugin-"), "kit"));
    const mine = JSON.stringify({ mcpServers: { plugin_kit_echo: { command: process.execPath, args: [path.join(plugin, "server.mjs")], env: { CLAUDE_PLUGIN_ROOT: "mine" } } } });
    const server = await serveModel({ turns: [{ content: [{ type: "tool_use", id: "toolu_1", name: SHOUT_TOOL(), input: { text: "x" } }] }, { content: [{ type: "text", text: "ok" }] }] });
    const run = await runCli(["-p", "hi", "--cwd", dir, "--plugin-dir", plugin, "--mcp-config", mine, "--output-format", "stream-json", "--verbose", "--no-sandbox", "--allowedTools", SHOUT_TOOL()], agentEnv(server, dir));
    expect(initOf(run).mcp_servers).toEqual([{ name: "plugin_kit_echo", status: "connected" }]);
    expect(run.stderr).toContain('server "plugin:kit:echo" was not started: its tool names (mcp__plugin_kit_echo__…) would clash with server "plugin_kit_echo"');
    expect(JSON.stringify(server.requests()[1].body)).toContain("X from mine");
  });
});
