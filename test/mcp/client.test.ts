import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, type McpManager } from "../../src/mcp/client/manager.js";
import { createMcpServerConnection } from "../../src/mcp/client/connection.js";
import { findToolByName, getDeferredToolNames, getToolsForModel, isDeferredTool } from "../../src/core/registry.js";
import type { ToolUseContext } from "../../src/core/Tool.js";
import { approveAll, testContext } from "../helpers.js";
import { dynamic, everything, resultText, runOne, startEverythingHttp, stdioServer } from "./helpers.js";

describe("a server whose tools change, fail, and misbehave (the SDK's McpServer over stdio)", () => {
  let manager: McpManager;
  let context: ToolUseContext;
  const changes: string[] = [];

  beforeAll(async () => {
    manager = await connectMcpServers([dynamic()]);
    manager.onToolsChanged((server) => changes.push(server));
    context = testContext({ tools: [], refreshTools: manager.toolPool([]) });
  });
  afterAll(async () => {
    await manager?.close();
  });

  it("connects", () => {
    expect(manager.clients[0].status).toBe("connected");
    expect(manager.clients[0].serverInfo).toMatchObject({ name: "dynamic-test-server" });
  });

  it("tools/list_changed refreshes the tool pool, and the session can call the new tool", async () => {
    const pool = context.options.refreshTools!;
    expect(pool()).toBe(pool());
    const before = pool();
    expect(findToolByName(before, "mcp__dyn__added_later")).toBeUndefined();
    changes.length = 0;
    const { result } = await runOne("mcp__dyn__add_tool", { name: "added_later" }, context, approveAll);
    expect(resultText(result)).toBe("added added_later");
    await expect.poll(() => manager.tools().map((t) => t.name), { timeout: 5_000 }).toContain("mcp__dyn__added_later");
    expect(changes).toContain("dyn");
    expect(pool()).not.toBe(before);
    expect(findToolByName(pool(), "mcp__dyn__added_later")).toBeDefined();
    const added = await runOne("mcp__dyn__added_later", {}, context, approveAll);
    expect(added.result.outcome).toBe("success");
    expect(resultText(added.result)).toBe("added_later ran");
  });

  it("caps a long description at 2 048 characters", async () => {
    const tool = findToolByName(manager.tools(), "mcp__dyn__long_description")!;
    const description = await tool.description({}, { tools: [] });
    expect(description.length).toBe(2_048);
    expect(description.startsWith("Start of a long description.")).toBe(true);
    expect(description.endsWith("[description truncated]")).toBe(true);
    expect(description).not.toContain("END-MARKER");
    expect(await tool.prompt({ tools: [] })).toBe(description);
  });

  it("maps destructiveHint to isDestructive", () => {
    expect(findToolByName(manager.tools(), "mcp__dyn__binary")!.isDestructive({})).toBe(true);
    expect(findToolByName(manager.tools(), "mcp__dyn__fail")!.isDestructive({})).toBe(false);
  });

  it("an isError result becomes an is_error tool_result with the server's text", async () => {
    const { result } = await runOne("mcp__dyn__fail", {}, context, approveAll);
    expect(result.block.is_error).toBe(true);
    expect(result.outcome).toBe("tool_error");
    expect(resultText(result)).toBe("the operation failed: disk on fire");
  });

  it("describes binary resources and audio, inlines PNG resources, and refuses SVG images inline", async () => {
    const { result } = await runOne("mcp__dyn__binary", {}, context, approveAll);
    const content = result.block.content as Array<{ type: string; text?: string; source?: { media_type: string } }>;
    expect(content[0].text).toBe("[binary resource file:///data.bin (application/octet-stream), 12 bytes, not shown]");
    expect(content[1].text).toBe("[audio of type audio/wav, 12 bytes, not shown]");
    expect(content[2].text).toMatch(/^\[image of type image\/svg\+xml, 6 bytes, not shown/);
    expect(content[3]).toMatchObject({ type: "image", source: { media_type: "image/png" } });
  });

  it("persists output over the threshold and keeps smaller output inline", async () => {
    const small = await runOne("mcp__dyn__big_output", { chars: 40_000 }, context, approveAll);
    expect(resultText(small.result)).toHaveLength(40_000);
    const big = await runOne("mcp__dyn__big_output", { chars: 120_000 }, context, approveAll);
    const text = resultText(big.result);
    expect(text).toContain("<persisted-output>");
    expect(text).toContain("120000 characters");
  });

  it("survives a server writing a non-JSON line to stdout", async () => {
    const { result } = await runOne("mcp__dyn__noisy", {}, context, approveAll);
    expect(resultText(result)).toBe("still fine");
    expect(manager.clients[0].status).toBe("connected");
  });

  it("a server that exits mid-call: the error has the exit code and its stderr; the next call restarts it", async () => {
    const { result } = await runOne("mcp__dyn__crash", {}, context, approveAll);
    expect(result.block.is_error).toBe(true);
    const text = resultText(result);
    expect(text).toContain('The MCP server "dyn" exited with code 7 while running crash.');
    expect(text).toContain("fatal: simulated crash");
    const again = await runOne("mcp__dyn__fail", {}, context, approveAll);
    expect(resultText(again.result)).toBe("the operation failed: disk on fire");
    expect(manager.clients[0].status).toBe("connected");
  });
});

describe("alwaysLoad", () => {
  it("a server with alwaysLoad: true has tools that are not deferred", async () => {
    const manager = await connectMcpServers([everything("eager", { alwaysLoad: true }), everything("lazy")]);
    try {
      const eager = findToolByName(manager.tools(), "mcp__eager__echo")!;
      const lazy = findToolByName(manager.tools(), "mcp__lazy__echo")!;
      expect(eager.alwaysLoad).toBe(true);
      expect(isDeferredTool(eager)).toBe(false);
      expect(isDeferredTool(lazy)).toBe(true);
      expect(getToolsForModel(manager.tools(), new Set()).map((t) => t.name)).toContain("mcp__eager__echo");
      expect(getDeferredToolNames(manager.tools(), new Set())).toContain("mcp__lazy__echo");
      expect(getDeferredToolNames(manager.tools(), new Set())).not.toContain("mcp__eager__echo");
    } finally {
      await manager.close();
    }
  });
});

describe("connection failures are reported, never thrown", () => {
  it("a command that does not exist", async () => {
    const manager = await connectMcpServers([stdioServer("missing", { command: "toolgate-no-such-command-xyz" }), everything("fine")]);
    try {
      const [missing, fine] = manager.clients;
      expect(missing.status).toBe("failed");
      expect(missing.error).toBe("could not connect: command not found: toolgate-no-such-command-xyz");
      expect(missing.toolCount).toBe(0);
      expect(fine.status).toBe("connected");
      expect(manager.tools().every((t) => t.name.startsWith("mcp__fine__"))).toBe(true);
    } finally {
      await manager.close();
    }
  });

  it("a server that exits during startup, with its stderr", async () => {
    const manager = await connectMcpServers([
      stdioServer("quits", { command: process.execPath, args: ["-e", "console.error('missing API key'); process.exit(3)"] }),
    ]);
    try {
      expect(manager.clients[0].status).toBe("failed");
      expect(manager.clients[0].error).toContain("the server exited with code 3 during startup");
      expect(manager.clients[0].error).toContain("missing API key");
    } finally {
      await manager.close();
    }
  });

  it("a server that never answers hits the connect timeout", async () => {
    const manager = await connectMcpServers([stdioServer("silent", { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] })], {
      settings: { mcp: { connectTimeoutMs: 400 } },
    });
    try {
      expect(manager.clients[0].status).toBe("failed");
      expect(manager.clients[0].error).toMatch(/could not connect: .*(400 ms|timed out)/i);
    } finally {
      await manager.close();
    }
  });

  it("a call to a server that is down and cannot be restarted says so", async () => {
    const connection = createMcpServerConnection(stdioServer("gone", { command: "toolgate-no-such-command-xyz" }));
    await connection.connect();
    await expect(connection.callTool("x", {}, { signal: new AbortController().signal, onProgress: () => undefined })).rejects.toThrow(
      'The MCP server "gone" is not available: could not connect: command not found: toolgate-no-such-command-xyz',
    );
    await connection.close();
  });
});

describe("call timeout", () => {
  it("a call longer than mcp.callTimeoutMs is an is_error naming the setting", async () => {
    const manager = await connectMcpServers([everything("slow")], { settings: { mcp: { callTimeoutMs: 300 } } });
    try {
      const ctx = testContext({ tools: manager.tools() });
      const { result } = await runOne("mcp__slow__trigger-long-running-operation", { duration: 5, steps: 5 }, ctx, approveAll);
      expect(result.block.is_error).toBe(true);
      expect(resultText(result)).toContain("did not finish within 300 ms (setting mcp.callTimeoutMs)");
      const next = await runOne("mcp__slow__echo", { message: "ok" }, ctx, approveAll);
      expect(resultText(next.result)).toBe("Echo: ok");
    } finally {
      await manager.close();
    }
  });
});

describe("remote transports against server-everything", () => {
  for (const [type, mode, path] of [
    ["http", "streamableHttp", "/mcp"],
    ["sse", "sse", "/sse"],
  ] as const) {
    it(`${type}: connects, lists tools, calls echo, streams progress`, async () => {
      const server = await startEverythingHttp(mode);
      const manager = await connectMcpServers([
        { name: `remote_${type}`, source: "test", config: { type, url: `http://127.0.0.1:${server.port}${path}`, headers: { "x-test": "1" } } },
      ]);
      try {
        const client = manager.clients[0];
        expect(client.error).toBeUndefined();
        expect(client.status).toBe("connected");
        expect(client.toolCount).toBeGreaterThan(5);
        const ctx = testContext({ tools: manager.tools() });
        const { result } = await runOne(`mcp__remote_${type}__echo`, { message: `over ${type}` }, ctx, approveAll);
        expect(resultText(result)).toBe(`Echo: over ${type}`);
        // The last notification and the response often arrive together; none may be lost.
        const long = await runOne(`mcp__remote_${type}__trigger-long-running-operation`, { duration: 0.2, steps: 3 }, ctx, approveAll);
        expect(long.progress.map((p) => (p.data as { progress: number }).progress)).toEqual([1, 2, 3]);
      } finally {
        await manager.close();
        await server.stop();
      }
    });
  }

  it("an unreachable URL names the address and the cause, not just 'fetch failed'", async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const manager = await connectMcpServers(
      [
        { name: "refused", source: "test", config: { type: "http", url: `http://127.0.0.1:${closed}/mcp?token=abc`, headers: {} } },
        { name: "unknown", source: "test", config: { type: "http", url: "http://no-such-host.invalid/mcp", headers: {} } },
      ],
      { connectTimeoutMs: 5_000 },
    );
    try {
      expect(manager.clients[0].error).toBe(`could not connect: http://127.0.0.1:${closed}/mcp: connect ECONNREFUSED 127.0.0.1:${closed}`);
      expect(manager.clients[1].error).toMatch(/^could not connect: http:\/\/no-such-host\.invalid\/mcp: getaddrinfo (ENOTFOUND|EAI_AGAIN) no-such-host\.invalid$/);
    } finally {
      await manager.close();
    }
  });

  it("an unreachable URL is a failed server", async () => {
    const manager = await connectMcpServers([{ name: "nowhere", source: "test", config: { type: "http", url: "http://127.0.0.1:9/mcp", headers: {} } }], {
      connectTimeoutMs: 5_000,
    });
    try {
      expect(manager.clients[0].status).toBe("failed");
      expect(manager.clients[0].error).toMatch(/^could not connect: /);
    } finally {
      await manager.close();
    }
  });
});
