import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, type McpManager } from "../../src/mcp/client/manager.js";
import { parseMcpConfig } from "../../src/mcp/client/config.js";
import { isDeferredTool, findToolByName } from "../../src/core/registry.js";
import type { ToolUseContext } from "../../src/core/Tool.js";
import { ToolSearchTool } from "../../src/tools/ToolSearch/index.js";
import { approveAll, rejectAll, testContext } from "../helpers.js";
import { EVERYTHING_SERVER, everything, resultText, runOne } from "./helpers.js";

let manager: McpManager;
let context: ToolUseContext;

beforeAll(async () => {
  manager = await connectMcpServers([everything()]);
  context = testContext({ tools: [], refreshTools: () => [ToolSearchTool, ...manager.tools()] });
});

afterAll(async () => {
  await manager?.close();
});

describe("server-everything over stdio", () => {
  it("connects and turns each server tool into mcp__everything__<tool>", () => {
    const [client] = manager.clients;
    expect(client.status).toBe("connected");
    expect(client.error).toBeUndefined();
    const names = manager.tools().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__get-tiny-image", "mcp__everything__trigger-long-running-operation"]));
    expect(client.toolCount).toBe(names.length);
  });

  it("passes the JSON Schema through, marks the tool MCP and deferred, and maps annotations", () => {
    const echo = findToolByName(manager.tools(), "mcp__everything__echo")!;
    const definition = manager.clients[0].toolDefinitions.find((d) => d.name === "echo")!;
    expect(echo.inputJSONSchema).toEqual(definition.inputSchema);
    expect(echo.isMcp).toBe(true);
    expect(echo.mcpInfo).toEqual({ serverName: "everything", toolName: "echo" });
    expect(isDeferredTool(echo)).toBe(true);
    expect(echo.isReadOnly({})).toBe(true);
    expect(echo.isConcurrencySafe({})).toBe(true);
    expect(echo.maxResultSizeChars).toBe(100_000);
    const toggle = findToolByName(manager.tools(), "mcp__everything__toggle-simulated-logging")!;
    expect(toggle.isReadOnly({})).toBe(false);
    expect(toggle.isConcurrencySafe({})).toBe(false);
    expect(toggle.isDestructive({})).toBe(false);
  });

  it("asks by default and suggests an allow rule for exactly this tool", async () => {
    const echo = findToolByName(manager.tools(), "mcp__everything__echo")!;
    const verdict = await echo.checkPermissions({ message: "x" }, context);
    expect(verdict.behavior).toBe("passthrough");
    expect(verdict).toMatchObject({
      suggestions: [{ type: "addRules", behavior: "allow", rules: [{ toolName: "mcp__everything__echo" }], destination: "localSettings" }],
    });
    const { result } = await runOne("mcp__everything__echo", { message: "hi" }, context, rejectAll);
    expect(result.outcome).toBe("denied");
    expect(result.block.is_error).toBe(true);
  });

  it("echo runs through the pipeline", async () => {
    const { result } = await runOne("mcp__everything__echo", { message: "hello toolgate" }, context, approveAll);
    expect(result.outcome).toBe("success");
    expect(result.block.is_error).toBeUndefined();
    expect(resultText(result)).toBe("Echo: hello toolgate");
  });

  it("get-sum coerces numbers sent as strings", async () => {
    const { result } = await runOne("mcp__everything__get-sum", { a: "2", b: 3.5 }, context, approveAll);
    expect(result.outcome).toBe("success");
    expect(resultText(result)).toContain("5.5");
  });

  it("a schema error on a tool not loaded yet hints select:NAME, and not once ToolSearch loaded it", async () => {
    const before = await runOne("mcp__everything__get-sum", { a: 1 }, context, approveAll);
    expect(before.result.outcome).toBe("invalid_input");
    const text = resultText(before.result);
    expect(text).toContain("InputValidationError");
    expect(text).toContain("b: required parameter is missing (expected number)");
    expect(text).toContain('"select:mcp__everything__get-sum"');

    const search = await runOne("ToolSearch", { query: "select:mcp__everything__get-sum" }, context, approveAll);
    expect(search.result.outcome).toBe("success");
    expect(context.getAppState().loadedDeferredTools.has("mcp__everything__get-sum")).toBe(true);

    const after = await runOne("mcp__everything__get-sum", { a: 1 }, context, approveAll);
    expect(after.result.outcome).toBe("invalid_input");
    expect(resultText(after.result)).not.toContain("select:");
  });

  it("rejects a value outside the enum before it reaches the server", async () => {
    const { result } = await runOne("mcp__everything__get-structured-content", { location: "Paris" }, context, approveAll);
    expect(result.outcome).toBe("invalid_input");
    expect(resultText(result)).toContain('location: invalid value "Paris", expected one of "New York", "Chicago", "Los Angeles"');
  });

  it("get-structured-content gives the structuredContent as JSON text once, and mcpMeta", async () => {
    const { result } = await runOne("mcp__everything__get-structured-content", { location: "Chicago" }, context, approveAll);
    expect(result.outcome).toBe("success");
    const content = result.block.content as Array<{ type: string; text?: string }>;
    expect(content).toHaveLength(1);
    expect(JSON.parse(content[0].text!)).toEqual({ temperature: 36, conditions: "Light rain / drizzle", humidity: 82 });
    expect(result.mcpMeta?.structuredContent).toEqual({ temperature: 36, conditions: "Light rain / drizzle", humidity: 82 });
  });

  it("get-tiny-image gives an image block between its text blocks", async () => {
    const { result } = await runOne("mcp__everything__get-tiny-image", {}, context, approveAll);
    const content = result.block.content as Array<{ type: string; source?: { type: string; media_type: string; data: string } }>;
    expect(content.map((b) => b.type)).toEqual(["text", "image", "text"]);
    expect(content[1].source).toMatchObject({ type: "base64", media_type: "image/png" });
    expect(Buffer.from(content[1].source!.data, "base64").subarray(1, 4).toString()).toBe("PNG");
  });

  it("maps embedded resources (text and blob) and resource links to text", async () => {
    const text = await runOne("mcp__everything__get-resource-reference", { resourceType: "Text", resourceId: 2 }, context, approveAll);
    expect(resultText(text.result)).toMatch(/\[resource demo:\/\/resource\/dynamic\/text\/2 \(text\/plain\)\]\n/);
    const blob = await runOne("mcp__everything__get-resource-reference", { resourceType: "Blob", resourceId: 3 }, context, approveAll);
    // server-everything labels its blob text/plain, so the decoded text is shown.
    expect(resultText(blob.result)).toMatch(/\[resource demo:\/\/resource\/dynamic\/blob\/3 \(text\/plain\)\]\nResource 3: This is a base64 blob/);
    const links = await runOne("mcp__everything__get-resource-links", { count: 2 }, context, approveAll);
    expect(resultText(links.result)).toContain("[resource link] Blob Resource 1: demo://resource/dynamic/blob/1 (text/plain, Resource 1: plaintext resource)");
    expect(resultText(links.result)).toContain("[resource link] Text Resource 2: demo://resource/dynamic/text/2 (text/plain, Resource 2: plaintext resource)");
  });

  it("streams progress notifications as tool progress", async () => {
    const { progress, result } = await runOne("mcp__everything__trigger-long-running-operation", { duration: 0.3, steps: 3 }, context, approveAll);
    expect(result.outcome).toBe("success");
    expect(progress.map((p) => p.data)).toEqual([
      { type: "mcp_progress", serverName: "everything", toolName: "trigger-long-running-operation", progress: 1, total: 3 },
      { type: "mcp_progress", serverName: "everything", toolName: "trigger-long-running-operation", progress: 2, total: 3 },
      { type: "mcp_progress", serverName: "everything", toolName: "trigger-long-running-operation", progress: 3, total: 3 },
    ]);
    expect(progress.every((p) => p.toolUseID === result.toolUseID)).toBe(true);
  });

  it("aborting the context cancels the MCP request", async () => {
    const abortable = testContext({ tools: manager.tools() });
    const { result } = await runOne("mcp__everything__trigger-long-running-operation", { duration: 20, steps: 20 }, abortable, approveAll, () =>
      abortable.abortController.abort(),
    );
    expect(result.outcome).toBe("cancelled");
    expect(result.block.is_error).toBe(true);
    // The connection survives a cancelled request.
    const next = await runOne("mcp__everything__echo", { message: "still here" }, context, approveAll);
    expect(resultText(next.result)).toBe("Echo: still here");
  });

  it("persists a large output and shows a preview", async () => {
    const { result } = await runOne("mcp__everything__echo", { message: "x".repeat(60_000) }, context, approveAll);
    expect(result.outcome).toBe("success");
    const text = resultText(result);
    expect(text).toContain("<persisted-output>");
    expect(text).toContain(context.paths.toolResultsDir);
    expect(text.length).toBeLessThan(5_000);
  });
});

describe("server-everything, a crash mid-call", () => {
  it("gives a clear is_error naming the server and how it ended, then reconnects on the next call", async () => {
    const crashing = await connectMcpServers([everything("victim")]);
    try {
      const ctx = testContext({ tools: [], refreshTools: () => crashing.tools() });
      const client = crashing.clients[0];
      const firstPid = client.pid!;
      expect(firstPid).toBeGreaterThan(0);
      const { result } = await runOne("mcp__victim__trigger-long-running-operation", { duration: 20, steps: 20 }, ctx, approveAll, () => {
        process.kill(firstPid, "SIGKILL");
      });
      expect(result.block.is_error).toBe(true);
      expect(result.outcome).toBe("tool_error");
      const text = resultText(result);
      expect(text).toContain('The MCP server "victim" was killed by signal SIGKILL while running trigger-long-running-operation');
      expect(text).toContain("start it again on the next call");
      expect(client.status).toBe("disconnected");

      const again = await runOne("mcp__victim__echo", { message: "back" }, ctx, approveAll);
      expect(again.result.outcome).toBe("success");
      expect(resultText(again.result)).toBe("Echo: back");
      expect(client.status).toBe("connected");
      expect(client.pid).not.toBe(firstPid);
    } finally {
      await crashing.close();
    }
  });
});

describe("environment expansion reaches the server", () => {
  it("env values from .mcp.json (after ${VAR} expansion) are set in the server process", async () => {
    const parsed = parseMcpConfig(
      { mcpServers: { envcheck: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"], env: { TG_GREETING: "${TG_TEST_GREETING:-fallback}-${TG_TEST_NAME}" } } } },
      "inline",
      { TG_TEST_NAME: "world" },
      process.cwd(),
    );
    expect(parsed.errors).toEqual([]);
    const m = await connectMcpServers(parsed.servers);
    try {
      const ctx = testContext({ tools: m.tools() });
      const { result } = await runOne("mcp__envcheck__get-env", {}, ctx, approveAll);
      expect(JSON.parse(resultText(result)).TG_GREETING).toBe("fallback-world");
    } finally {
      await m.close();
    }
  });
});
