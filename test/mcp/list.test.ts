import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runMcpList } from "../../src/cli/mcp.js";
import { estimateToolSchemaTokens } from "../../src/mcp/client/tokenEstimate.js";
import { tempDir } from "../helpers.js";
import { EVERYTHING_SERVER } from "./helpers.js";

async function list(projectDir: string, json = false, configFiles?: string[]): Promise<{ code: number; out: string }> {
  const output = new PassThrough();
  let out = "";
  output.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const code = await runMcpList({ projectDir, json, output, configFiles, env: { ...process.env, TG_LIST_ARG: "stdio" } });
  return { code, out };
}

function project(servers: Record<string, unknown>): string {
  const dir = tempDir("toolgate-mcp-list-");
  fs.writeFileSync(path.join(dir, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
  return dir;
}

describe("toolgate mcp list", () => {
  it("shows each server with its status, tool count and token estimate, and the config problems", async () => {
    const dir = project({
      everything: { command: process.execPath, args: [EVERYTHING_SERVER, "${TG_LIST_ARG}"] },
      broken: { command: "toolgate-no-such-command-xyz" },
      invalid: { type: "http" },
    });
    const { code, out } = await list(dir);
    expect(code).toBe(1);
    const lines = out.split("\n");
    expect(lines[0]).toMatch(/^SERVER\s+STATUS\s+TOOLS\s+~TOKENS\s+TRANSPORT$/);
    expect(lines.find((l) => l.startsWith("everything"))).toMatch(/^everything\s+connected\s+1\d\s+[\d,]+\s+stdio: .*index\.js stdio$/);
    expect(lines.find((l) => l.startsWith("broken"))).toMatch(/^broken\s+failed\s+-\s+-\s+stdio: toolgate-no-such-command-xyz$/);
    expect(out).toContain("could not connect: command not found: toolgate-no-such-command-xyz");
    expect(out).toContain("Token estimates are (characters of each tool's name, description and input schema) / 4.");
    expect(out).toContain(`${path.join(dir, ".mcp.json")}: server "invalid": "url" must be a non-empty string`);
  });

  it("--json gives the same facts, with per-tool estimates that add up", async () => {
    const dir = project({ everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] } });
    const { code, out } = await list(dir, true);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    const [server] = report.servers;
    expect(server).toMatchObject({ name: "everything", status: "connected", transport: "stdio", alwaysLoad: false });
    expect(server.toolCount).toBe(server.tools.length);
    expect(server.estimatedTokens).toBe(server.tools.reduce((n: number, t: { estimatedTokens: number }) => n + t.estimatedTokens, 0));
    expect(server.tools.find((t: { name: string }) => t.name === "mcp__everything__echo").estimatedTokens).toBeGreaterThan(10);
    expect(report.configErrors).toEqual([]);
  });

  it("says when nothing is configured", async () => {
    const { code, out } = await list(tempDir());
    expect(code).toBe(0);
    expect(out).toContain("No MCP servers configured");
  });
});

describe("estimateToolSchemaTokens", () => {
  it("is characters of name, description and schema over 4, rounded up", () => {
    const definition = { name: "echo", description: "Echoes.", inputSchema: { type: "object" as const } };
    const chars = "mcp__s__echo".length + "Echoes.".length + JSON.stringify({ type: "object" }).length;
    expect(estimateToolSchemaTokens("s", definition)).toBe(Math.ceil(chars / 4));
  });
});
