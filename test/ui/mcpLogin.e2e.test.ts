/**
 * `/mcp login <server>` in the terminal UI: the real CLI in tmux, the SDK's real authorization server (mcpAuthRouter)
 * and a bearer-protected MCP server (test/mcp/fixtures/oauthServer.ts), the scripted model. The test is the browser:
 * it fetches the address the UI prints and follows the authorization server's redirect to toolgate's loopback
 * callback. The session then has the server's tools without a restart.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "../../scripts/fake-model.mjs";
import { startProtectedMcpServer, type ProtectedMcpServer } from "../mcp/fixtures/oauthServer.js";
import { MCP_OAUTH_FILE } from "../../src/mcp/client/oauthStore.js";
import { hasTmux, Terminal, tuiProject } from "./tmux.js";

vi.setConfig({ testTimeout: 180_000 });

const models: FakeModelServer[] = [];
const protectedServers: ProtectedMcpServer[] = [];
const terminals: Terminal[] = [];
afterEach(async () => {
  for (const t of terminals.splice(0)) t.close();
  await Promise.all([...models.splice(0).map((s) => s.close()), ...protectedServers.splice(0).map((s) => s.close())]);
});

async function start(turns: object[]) {
  const model = await startFakeModelServer({ script: { turns } });
  models.push(model);
  const remote = await startProtectedMcpServer();
  protectedServers.push(remote);
  const { dir, home } = tuiProject("toolgate-tui-mcp-login-");
  // the person's own settings: the server's tools run without asking
  fs.writeFileSync(path.join(home, "settings.json"), JSON.stringify({ permissions: { allow: ["mcp__remote"] } }));
  const env = {
    TOOLGATE_HOME: home,
    HOME: home,
    TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"),
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: model.url,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    TERM: "xterm-256color",
    // no browser to open in a test: the address printed is what the test opens
    CI: "1",
  };
  const mcpConfig = JSON.stringify({ mcpServers: { remote: { type: "http", url: remote.url } } });
  // wide enough that the authorization address is one line of the screen
  const terminal = new Terminal(dir, env, ["--no-sandbox", "--mcp-config", mcpConfig], { columns: 900, rows: 40 });
  terminals.push(terminal);
  await terminal.waitFor("ask anything");
  return { model, remote, home, terminal };
}

/** The `nth` authorization address the UI printed (1 = the first), once it is there. */
async function authorizationUrl(terminal: Terminal, nth = 1): Promise<URL> {
  const pattern = /open this address in a browser:\s+(http\S+)/g;
  const screen = await terminal.waitFor(new RegExp(`(${pattern.source}[\\s\\S]*){${nth}}`), { all: true });
  return new URL([...screen.matchAll(pattern)][nth - 1]![1]!);
}

/** Polls until `file` exists (the CLI wrote its exit code), failing after a minute. */
async function fileAppears(file: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} did not appear`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!hasTmux)("/mcp login in the UI", () => {
  it("a needs-auth server: /mcp login prints the address, the browser's callback logs in, the server reconnects and its tool is called", async () => {
    const { model, remote, home, terminal } = await start([
      { content: [{ type: "tool_use", id: "toolu_who", name: "mcp__remote__whoami", input: { greeting: "hi" } }] },
      { content: [{ type: "text", text: "The server answered." }] },
    ]);
    await terminal.write("/mcp\r");
    await terminal.waitFor("remote: needs-auth — /mcp login remote");

    await terminal.write("/mcp login remote\r");
    const url = await authorizationUrl(terminal);
    expect(url.origin).toBe(remote.issuer);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    // the UI is not held while it waits: /mcp answers, and shows the server still needing its login
    await terminal.write("/mcp\r");
    await terminal.waitFor(/\/mcp\s+remote: needs-auth[\s\S]*\/mcp\s+remote: needs-auth/, { all: true });

    const browser = await fetch(url, { redirect: "follow" });
    expect(new URL(browser.url).hostname).toBe("127.0.0.1");
    expect(await browser.text()).toContain("logged in");
    await terminal.waitFor("Logged in to remote: connected, 1 tool(s).", { all: true });
    expect(fs.statSync(path.join(home, MCP_OAUTH_FILE)).mode & 0o777).toBe(0o600);
    // tokens never reach the screen
    const stored = JSON.parse(fs.readFileSync(path.join(home, MCP_OAUTH_FILE), "utf8"));
    const access = (Object.values(stored.servers ?? stored)[0] as { tokens: { access_token: string } }).tokens.access_token;
    expect(terminal.all()).not.toContain(access);

    await terminal.write("/mcp\r");
    await terminal.waitFor(/remote: connected, 1 tool\(s\)\s+mcp__remote__whoami/, { all: true });

    await terminal.write("ask the remote server who I am\r");
    await terminal.waitFor("The server answered.", { all: true });
    const requests = model.requests();
    const results = (requests[1]!.body as { messages: Array<{ content: unknown }> }).messages.at(-1)!.content as Array<{ type: string; tool_use_id?: string; is_error?: boolean; content?: unknown }>;
    const result = results.find((b) => b.tool_use_id === "toolu_who");
    expect(result?.is_error).toBeFalsy();
    expect(JSON.stringify(result?.content)).toContain("hi, client client-");
    expect(remote.acceptedTokens).toContain(access);
  });

  it("Esc cancels a login under way: the loopback listener is closed and nothing is stored; /exit during one ends it and the CLI exits", async () => {
    const { remote, home, terminal } = await start([]);
    await terminal.write("/mcp login remote\r");
    const url = await authorizationUrl(terminal);
    const callback = new URL(url.searchParams.get("redirect_uri")!);
    await terminal.key("Escape");
    await terminal.waitFor("/mcp login remote: cancelled; nothing was stored", { all: true });
    // the browser coming back late finds nobody at the callback address
    await expect(fetch(url, { redirect: "follow" })).rejects.toThrow();
    await expect(fetch(callback)).rejects.toThrow();
    const stored = fs.existsSync(path.join(home, MCP_OAUTH_FILE)) ? fs.readFileSync(path.join(home, MCP_OAUTH_FILE), "utf8") : "";
    expect(stored).not.toContain("access_token");
    expect(remote.codeExchanges).toBe(0);
    await terminal.write("/mcp\r");
    await terminal.waitFor(/\/mcp\s+remote: needs-auth/, { all: true });

    // leaving with a login under way ends it: the process exits instead of waiting for the browser
    await terminal.write("/mcp login remote\r");
    const second = new URL((await authorizationUrl(terminal, 2)).searchParams.get("redirect_uri")!);
    await terminal.write("/exit\r");
    await fileAppears(terminal.exitFile);
    expect(fs.readFileSync(terminal.exitFile, "utf8").trim()).toBe("0");
    await expect(fetch(second)).rejects.toThrow();
  });
});
