import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runDoctorChecks, webSearchCheck } from "../../../src/cli/doctor.js";
import { loadMcpConfig } from "../../../src/mcp/index.js";
import { createSession } from "../../../src/session/index.js";
import { tempDir } from "../../helpers.js";

async function webSearchRow(env: Record<string, string>, settings?: unknown, mcpServers?: Record<string, unknown>): Promise<{ status: string; lines: string[] }> {
  const cwd = tempDir("tg-ws-doctor-");
  const home = tempDir("tg-ws-home-");
  if (settings) {
    fs.mkdirSync(path.join(cwd, ".toolgate"));
    fs.writeFileSync(path.join(cwd, ".toolgate/settings.json"), JSON.stringify(settings));
  }
  if (mcpServers) fs.writeFileSync(path.join(cwd, ".mcp.json"), JSON.stringify({ mcpServers }));
  const fullEnv = { TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"), ...env };
  const session = await createSession({ cwd, home, env: fullEnv, trust: true });
  try {
    const report = await runDoctorChecks([webSearchCheck], { options: { cwd, home }, session, mcpConfig: loadMcpConfig({ projectDir: cwd, env: {} }), connect: false, env: fullEnv });
    const { name: _name, ...row } = report.checks[0];
    return row;
  } finally {
    await session.close();
  }
}

describe("toolgate doctor: web search row", () => {
  it("says which search WebSearch uses, or how to turn it on", async () => {
    expect(await webSearchRow({})).toEqual({ status: "ok", lines: ["WebSearch uses: Anthropic's server-side web search, in agent sessions (toolgate -p, the UI)"] });
    const off = await webSearchRow({ TOOLGATE_PROVIDER: "openai" });
    expect(off.status).toBe("ok");
    expect(off.lines[0]).toMatch(/^WebSearch is off\. .*"webSearch": \{"mcpTool": "mcp__brave__brave_web_search"/);
    const missing = await webSearchRow({ TOOLGATE_PROVIDER: "openai" }, { webSearch: { mcpTool: "mcp__brave__brave_web_search" } });
    expect(missing.lines).toEqual(['WebSearch uses: the MCP tool mcp__brave__brave_web_search — but no MCP server "brave" is configured in .mcp.json']);
    const both = await webSearchRow({}, { webSearch: { mcpTool: "mcp__brave__search" } }, { brave: { command: "true" } });
    expect(both.lines).toEqual(["WebSearch uses: Anthropic's server-side web search, in agent sessions (toolgate -p, the UI); otherwise the MCP tool mcp__brave__search"]);
  });
});
