/**
 * Plugins in the terminal UI: the real CLI in tmux and the scripted model. `/plugin install name@marketplace`
 * runs the same code as `toolgate plugin install`; `/plugin` lists it; the next session offers and runs its
 * namespaced command.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "../../scripts/fake-model.mjs";
import { hasTmux, Terminal } from "./tmux.js";
import { write, writePlugin } from "../plugins/fixtures.js";
import { runCli } from "../cli/agentRun.js";

vi.setConfig({ testTimeout: 180_000 });

const servers: FakeModelServer[] = [];
const terminals: Terminal[] = [];
afterEach(async () => {
  for (const t of terminals.splice(0)) t.close();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe.skipIf(!hasTmux)("plugins in the UI", () => {
  it("/plugin install, /plugin lists it, the next session runs /kit:hello", async () => {
    const server = await startFakeModelServer({ script: { turns: [{ content: [{ type: "text", text: "Hello, Ada!" }] }] } });
    servers.push(server);
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-tui-plugins-")));
    const dir = path.join(root, "project");
    const home = path.join(root, "home");
    fs.mkdirSync(dir);
    fs.mkdirSync(home);
    const market = path.join(root, "market");
    writePlugin(path.join(market, "kit"));
    write(path.join(market, ".claude-plugin/marketplace.json"), JSON.stringify({ name: "local", plugins: [{ name: "kit", source: "./kit", description: "The kit" }] }));
    const env = { TOOLGATE_HOME: home, HOME: home, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url, PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color" };
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
});
