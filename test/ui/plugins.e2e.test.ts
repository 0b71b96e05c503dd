/**
 * Plugins in the terminal UI: the real CLI in tmux and the scripted model. `/plugin install name@marketplace`
 * runs the same code as `toolgate plugin install`; `/plugin` lists it; the next session offers and runs its
 * namespaced command.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { closedAfterEach, hasTmux, Terminal, tuiEnv } from "./tmux.js";
import { write, writePlugin } from "../plugins/fixtures.js";
import { runCli } from "../cli/agentRun.js";

vi.setConfig({ testTimeout: 180_000 });

const { terminals, serve } = closedAfterEach();

describe.skipIf(!hasTmux)("plugins in the UI", () => {
  it("/plugin install, /plugin lists it, the next session runs /kit:hello", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "Hello, Ada!" }] }] });
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-tui-plugins-")));
    const dir = path.join(root, "project");
    const home = path.join(root, "home");
    fs.mkdirSync(dir);
    fs.mkdirSync(home);
    const market = path.join(root, "market");
    writePlugin(path.join(market, "kit"));
    write(path.join(market, ".claude-plugin/marketplace.json"), JSON.stringify({ name: "local", plugins: [{ name: "kit", source: "./kit", description: "The kit" }] }));
    const env = tuiEnv(home, server.url);
    expect((await runCli(["plugin", "marketplace", "add", market], { ...process.env, ...env })).code).toBe(0);

    const first = new Terminal(dir, env, ["--no-sandbox"], { columns: 120, rows: 30 });
    terminals.push(first);
    await first.waitFor("ask anything");
    await first.write("/plugin install kit@local\r");
    await first.waitFor("Installed kit@local 1.2.0");
    await first.write("/plugin\r");
    await first.waitFor(/kit@local 1\.2\.0\s+enabled/);
    expect(first.all()).toContain("No plugins in this session.");
    await first.write("/exit\r");

    const second = new Terminal(dir, env, ["--no-sandbox"], { columns: 120, rows: 30 });
    terminals.push(second);
    await second.waitFor("ask anything");
    await second.type("/kit:he");
    await second.waitFor(/\/kit:hello\s+Greet someone/);
    await second.key("C-u");
    await second.write("/kit:hello Ada\r");
    await second.waitFor("Hello, Ada!");
    expect(JSON.stringify((server.requests()[0].body as { messages: unknown[] }).messages.at(-1))).toContain("Say hello to Ada in the kit style.");
  });

  it("a --plugin-dir inside the folder: the trust question lists its hook and server; No keeps them off, the command still works", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "Hi there." }] }] });
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-tui-plugin-trust-")));
    const home = path.join(dir, ".home");
    fs.mkdirSync(home);
    const plugin = writePlugin(path.join(dir, "tools/kit"));
    const env = tuiEnv(home, server.url);
    const terminal = new Terminal(dir, env, ["--no-sandbox", "--plugin-dir", plugin], { columns: 160, rows: 40 });
    terminals.push(terminal);
    const question = (await terminal.waitFor("Do you trust the files in this folder?")).replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");
    expect(question).toContain("plugin kit hooks");
    expect(question).toContain('PreToolUse: node "${CLAUDE_PLUGIN_ROOT}/hooks/guard.mjs"');
    expect(question).toContain("plugin kit MCP servers");
    expect(question).toContain(`plugin:kit:echo: ${process.execPath} ${path.join(plugin, "server.mjs")}`);
    await terminal.key("n");
    await terminal.waitFor("ask anything");
    await terminal.write("/plugin\r");
    await terminal.waitFor(`kit@inline  ${plugin}`);
    await terminal.write("/kit:hello Ada\r");
    await terminal.waitFor("Hi there.");
    expect(JSON.stringify((server.requests()[0].body as { messages: unknown[] }).messages.at(-1))).toContain("Say hello to Ada in the kit style.");
    // Nothing of the server reached the model.
    expect(JSON.stringify(server.requests()[0].body)).not.toContain("mcp__plugin_kit_echo");
  });
  it("a project's extraKnownMarketplaces: the trust question lists it, /plugin shows it as the project's, /plugin install waits for Yes", async () => {
    const server = await serve({ turns: [] });
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-tui-project-market-")));
    const home = path.join(dir, ".home");
    fs.mkdirSync(home);
    const market = path.join(dir, "market");
    writePlugin(path.join(market, "kit"));
    write(path.join(market, ".claude-plugin/marketplace.json"), JSON.stringify({ name: "team", plugins: [{ name: "kit", source: "./kit" }] }));
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: market, stdio: "ignore" });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "marketplace");
    const url = pathToFileURL(market).href;
    write(path.join(dir, ".toolgate/settings.json"), JSON.stringify({ extraKnownMarketplaces: { team: { source: { source: "git", url } } }, enabledPlugins: { "kit@team": true } }));
    const env = tuiEnv(home, server.url);

    const first = new Terminal(dir, env, ["--no-sandbox"], { columns: 400, rows: 40 });
    terminals.push(first);
    const question = await first.waitFor("Do you trust the files in this folder?");
    expect(question).toContain(`team: {"source":"git","url":"${url}"}`);
    await first.key("n");
    await first.waitFor("ask anything");
    await first.write("/plugin marketplace list\r");
    await first.waitFor(`team  (from the project: extraKnownMarketplaces in ${path.join(dir, ".toolgate/settings.json")}; not used: ${dir} is not a trusted folder`);
    await first.write("/plugin install kit@team\r");
    await first.waitFor(`marketplace team is only declared by ${path.join(dir, ".toolgate/settings.json")}, and it is not used: ${dir} is not a trusted folder: trust it (toolgate trust add`);
    expect(fs.existsSync(path.join(home, "plugins/marketplaces"))).toBe(false);
    await first.write("/exit\r");

    const second = new Terminal(dir, env, ["--no-sandbox"], { columns: 400, rows: 40 });
    terminals.push(second);
    await second.waitFor("Do you trust the files in this folder?");
    await second.key("y");
    await second.waitFor("ask anything");
    await second.write("/plugin install kit@team\r");
    await second.waitFor("Installed kit@team 1.2.0");
    await second.write("/plugin marketplace list\r");
    await second.waitFor(`team  ${url} (added from the project: ${path.join(dir, ".toolgate/settings.json")})`);
  });
});
