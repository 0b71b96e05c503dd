/**
 * An MCP server that never answers `initialize` (or fails at start) has no tool list, so its tools are
 * unknown: calling one, or searching for it, must name the server and why it is not connected.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectMcpServers } from "../../src/mcp/client/manager.js";
import { ToolSearchTool } from "../../src/tools/ToolSearch/index.js";
import { approveAll, tempDir, testContext } from "../helpers.js";
import { everything, repoRoot, resultText, runOne, stdioServer } from "./helpers.js";

/** Reads stdin forever and never writes a byte: hangs in initialize. */
const SILENT = ["-e", "process.stdin.resume(); setInterval(() => {}, 1000)"];

describe("an MCP server that hangs in initialize", () => {
  it("calling its tool through toolgate exec names the server and the connection failure", () => {
    const cwd = tempDir("tg-unavail-");
    const home = tempDir("tg-unavail-home-");
    fs.writeFileSync(path.join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { silent: { command: process.execPath, args: SILENT } } }));
    fs.mkdirSync(path.join(cwd, ".toolgate"));
    fs.writeFileSync(path.join(cwd, ".toolgate/settings.json"), JSON.stringify({ mcp: { connectTimeoutMs: 500 } }));
    const lines = [
      { type: "tool_use", id: "call", name: "mcp__silent__echo", input: { message: "hi" } },
      { type: "tool_use", id: "search", name: "ToolSearch", input: { query: "mcp__silent" } },
      { type: "tool_use", id: "other", name: "mcp__nowhere__echo", input: {} },
    ];
    const run = spawnSync(process.execPath, ["--import", "tsx", path.join(repoRoot, "src/cli/main.ts"), "exec", "--trust", "--cwd", cwd], {
      cwd: repoRoot,
      input: lines.map((l) => JSON.stringify(l)).join("\n"),
      encoding: "utf8",
      env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
      timeout: 60_000,
    });
    expect(run.status).toBe(0);
    expect(run.stderr).toContain("MCP server silent is failed: could not connect: no answer within 500 ms (setting mcp.connectTimeoutMs)");
    const [call, search, other] = run.stdout.trim().split("\n").map((l) => JSON.parse(l).content[0]);

    expect(call.is_error).toBe(true);
    expect(call.content).toBe(
      '<tool_use_error>Error: The MCP server "silent" is not connected (failed: could not connect: no answer within 500 ms (setting mcp.connectTimeoutMs)), so its tool mcp__silent__echo is not available. Run "toolgate mcp list" to check it.</tool_use_error>',
    );
    expect(call.content).not.toContain("No such tool");
    const searchText = search.content.map((b: { text?: string }) => b.text ?? "").join("\n");
    expect(searchText).toContain('The MCP server "silent" is not connected (failed: could not connect: no answer within 500 ms');
    // a server that is not configured at all is still an unknown tool
    expect(other.content).toContain("No such tool available: mcp__nowhere__echo");
  });

  it("with another server connected: its tools work, the silent one's calls and searches explain", async () => {
    // the silent server costs the whole timeout; it is long so that "ok" (a real npm server) connects on a loaded machine
    const manager = await connectMcpServers([everything("ok"), stdioServer("silent", { command: process.execPath, args: SILENT })], {
      settings: { mcp: { connectTimeoutMs: 10_000 } },
    });
    try {
      const context = testContext({ tools: [ToolSearchTool], refreshTools: manager.toolPool([ToolSearchTool]), mcpClients: manager.clients });
      const echo = await runOne("mcp__ok__echo", { message: "hi" }, context, approveAll);
      expect(resultText(echo.result)).toContain("hi");

      const silent = await runOne("mcp__silent__echo", { message: "hi" }, context, approveAll);
      expect(silent.result.block.is_error).toBe(true);
      expect(resultText(silent.result)).toContain('The MCP server "silent" is not connected (failed: could not connect: no answer within 10000 ms');

      const search = await runOne("ToolSearch", { query: "nothing-matches-this" }, context, approveAll);
      expect(resultText(search.result)).toMatch(/The MCP server "silent" is not connected .*so its tools are not available/);
      const found = await runOne("ToolSearch", { query: "mcp__ok__echo" }, context, approveAll);
      expect(resultText(found.result)).not.toContain("silent");
    } finally {
      await manager.close();
    }
  });
});
