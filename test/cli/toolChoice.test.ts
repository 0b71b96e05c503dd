/**
 * --json-schema and --tools against the real CLI: the tools the model is offered are the session's own (Diagnostics
 * with a language server configured, the MCP resource tools with a server), with StructuredOutput added by
 * --json-schema and narrowed by --tools; before, either flag replaced the session's list with the plain built-ins.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { agentEnv, project, runCli, serveModel } from "./agentRun.js";
import { EVERYTHING_SERVER } from "../mcp/helpers.js";

vi.setConfig({ testTimeout: 120_000 });

const LSP = { typescript: { command: ["typescript-language-server", "--stdio"], extensions: [".ts"] } };

/** A trusted project with a language server and a real MCP server (the reference "everything" server from npm) configured. */
function configured(): string {
  const dir = project();
  fs.mkdirSync(path.join(dir, ".toolgate"));
  fs.writeFileSync(path.join(dir, ".toolgate/settings.json"), JSON.stringify({ lsp: LSP }));
  fs.writeFileSync(path.join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] } } }));
  return dir;
}

async function offered(args: string[]): Promise<{ names: string[]; stderr: string; code: number | null }> {
  const server = await serveModel({ turns: [{ content: [{ type: "text", text: "ok" }] }, { content: [{ type: "text", text: "ok" }] }] });
  const dir = configured();
  const run = await runCli(["-p", "hi", "--trust", ...args], agentEnv(server, dir), undefined, dir);
  const body = server.requests()[0]?.body as { tools?: Array<{ name: string }> } | undefined;
  return { names: (body?.tools ?? []).map((t) => t.name), stderr: run.stderr, code: run.code };
}

describe("the tools -p offers", () => {
  it("--json-schema adds StructuredOutput to the session's tools and takes none away", async () => {
    const plain = await offered([]);
    // (the server's own tools are found through ToolSearch, not listed up front)
    expect(plain.names).toEqual(expect.arrayContaining(["Read", "Bash", "Diagnostics", "ListMcpResourcesTool", "ReadMcpResourceTool"]));
    const schema = await offered(["--json-schema", JSON.stringify({ type: "object", properties: { ok: { type: "boolean" } } })]);
    expect([...schema.names].sort()).toEqual([...plain.names, "StructuredOutput"].sort());
  });

  it("--tools picks among the session's tools, Diagnostics and the resource tools included; a name no tool has is warned about", async () => {
    const { names, stderr } = await offered(["--tools", "Read,Diagnostics,ListMcpResourcesTool,Nope"]);
    expect(names.filter((n) => !n.startsWith("mcp__"))).toEqual(["Read", "Diagnostics", "ListMcpResourcesTool"]);
    expect(stderr).toContain("--tools: toolgate has no built-in tool Nope");
    expect(stderr).not.toContain("no built-in tool Diagnostics");
  });

  it('--tools "" offers no built-in tool, and --json-schema still adds StructuredOutput', async () => {
    const { names } = await offered(["--tools", "", "--json-schema", JSON.stringify({ type: "object" })]);
    expect(names.filter((n) => !n.startsWith("mcp__"))).toEqual(["StructuredOutput"]);
  });
});
