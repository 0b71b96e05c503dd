/**
 * MCP resources and prompts against real servers over stdio: server-everything (static documents, prompts with
 * arguments) and the dynamic fixture (resources added at runtime, a binary resource). The tools run through the
 * real pipeline; prompts expand as `/mcp__server__prompt` commands.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, type McpManager } from "../../src/mcp/client/manager.js";
import { expandMcpPrompt, mcpPromptCommands, splitArguments } from "../../src/mcp/client/prompts.js";
import type { ToolUseContext } from "../../src/core/Tool.js";
import { ListMcpResourcesTool, ReadMcpResourceTool } from "../../src/tools/McpResources/index.js";
import { approveAll, testContext } from "../helpers.js";
import { dynamic, everything, resultText, runOne, stdioServer } from "./helpers.js";

let manager: McpManager;
let context: ToolUseContext;
const tools = [ListMcpResourcesTool, ReadMcpResourceTool];
// Nothing may ask: a canUseTool that is never supposed to be called says so.
const noAsk = async () => ({ behavior: "deny" as const, message: "asked" });

beforeAll(async () => {
  manager = await connectMcpServers([everything("every"), dynamic("dyn"), stdioServer("gone", { command: "toolgate-no-such-command-xyz" })]);
  context = testContext({ tools, refreshTools: manager.toolPool(tools), mcpClients: manager.clients });
}, 60_000);
afterAll(async () => {
  await manager.close();
});

describe("ListMcpResourcesTool and ReadMcpResourceTool", () => {
  it("lists every server's resources without asking, and says which server could not be asked", async () => {
    const { result } = await runOne("ListMcpResourcesTool", {}, context, noAsk);
    expect(result.block.is_error).toBeFalsy();
    const text = resultText(result);
    expect(text).toMatch(/server "every": demo:\/\/resource\/static\/document\/\S+/);
    expect(text).toContain('server "dyn": dyn://docs/first (first) text/plain; There from the start.');
    expect(text).toMatch(/Server "gone" could not be asked: could not connect: command not found/);
  });

  it("lists one server's resources, and names the configured servers for an unknown one", async () => {
    const { result } = await runOne("ListMcpResourcesTool", { server: "dyn" }, context, noAsk);
    expect(resultText(result)).not.toContain('"every"');
    const unknown = await runOne("ListMcpResourcesTool", { server: "nope" }, context, noAsk);
    expect(unknown.result.block.is_error).toBe(true);
    expect(resultText(unknown.result)).toContain('There is no MCP server named "nope". Configured servers: "every", "dyn", "gone".');
  });

  it("reads a text resource, and a binary one is described, not dumped", async () => {
    const listed = manager.client("every")!.resources;
    expect(listed.length).toBeGreaterThan(0);
    const { result } = await runOne("ReadMcpResourceTool", { server: "every", uri: listed[0].uri }, context, noAsk);
    expect(result.block.is_error).toBeFalsy();
    expect(resultText(result)).toContain(`[resource ${listed[0].uri}`);
    expect(resultText(result).length).toBeGreaterThan(`[resource ${listed[0].uri}]`.length + 20);
    const blob = await runOne("ReadMcpResourceTool", { server: "dyn", uri: "dyn://docs/blob.bin" }, context, noAsk);
    expect(resultText(blob.result)).toBe("[binary resource dyn://docs/blob.bin (application/octet-stream), 8 bytes, not shown]");
  });

  it("an unknown URI is an error result that carries the server's refusal", async () => {
    const { result } = await runOne("ReadMcpResourceTool", { server: "dyn", uri: "dyn://docs/missing" }, context, noAsk);
    expect(result.block.is_error).toBe(true);
    expect(resultText(result)).toMatch(/The MCP server "dyn" refused reading the resource dyn:\/\/docs\/missing: .*not found/i);
  });

  it("honours resources/list_changed: a resource added at runtime is listed and readable", async () => {
    const dyn = manager.client("dyn")!;
    const changed = new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (dyn.resources.some((r) => r.uri === "dyn://docs/later")) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
    });
    await runOne("mcp__dyn__add_resource", { name: "later" }, testContext({ tools: [], refreshTools: manager.toolPool([]) }), approveAll);
    // the notification alone updates the cached list (no ListMcpResourcesTool call in between)
    await changed;
    const { result } = await runOne("ReadMcpResourceTool", { server: "dyn", uri: "dyn://docs/later" }, context, noAsk);
    expect(resultText(result)).toContain("later document");
  });
});

describe("MCP prompts as /mcp__server__prompt commands", () => {
  it("lists each connected server's prompts with an argument hint", () => {
    const commands = mcpPromptCommands(manager.clients);
    const args = commands.find((c) => c.name === "mcp__every__args-prompt");
    expect(args).toMatchObject({ server: "every", prompt: "args-prompt", argumentHint: "<city> [state]" });
    expect(commands.some((c) => c.server === "gone")).toBe(false);
  });

  it("fills the arguments in order; a quoted word keeps its spaces; the last takes the rest", async () => {
    const signal = new AbortController().signal;
    const one = await expandMcpPrompt("/mcp__every__args-prompt Paris", manager.clients, signal);
    expect(one).toMatchObject({ kind: "prompt", text: "What's weather in Paris?" });
    const two = await expandMcpPrompt('/mcp__every__args-prompt "San Francisco" California Republic', manager.clients, signal);
    expect(two).toMatchObject({ kind: "prompt", text: "What's weather in San Francisco, California Republic?" });
  });

  it("a missing required argument is an error for the person, with the usage", async () => {
    const missing = await expandMcpPrompt("/mcp__every__args-prompt", manager.clients, new AbortController().signal);
    expect(missing).toEqual({ kind: "error", message: "/mcp__every__args-prompt needs <city>: usage /mcp__every__args-prompt <city> [state]" });
  });

  it("anything that is not a known MCP prompt is left alone", async () => {
    const signal = new AbortController().signal;
    expect(await expandMcpPrompt("/mcp__every__no-such-prompt x", manager.clients, signal)).toEqual({ kind: "none" });
    expect(await expandMcpPrompt("/review this", manager.clients, signal)).toEqual({ kind: "none" });
    expect(await expandMcpPrompt("mcp__every__args-prompt Paris", manager.clients, signal)).toEqual({ kind: "none" });
  });

  it("splits arguments like a shell would for quotes", () => {
    expect(splitArguments(`a "b c" 'd e' "f \\"g\\""`)).toEqual(["a", "b c", "d e", 'f "g"']);
    expect(splitArguments("   ")).toEqual([]);
  });
});
