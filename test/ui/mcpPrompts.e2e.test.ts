/**
 * MCP prompts in the terminal UI: the real CLI in tmux with server-everything over stdio and the scripted model.
 * The `/` menu offers the server's prompts; `/mcp__every__args-prompt Paris` sends what the server returns; a
 * missing argument is shown to the person and nothing is sent.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { closedAfterEach, hasTmux, Terminal, tuiEnv } from "./tmux.js";

vi.setConfig({ testTimeout: 180_000 });

const require = createRequire(import.meta.url);
const everythingServer = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");
const { terminals, serve } = closedAfterEach();

describe.skipIf(!hasTmux)("MCP prompts in the UI", () => {
  it("the / menu lists them, a prompt runs with its arguments, a missing one is explained", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "Sunny all week." }] }] });
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-tui-mcp-")));
    const home = path.join(dir, ".home");
    fs.mkdirSync(home);
    const mcpConfig = JSON.stringify({ mcpServers: { every: { command: process.execPath, args: [everythingServer, "stdio"] } } });
    const env = tuiEnv(home, server.url);
    const terminal = new Terminal(dir, env, ["--no-sandbox", "--mcp-config", mcpConfig], { columns: 100, rows: 30 });
    terminals.push(terminal);
    await terminal.waitFor("ask anything");

    await terminal.type("/mcp__every__args");
    await terminal.waitFor(/mcp__every__args-prompt .*\(MCP\)/);
    await terminal.key("C-u");
    await terminal.write("/mcp__every__args-prompt\r");
    await terminal.waitFor("/mcp__every__args-prompt needs <city>: usage /mcp__every__args-prompt <city> [state]");
    expect(server.requests()).toHaveLength(0);

    await terminal.write('/mcp__every__args-prompt "Des Moines" Iowa\r');
    await terminal.waitFor("Sunny all week.");
    const [request] = server.requests();
    expect(JSON.stringify((request.body as { messages: unknown[] }).messages.at(-1))).toContain("What's weather in Des Moines, Iowa?");
  });
});
